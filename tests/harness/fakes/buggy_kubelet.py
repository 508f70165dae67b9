"""The reference kubelet with the bugs a new user tried the kit on, for the
harness's end-to-end tests of what the kit reports:

- its hello leaves out one policy (best-effort) and names a feature that does
  not exist (a typo of that policy);
- its merge answers the first hint of the first provider;
- its start never refuses too many NUMA nodes (it starts with the first eight).

    python buggy_kubelet.py
"""

import json
import sys

from reference_impl import server

MISSING = "kubelet.policy.best-effort"
TYPO = "kubelet.policy.best-efort"


def hello():
    message = server.hello()
    message["implementation"] = {"name": "buggy-kubelet", "version": "0.1"}
    capabilities = message["capabilities"]
    capabilities["components"] = ["kubelet"]
    capabilities["features"] = [f for f in capabilities["features"] if f.startswith("kubelet.") and f != MISSING]
    capabilities["features"].append(TYPO)
    return message


def first_hint(case, answer):
    result = answer.get("result")
    providers = case["input"].get("providers") or []
    hints = [hint for provider in providers if isinstance(provider, dict)
             for resource in provider.values() for hint in resource or []]
    if isinstance(result, dict) and "affinity" in result and hints:
        result["affinity"] = hints[0].get("affinity")
        result["preferred"] = hints[0].get("preferred", True)
    return answer


def never_too_many(message, answer):
    result = answer.get("result") or {}
    if (result.get("refused") or {}).get("reason") != "TooManyNUMANodes":
        return answer
    numa = dict(message["case"]["input"]["numa"])
    numa["nodes"] = numa["nodes"][:8]
    if numa.get("distances"):
        numa["distances"] = [row[:8] for row in numa["distances"][:8]]
    retry = json.loads(json.dumps(message))
    retry["case"]["input"]["numa"] = numa
    return server.run(retry)


def main():
    for line in sys.stdin:
        message = json.loads(line)
        command = message.get("cmd")
        if command == "hello":
            answer = hello()
        elif command == "stop":
            return 0
        else:
            answer = server.run(message)
            operation = message["case"]["operation"]
            if operation == "merge":
                answer = first_hint(message["case"], answer)
            elif operation == "start":
                answer = never_too_many(message, answer)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
