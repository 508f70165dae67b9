"""Reports: the canonical results.json and what is rendered from it."""
