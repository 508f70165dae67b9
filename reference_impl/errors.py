"""Errors the reference raises for input it cannot interpret.

Domain refusals (a configuration the kubelet refuses, an annotation Kueue rejects)
are results, not exceptions; these are for input that breaks the operation's
contract, which the protocol reports as an `error` response.
"""


class InvalidInput(ValueError):
    """The input does not follow the operation's documented shape."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
