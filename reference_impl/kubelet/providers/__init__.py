"""Hint providers: the CPU manager (static policy), the memory manager (Static
policy) and the device manager, each with its allocation state."""

from __future__ import annotations


class AllocationError(Exception):
    """A provider's Allocate failed; the pod is rejected with
    UnexpectedAdmissionError."""


class EmptyPodSharedPoolError(AllocationError):
    """A pod-level budget (CPU or memory) that leaves nothing for the
    containers that run in the pod's shared pool; reported under its own
    reason."""

    reason = "EmptyPodSharedPoolError"
