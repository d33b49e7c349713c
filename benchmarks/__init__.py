"""Benchmarks: each ``bench_*.py`` module measures ratios side by side and returns rows; ``python
-m benchmarks`` (``nox -s bench``) runs them all into one table and ``build/bench.json``. The
module interface is described in benchmarks/README.md."""
