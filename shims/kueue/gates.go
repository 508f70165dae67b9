package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	_ "sigs.k8s.io/kueue/pkg/features" // registers Kueue's gates on the default gate
)

// contractGate is one row of the gate table in docs/operations/kueue.md: the
// Kueue version a gate appears in and its default per version. The table is
// how a case's `kueueVersion` is read; the gates themselves are the pinned
// release's.
type contractGate struct {
	since      int
	defaultFor func(minor int) bool
}

var contractGates = map[string]contractGate{
	"TopologyAwareScheduling":                  {9, func(m int) bool { return m >= 14 }},
	"TASProfileMixed":                          {10, func(m int) bool { return m >= 15 }},
	"TASBalancedPlacement":                     {15, func(int) bool { return false }},
	"TASMultiLayerTopology":                    {17, func(m int) bool { return m >= 19 }},
	"TASFailedNodeReplacement":                 {12, func(m int) bool { return m >= 14 }},
	"TASFailedNodeReplacementFailFast":         {13, func(m int) bool { return m >= 14 }},
	"TASReplaceNodeOnPodTermination":           {13, func(m int) bool { return m >= 14 }},
	"TASReplaceNodeDueToNotReadyOverFixedTime": {17, func(m int) bool { return m < 19 }},
	"TASReplaceNodeOnNodeTaints":               {17, func(int) bool { return true }},
	"SkipReassignmentForPodOwnedWorkloads":     {19, func(int) bool { return true }},
	"TASRespectNodeAffinityPreferred":          {18, func(int) bool { return false }},
	"ElasticJobsViaWorkloadSlices":             {13, func(m int) bool { return m >= 18 }},
	"ElasticJobsViaWorkloadSlicesWithTAS":      {17, func(int) bool { return false }},
}

// The contract's gates the pinned release does not have. v0.17.0 always
// fails a node 30 s after it turns NotReady (pkg/controller/tas
// node_controller.go Reconcile, NodeFailureDelay), as the fixed-time gate on,
// and treats a pod-owned workload like any other, as the pod-owned skip off.
const (
	fixedTimeGate    = "TASReplaceNodeDueToNotReadyOverFixedTime"
	podOwnedSkipGate = "SkipReassignmentForPodOwnedWorkloads"
)

// contractOnly holds, for the case being run, the value the contract gives
// each gate the release does not have (named in featureGates, or the
// version's default).
var contractOnly = map[string]bool{}

type gateInput struct {
	KueueVersion *string         `json:"kueueVersion"`
	FeatureGates map[string]bool `json:"featureGates"`
}

type invalidInput struct{ field, message string }

func (e *invalidInput) Error() string { return e.field + ": " + e.message }

// gateOutcome is what configuring the gates for a case came to: nil for
// configured, otherwise a refusal (UnknownFeatureGate), an unsupported answer
// or an input error.
type gateOutcome struct {
	refusal     map[string]any
	unsupported string
	invalid     *invalidInput
}

func (g *gateOutcome) answer() answer {
	switch {
	case g.invalid != nil:
		return failure("InvalidInput", g.invalid)
	case g.unsupported != "":
		return unsupported("%s", g.unsupported)
	default:
		return ok(g.refusal)
	}
}

func parseMinor(v *string) (int, *invalidInput) {
	if v == nil {
		return 19, nil
	}
	// The contract's form (schemas/operations/kueue/defs.json kueueVersion):
	// "0.N", with an optional leading "v" and an optional patch number.
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(*v), "v"), ".")
	if len(parts) == 3 {
		if _, err := strconv.Atoi(parts[2]); err != nil {
			return 0, &invalidInput{"kueueVersion", fmt.Sprintf("%q is not of the form 0.N or 0.N.P", *v)}
		}
		parts = parts[:2]
	}
	if len(parts) != 2 || parts[0] != "0" {
		return 0, &invalidInput{"kueueVersion", fmt.Sprintf("%q is not of the form 0.N or 0.N.P", *v)}
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 9 || m > 20 {
		return 0, &invalidInput{"kueueVersion", fmt.Sprintf("%q is not a version from 0.9 to 0.20", *v)}
	}
	return m, nil
}

// configureGates sets every TAS gate the pinned release has: named gates as
// given, the others to the case version's default.
func configureGates(in gateInput) *gateOutcome {
	minor, bad := parseMinor(in.KueueVersion)
	if bad != nil {
		return &gateOutcome{invalid: bad}
	}
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	contractOnly = map[string]bool{}
	values := map[string]bool{}
	names := make([]string, 0, len(in.FeatureGates))
	for name := range in.FeatureGates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cg, inContract := contractGates[name]
		if _, inRelease := known[featuregate.Feature(name)]; inRelease {
			if inContract && minor < cg.since {
				return refusedGate(name, fmt.Sprintf("Kueue 0.%d has no feature gate %s", minor, name))
			}
			values[name] = in.FeatureGates[name]
			continue
		}
		if inContract && minor >= cg.since {
			// Recorded; the operations it matters to (hot_swap) decide
			// whether the release can answer with that value.
			contractOnly[name] = in.FeatureGates[name]
			continue
		}
		return refusedGate(name, fmt.Sprintf("unrecognized feature gate: %s", name))
	}
	for name, cg := range contractGates {
		if _, named := values[name]; named {
			continue
		}
		if _, inRelease := known[featuregate.Feature(name)]; !inRelease {
			if _, named := contractOnly[name]; !named {
				contractOnly[name] = minor >= cg.since && cg.defaultFor(minor)
				if name == fixedTimeGate && minor < cg.since {
					contractOnly[name] = true // built in before the gate existed
				}
			}
			continue
		}
		values[name] = minor >= cg.since && cg.defaultFor(minor)
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(values); err != nil {
		return refusedGate("", err.Error())
	}
	return nil
}

func refusedGate(name, message string) *gateOutcome {
	return &gateOutcome{refusal: refused("UnknownFeatureGate", message)}
}

func refused(reason, message string) map[string]any {
	return map[string]any{"refused": map[string]any{"reason": reason, "message": message}}
}
