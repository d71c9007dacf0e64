"""Runnable examples for staticconsumer (run them from the repository root).

``python -m examples.streams_app --help`` is the Streams-like application that
``staticconsumer demo`` runs.
"""
