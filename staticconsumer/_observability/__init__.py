"""What a consumer tells about itself: membership events (emitter and the events-topic
publisher), the coordinator metrics (``metrics``; ``otel`` for OpenTelemetry) and the health
endpoint. Internal: the public faces are ``staticconsumer.events``,
``StaticConsumer.membership``, ``StaticConsumer.metrics()``, ``staticconsumer.HealthServer``
(one endpoint per process, with ``/metrics``) and ``StaticConsumer(health_port=...)``."""
