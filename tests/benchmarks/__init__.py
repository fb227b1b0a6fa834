"""Benchmarks of issue 9, run with ``python -m tests.benchmarks`` (never collected by
pytest: ``benchmarks`` is in ``norecursedirs``). Latest numbers: ``RESULTS.md``."""
