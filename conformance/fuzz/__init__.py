"""Differential fuzzing: generated cases run on an implementation and on the
reference, disagreements shrunk to minimal cases and written as fixtures."""
