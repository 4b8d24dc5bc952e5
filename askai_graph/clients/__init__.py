"""What every call to an OpenAI-compatible server shares, for chat and embedding models alike.

``endpoint`` turns settings into a client's address, key and token-limit field;
``deadline`` is the httpx transport that bounds a request's total time.
"""
