"""What a consumer tells about itself: membership events (emitter and the events-topic
publisher) and the health endpoint. Internal: the public faces are ``staticconsumer.events``,
``StaticConsumer.membership``, ``staticconsumer.HealthServer`` (one endpoint per process) and
``StaticConsumer(health_port=...)``."""
