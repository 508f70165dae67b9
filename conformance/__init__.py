"""The topology conformance harness: corpus, adapters, expectations and reports."""

__version__ = "0.1.0"
FORMAT_VERSION = 1
PROTOCOL_VERSION = 1
REPORT_FORMAT = 1
