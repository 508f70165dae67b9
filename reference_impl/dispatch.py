"""One dispatch table keyed by component and operation.

Each component package exposes `OPERATIONS` (operation name -> function taking the
input mapping and returning the result mapping) and `FEATURES` (the feature names
it implements) from its `operations` module. An operation that has points of
variation (the component's `seams` module) also takes `seams=`; left out, the
contract's rules apply.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

COMPONENTS = ("kubelet", "koordinator", "kueue")

Operation = Callable[[Mapping[str, Any]], dict[str, Any]]


class UnknownOperation(LookupError):
    pass


def _module(component: str):
    if component not in COMPONENTS:
        raise UnknownOperation(f"unknown component {component!r}")
    try:
        return importlib.import_module(f"reference_impl.{component}.operations")
    except ModuleNotFoundError as exc:
        if exc.name == f"reference_impl.{component}.operations":
            return None
        raise


def available_components() -> list[str]:
    return [c for c in COMPONENTS if _module(c) is not None]


def features() -> list[str]:
    names: set[str] = set()
    for component in available_components():
        names.update(_module(component).FEATURES)
    return sorted(names)


def operation(component: str, name: str) -> Operation:
    module = _module(component)
    if module is None or name not in module.OPERATIONS:
        raise UnknownOperation(f"unknown operation {component}.{name}")
    return module.OPERATIONS[name]


def run(component: str, name: str, input_: Mapping[str, Any], seams: Any = None) -> dict[str, Any]:
    if seams is None:
        return operation(component, name)(input_)
    return operation(component, name)(input_, seams=seams)


def admitted(component: str, name: str, input_: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every answer the contract admits for the input, each once: the
    reference's own, then those under the rule sets a component's operations
    module lists in `ADMITTED` (operation name -> seams) for points the
    contract leaves open."""
    module = _module(component)
    answers = [run(component, name, input_)]
    for seams in getattr(module, "ADMITTED", {}).get(name, ()):
        answer = run(component, name, input_, seams)
        if answer not in answers:
            answers.append(answer)
    return answers
