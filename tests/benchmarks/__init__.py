"""Smoke tests of the scripts in benchmarks/."""
