from lantern import Client

client = Client(keep_alive=True)
