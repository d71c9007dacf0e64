"""A small Streams-like application on StaticConsumer (see ``app.py``); ``staticconsumer demo``
runs two of its processes and restarts one of them."""
