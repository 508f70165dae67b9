"""junit.xml for CI systems, rendered from results.json (no timings, so the file
is the same for the same inputs)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

from conformance.model import FAIL, NOTRUN, PASS, SKIP, UNSUPPORTED, XFAIL, XPASS

_SKIPPED = (UNSUPPORTED, SKIP, XFAIL, NOTRUN)


def render(document: dict[str, Any]) -> str:
    implementation = document["header"]["implementation"]["implementation"]
    suites = ET.Element("testsuites", name=f"{implementation['name']}-{implementation['version']}")
    by_component: dict[str, list[dict]] = defaultdict(list)
    for record in document["records"]:
        by_component[record["component"]].append(record)
    for component, records in sorted(by_component.items()):
        failures = sum(1 for r in records if r["outcome"] in (FAIL, XPASS))
        skipped = sum(1 for r in records if r["outcome"] in _SKIPPED)
        errors = len(records) - failures - skipped - sum(1 for r in records if r["outcome"] == PASS)
        suite = ET.SubElement(suites, "testsuite", name=component, tests=str(len(records)),
                              failures=str(failures), errors=str(errors), skipped=str(skipped))
        for record in records:
            case = ET.SubElement(suite, "testcase", name=record["id"], classname=record["file"])
            outcome, message = record["outcome"], record.get("message") or record["outcome"]
            detail = "\n".join(record.get("diff") or [])
            if outcome == PASS:
                continue
            if outcome in (FAIL, XPASS):
                element = ET.SubElement(case, "failure", type=outcome, message=message)
                element.text = detail or None
            elif outcome in _SKIPPED:
                ET.SubElement(case, "skipped", message=f"{outcome}: {message}")
            else:
                element = ET.SubElement(case, "error", type=outcome, message=message)
                tail = record.get("stderr_tail")
                element.text = "\n".join(filter(None, [detail, "\n".join(tail or [])])) or None
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
