"""Benchmarks, apart from the tests: `./run bench [name]` or `python -m bench.<name>`."""
