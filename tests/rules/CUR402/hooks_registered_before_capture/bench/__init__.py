"""Benchmarks that hook a model before capturing its step."""
