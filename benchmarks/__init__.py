"""Benchmarks of the reference implementation side by side with the upstream shims."""
