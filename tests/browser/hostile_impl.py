"""An implementation whose answers, errors and stderr carry markup meant to run in
whoever opens its report: script elements, a closing </pre>, javascript: links
and SVG with event handlers. It is the reference otherwise, so some cases pass.

    python hostile_impl.py

- kubelet admit: the first pod and container are renamed with markup, and the
  reason carries a javascript: link (the case fails, with a picture);
- kueue assign: the first podset is renamed with markup (fails, with a picture);
- kubelet start: an error whose message is markup (every row fails alike);
- koordinator filter: the process writes markup to stderr and dies (a crash);
- everything else: the reference's own answer.
"""

import json
import os
import sys

from reference_impl import server

SCRIPT = "<script>window.__pwned = 'script'</script>"
PRE = "</pre><img src=x onerror=\"window.__pwned = 'img'\">"
LINK = "<a href=\"javascript:window.__pwned = 'link'\">javascript:window.__pwned = 'href'</a>"
SVG = "<svg onload=\"window.__pwned = 'svg'\"><circle r=\"5\" onmouseover=\"window.__pwned = 'hover'\"/></svg>"
EVERYTHING = " ".join((SCRIPT, PRE, LINK, SVG))


def hello():
    message = server.hello()
    message["implementation"].update(name="hostile", version="1.0", homepage="javascript:window.__pwned = 'home'",
                                     source=SCRIPT)
    return message


def mangle(message, answer):
    case = message["case"]
    result = answer.get("result")
    if case["component"] == "kubelet" and case["operation"] == "start":
        return {"seq": message["seq"], "error": {"message": EVERYTHING}}
    if case["component"] == "koordinator" and case["operation"] == "filter":
        sys.stderr.write(f"panic: {EVERYTHING}\n{SCRIPT}\n")
        sys.stderr.flush()
        os._exit(2)
    if case["operation"] == "admit" and isinstance(result, dict) and result.get("pods"):
        pod = result["pods"][0]
        pod["name"] = SCRIPT
        pod["reason"] = LINK
        if pod.get("containers"):
            pod["containers"][0]["name"] = PRE + SVG
    if case["operation"] == "assign" and isinstance(result, dict) and result.get("podSets"):
        result["podSets"][0]["name"] = SVG + SCRIPT
    return answer


def main():
    for line in sys.stdin:
        message = json.loads(line)
        command = message.get("cmd")
        if command == "hello":
            answer = hello()
        elif command == "stop":
            return 0
        else:
            answer = mangle(message, server.run(message))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
