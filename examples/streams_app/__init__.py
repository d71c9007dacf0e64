"""The Streams-like application ships inside the package as :mod:`staticconsumer.streams_app`
(that is what ``staticconsumer demo`` runs from an installed wheel); this directory only keeps
``python -m examples.streams_app`` working from the repository root. One source: read and change
``staticconsumer/streams_app/``."""
