"""StaticConsumer (the public drop-in ``AIOKafkaConsumer``), its options and the assembly of its
driver. Internal: the public name is ``staticconsumer.StaticConsumer``."""
