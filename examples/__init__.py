"""Runnable examples for staticconsumer (run them from the repository root).

``python -m examples.streams_app --help`` runs the Streams-like application that
``staticconsumer demo`` runs; its source ships in the package as ``staticconsumer/streams_app``.
"""
