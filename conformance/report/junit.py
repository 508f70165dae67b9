"""junit.xml for CI systems, rendered from results.json (no timings, so the file
is the same for the same inputs).

The verdicts are the run's: an unexpected pass is a passing test case (marked
with an `outcome` property) unless the run was strict, where it is a failure;
not-applicable cases are skipped; each suite carries the applicable counts and
pass rate as properties.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from conformance.model import FAIL, PASSED, SKIP, UNSUPPORTED, XFAIL, XPASS, is_unexpected
from conformance.report import counts, details

_SKIPPED = (UNSUPPORTED, SKIP, XFAIL)


def _properties(parent: ET.Element, values: dict[str, str]) -> None:
    properties = ET.SubElement(parent, "properties")
    for name, value in values.items():
        ET.SubElement(properties, "property", name=name, value=value)


def render(document: dict[str, Any]) -> str:
    header = document["header"]
    strict = bool(header.get("strict"))
    implementation = header["implementation"]["implementation"]
    suites = ET.Element("testsuites", name=f"{implementation['name']}-{implementation['version']}")
    for component, records in counts.by_component(document["records"]).items():
        outcomes = [r["outcome"] for r in records]
        tally = counts.tally(outcomes)
        failures = sum(1 for o in outcomes if o == FAIL or (o == XPASS and strict))
        skipped = sum(1 for o in outcomes if o in _SKIPPED)
        errors = sum(1 for o in outcomes if is_unexpected(o, strict)) - failures
        suite = ET.SubElement(suites, "testsuite", name=component, tests=str(len(records)),
                              failures=str(failures), errors=str(errors), skipped=str(skipped))
        _properties(suite, {"applicable": str(tally.applicable), "not_applicable": str(tally.not_applicable),
                            "passed": str(tally.passed), "passing": tally.percent(), "strict": str(strict).lower()})
        for record in records:
            case = ET.SubElement(suite, "testcase", name=record["id"], classname=record["file"])
            outcome = record["outcome"]
            if outcome in PASSED and not is_unexpected(outcome, strict):
                if outcome == XPASS:
                    _properties(case, {"outcome": XPASS})
                    ET.SubElement(case, "system-out").text = (
                        f"passed, though the expectations file says {record['expected_outcome']}: "
                        f"{record.get('expectation_reason') or ''}")
                continue
            d = details.of(record, header)
            message = record.get("message") or outcome
            if outcome in _SKIPPED:
                ET.SubElement(case, "skipped", message=f"{outcome}: {message}")
                continue
            element = ET.SubElement(case, "failure" if outcome in (FAIL, XPASS) else "error", type=outcome,
                                    message=message if outcome != XPASS else
                                    f"unexpected pass (strict run): the expectations file says {record['expected_outcome']}")
            # The same text a terminal gets, minus the first line the message already says.
            body = details.plain(d, answer_lines=None)[1:]
            element.text = "\n".join(body) or None
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
