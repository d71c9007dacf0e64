"""Java programs (built from Maven jars) that tests and benchmarks use as oracles and peers."""
