"""The answer rules, as pure functions: what the gates decide and what a question or answer must be.

``gates`` holds the Critic thresholds, catalog early acceptance, the Source Gate and
the display list of sources; ``catalog`` says which questions are catalog questions;
``answer_form`` what form a question asks for (a command, a value, a list); and
``question`` the one rule a question meets before any run.
"""
