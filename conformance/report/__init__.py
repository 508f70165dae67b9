"""Reports: the canonical results.json and what is rendered from it."""

from conformance.report.results import build, load, write_all

__all__ = ["build", "load", "write_all"]
