#!/usr/bin/env bash
# Rebuild the source tree of a KEP-6007 pull request of kubernetes/kubernetes
# outside this repository, so the kubelet shim can be built against it:
#
#   shims/kubelet/branches/reconstruct.sh 142226 /path/to/branch-files [/tmp/k8s-142226]
#   KUBERNETES_SRC=/tmp/k8s-142226 KUBELET_SHIM_TAGS=kep6007,kep6007_pr142226 \
#     KUBELET_SHIM_OUT=shims/kubelet/bin/pr142226/kubelet-shim shims/kubelet/build.sh
#
# No head commit of either pull request is reachable from here, and no
# upstream file is kept in this repository. The branch's files are the stored
# versions listed below (repository kubernetes/kubernetes; "id" is the code
# index's file id, "@" the commit the index attaches to that version); put
# them, under their repository paths, in the folder given as the second
# argument. The script takes the v1.37.2 module source (the base both pull
# requests were written against), copies it, lays those files over it and
# then makes the small edits the stored versions do not cover (files of the
# pull requests that are not stored), each described where it is made. It
# fetches nothing but v1.37.2 through the Go module proxy (if not cached).
#
# 141796 (TopologyHint.Score; CPU and device scores):
#   pkg/kubelet/cm/topologymanager/policy.go        id 61434707566 @fb56769c6de4b4f8f23bb6d74dfb52399b993387
#   pkg/kubelet/cm/devicemanager/topology_hints.go  id 61810942385 @e1d6c8549f01ebf6b5c72c5d0f8780d3d5a4863d
#   pkg/kubelet/cm/cpumanager/policy_static.go      id 65869033822 @fb56769c6de4b4f8f23bb6d74dfb52399b993387
#     (only its score hunk in generateCPUTopologyHints is used: the file
#     itself sits on a later master and does not compile on v1.37.2)
# 142226 (numa-allocation-strategy, numa-score-weights; builds on 141796):
#   pkg/kubelet/cm/topologymanager/policy.go        id 68458850399 (second push; commit not recorded)
#   pkg/kubelet/cm/topologymanager/policy_options.go id 68771649426 (second push; commit not recorded)
#   plus the two provider files of 141796 above.
#
# Edits made here because the pull requests' own versions are not stored:
#   topology_manager.go  TopologyHint gains `Score int64` (0 = unscored)
#   policy_best_effort.go, policy_restricted.go, policy_single_numa_node.go
#                        Merge passes the logger to HintMerger.Merge; for
#                        142226 also the resource names from
#                        filterProvidersHints into NewHintMerger; the one
#                        unkeyed TopologyHint literal becomes keyed
#   numa_info.go (142226) equallyFit: two masks are equally fit when they have
#                        the same number of NUMA nodes and, when the
#                        closest-nodes comparison is in force, the same
#                        average distance (the body is not stored; this is
#                        the reading under which Narrowest and Closest
#                        cannot separate them)
#   cpumanager/policy_static.go  the score hunk taken from the stored file,
#                        with the node set the hunk reads (cpusInMaskSet)
#   memorymanager        nothing: no version of the memory manager's score is
#                        stored, so memory hints stay unscored (Score 0)
set -euo pipefail

pr="${1:?usage: reconstruct.sh 141796|142226 FILES_DIR [DEST]}"
files="${2:?usage: reconstruct.sh 141796|142226 FILES_DIR [DEST]}"
dest="${3:-/tmp/k8s-$pr}"
base_version=v1.37.2
case "$pr" in
  141796) overlay=(pkg/kubelet/cm/topologymanager/policy.go pkg/kubelet/cm/devicemanager/topology_hints.go) ;;
  142226) overlay=(pkg/kubelet/cm/topologymanager/policy.go pkg/kubelet/cm/topologymanager/policy_options.go pkg/kubelet/cm/devicemanager/topology_hints.go) ;;
  *) echo "reconstruct.sh: no recipe for pull request $pr" >&2; exit 2 ;;
esac
cpu_source="$files/pkg/kubelet/cm/cpumanager/policy_static.go"
for f in "${overlay[@]}"; do
  [[ -f "$files/$f" ]] || { echo "reconstruct.sh: missing $files/$f (see the list at the top of this script)" >&2; exit 1; }
done
[[ -f "$cpu_source" ]] || { echo "reconstruct.sh: missing $cpu_source (see the list at the top of this script)" >&2; exit 1; }
case "$dest" in
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"*) echo "reconstruct.sh: $dest is inside the repository; upstream code stays out of it" >&2; exit 2 ;;
esac

base="$(cd /tmp && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$base_version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
[[ -d "$base" ]] || { echo "reconstruct.sh: cannot get k8s.io/kubernetes@$base_version" >&2; exit 1; }
rm -rf "$dest"
cp -r "$base" "$dest"
chmod -R u+w "$dest"
for f in "${overlay[@]}"; do cp "$files/$f" "$dest/$f"; done

python3 - "$pr" "$dest" "$cpu_source" <<'PY'
import re
import sys

pr, dest, cpu_source = sys.argv[1], sys.argv[2], sys.argv[3]
tm = dest + "/pkg/kubelet/cm/topologymanager/"


def edit(path, old, new, count=1):
    with open(path) as f:
        text = f.read()
    if text.count(old) != count:
        sys.exit(f"reconstruct.sh: expected {count} of {old!r} in {path}, found {text.count(old)}")
    with open(path, "w") as f:
        f.write(text.replace(old, new))


# The score field (0 means the providers reported none).
edit(tm + "topology_manager.go", "\tPreferred bool\n}",
     "\tPreferred bool\n\t// Score is the NUMA utilization score of the hint, 1..100; 0 means unscored.\n\tScore int64\n}")

# The policies: the merger's Merge takes the logger; 142226 passes the
# resource names along with the hint lists.
for name in ("policy_best_effort.go", "policy_restricted.go", "policy_single_numa_node.go"):
    edit(tm + name, "merger.Merge()", "merger.Merge(logger)")
    if pr == "142226":
        edit(tm + name, "filteredHints := filterProvidersHints(logger, providersHints)",
             "filteredHints, resourceNames := filterProvidersHints(logger, providersHints)")
        edit(tm + name, "Hints, p.Name(), p.opts)", "Hints, resourceNames, p.Name(), p.opts)")
edit(tm + "policy_single_numa_node.go", "TopologyHint{nil, bestHint.Preferred}",
     "TopologyHint{NUMANodeAffinity: nil, Preferred: bestHint.Preferred}")

if pr == "142226":
    with open(tm + "numa_info.go", "a") as f:
        f.write(
            "\n// equallyFit reports whether the structural comparison cannot separate two\n"
            "// masks: the same width and, when closeness decides, the same average distance.\n"
            "func (n *NUMAInfo) equallyFit(m1, m2 bitmask.BitMask, preferClosest bool) bool {\n"
            "\tif m1.Count() != m2.Count() {\n\t\treturn false\n\t}\n"
            "\tif !preferClosest {\n\t\treturn true\n\t}\n"
            "\treturn n.NUMADistances.CalculateAverageFor(m1) == n.NUMADistances.CalculateAverageFor(m2)\n}\n")

# The CPU score: the hunk as the stored file has it, placed where v1.37.2
# builds its hints.
with open(cpu_source) as f:
    src = f.read()
m = re.search(r"\n((?:\t\t//[^\n]*\n)*\t\tvar score int64\n.*?\n\t\t}\n)", src, re.S)
if not m:
    sys.exit(f"reconstruct.sh: no score hunk in {cpu_source}")
hunk = m.group(1)
cpu = dest + "/pkg/kubelet/cm/cpumanager/policy_static.go"
with open(cpu) as f:
    text = f.read()
begin = text.index("func (p *staticPolicy) generateCPUTopologyHints(")
finish = text.index("\n}\n", begin)
body = text[begin:finish]
# The hunk reads the CPU set of the mask, which v1.37.2 only counts.
count = re.search(r"\t\tcpusInMask := (p\.topology\.CPUDetails\.CPUsInNUMANodes\(mask\.GetBits\(\)\.\.\.\))\.Size\(\)\n", body)
give_up = re.search(r"\t\tif numMatching < request \{\n\t\t\treturn\n\t\t\}\n", body)
literal = re.search(r"\t\t\tPreferred: +false,\n", body)
if not (count and give_up and literal):
    sys.exit("reconstruct.sh: generateCPUTopologyHints of the base is not the expected one")
body = (body[:count.start()] + "\t\tcpusInMaskSet := " + count.group(1) + "\n\t\tcpusInMask := cpusInMaskSet.Size()\n"
        + body[count.end():give_up.end()] + "\n" + hunk + body[give_up.end():literal.end()]
        + "\t\t\tScore:            score,\n" + body[literal.end():])
with open(cpu, "w") as f:
    f.write(text[:begin] + body + text[finish:])
PY
gofmt -l "$dest/pkg/kubelet/cm" | grep -v _test.go || true
echo "reconstruct.sh: $dest holds k8s.io/kubernetes $base_version with pull request $pr laid over it"
