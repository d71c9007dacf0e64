"""Test helpers for applications built on staticconsumer (the pytest plugin lives here)."""
