"""A fake implementation with one fault at a time, for the harness's own tests.

    python fake_impl.py MODE [N]

MODE is one of: good, die-before-hello, die-mid-run, hang, garbage, wrong-seq,
invalid-result, huge-line, stderr-flood, ignore-stop, bad-protocol, error, unknown-feature.
Faults that strike "mid-run" do so on the N-th case this process receives (default 2),
so a restarted process (which counts from 1 again) gets further.

Answers too deep or too large to judge: deep-answer, nested-answer, wide-answer,
huge-number (mid-run), deep-hello.
"""

import json
import os
import sys
import time

MODE = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 2
FEATURES = ["kubelet.merge", "kubelet.policy.best-effort"]
if MODE == "unknown-feature":
    # a typo of a feature name: the harness warns about it
    FEATURES = FEATURES + ["kubelet.policy.best-efort"]
RESULT = {"affinity": [0], "preferred": True, "score": 0, "admit": True, "scoreDecided": False}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    seen = 0
    for line in sys.stdin:
        message = json.loads(line)
        cmd = message.get("cmd")
        if cmd == "hello":
            if MODE == "deep-hello":
                sys.stdout.write('{"protocol": 1, "implementation": ' + "[" * 50000 + "]" * 50000 + "}\n")
                sys.stdout.flush()
                continue
            if MODE == "die-before-hello":
                sys.stderr.write("fake: cannot initialise\n")
                sys.stderr.flush()
                os._exit(7)
            send({"protocol": 2 if MODE == "bad-protocol" else 1,
                  "implementation": {"name": "fake", "version": "1.0"},
                  "capabilities": {"components": ["kubelet"], "features": FEATURES}})
            continue
        if cmd == "stop":
            if MODE == "ignore-stop":
                while True:
                    time.sleep(1)
            return 0
        seen += 1
        seq = message["seq"]
        strike = seen == N
        if MODE == "die-mid-run" and strike:
            sys.stderr.write("fake: segfault imitation\n")
            sys.stderr.flush()
            os._exit(11)
        if MODE == "hang" and strike:
            time.sleep(3600)
        if MODE == "garbage" and strike:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if MODE == "wrong-seq" and strike:
            send({"seq": seq + 100, "result": RESULT})
            continue
        if MODE == "invalid-result" and strike:
            send({"seq": seq, "result": {"affinity": "zero"}})
            continue
        if MODE == "huge-line" and strike:
            sys.stdout.write(f'{{"seq": {seq}, "result": {{"pad": "' + "x" * (50 * 1024 * 1024) + '"}}\n')
            sys.stdout.flush()
            continue
        # Answers that are valid JSON lines under the line limit but too deep or
        # too large to judge.
        hostile = {
            "deep-answer": "[" * 50000 + "]" * 50000,
            "nested-answer": '{"a": ' * 200 + "0" + "}" * 200,
            "wide-answer": "[" + ",".join(["0"] * 1_500_000) + "]",
            "huge-number": "9" * 5000,
        }
        if MODE in hostile and strike:
            sys.stdout.write(f'{{"seq": {seq}, "result": {{"affinity": {hostile[MODE]}}}}}\n')
            sys.stdout.flush()
            continue
        if MODE == "stderr-flood":
            sys.stderr.write(("fake: noise " * 100 + "\n") * 2000)
            sys.stderr.flush()
        if MODE == "error" and strike:
            send({"seq": seq, "error": {"message": "fake: cannot compute"}})
            continue
        send({"seq": seq, "result": RESULT})
    return 0


if __name__ == "__main__":
    sys.exit(main())
