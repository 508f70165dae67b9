package main

import (
	"encoding/json"
	"fmt"
	"strings"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/features"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
	"sigs.k8s.io/kueue/pkg/workloadslicing"

	"topoconf/shims/protocol"
)

type assignInput struct {
	// FlavorLevelCheck false skips the flavor assigner's missing-level
	// check, as upstream's placement tests drive the snapshot directly.
	FlavorLevelCheck *bool `json:"flavorLevelCheck"`
	Workload         struct {
		Name          string            `json:"name"`
		PodSets       []podSetInput     `json:"podSets"`
		Integration   *integrationInput `json:"integration"`
		Annotations   map[string]string `json:"annotations"`
		ReplacedSlice *struct {
			PodSets []struct {
				Name               string          `json:"name"`
				TopologyAssignment *assignmentJSON `json:"topologyAssignment"`
			} `json:"podSets"`
		} `json:"replacedSlice"`
	} `json:"workload"`
}

// elastic is whether the workload carries the elastic-job annotation (the
// job framework copies the Job's onto its workload).
func (in assignInput) elastic() bool {
	if in.Workload.Annotations[workloadslicing.EnabledAnnotationKey] == workloadslicing.EnabledAnnotationValue {
		return true
	}
	return in.Workload.Integration != nil &&
		in.Workload.Integration.Metadata.Annotations[workloadslicing.EnabledAnnotationKey] == workloadslicing.EnabledAnnotationValue
}

// previousAssignment is the replaced slice's assignment of the podset, as
// v0.17.0's flavor assigner hands it to TAS (getPreviousTopologyAssignment):
// only with both elastic gates on, for a workload that replaces a slice.
func (in assignInput) previousAssignment(name string) *kueue.TopologyAssignment {
	if !features.Enabled(features.ElasticJobsViaWorkloadSlicesWithTAS) || !features.Enabled(features.ElasticJobsViaWorkloadSlices) ||
		!in.elastic() || in.Workload.ReplacedSlice == nil {
		return nil
	}
	for _, ps := range in.Workload.ReplacedSlice.PodSets {
		if ps.Name == name && ps.TopologyAssignment != nil {
			internal := &utiltas.TopologyAssignment{Levels: ps.TopologyAssignment.Levels}
			for _, d := range ps.TopologyAssignment.Domains {
				internal.Domains = append(internal.Domains, utiltas.TopologyDomainAssignment{Values: d.Values, Count: d.Count})
			}
			return utiltas.V1Beta2From(internal)
		}
	}
	return nil
}

// notFitReason gives the contract's code for a failure text of the
// placement (tas_flavor_snapshot.go) or of the flavor assigner's level check.
func notFitReason(message string) (string, bool) {
	switch {
	case strings.Contains(message, "doesn't allow to fit"), strings.Contains(message, "allows to fit only"):
		return "TopologyNotFit", true
	case strings.HasPrefix(message, "no topology domains at level"):
		return "NoTopologyDomains", true
	case strings.Contains(message, "does not contain the requested level"),
		strings.HasPrefix(message, "no requested topology level"):
		return "UnknownTopologyLevel", true
	case strings.HasPrefix(message, "podset slice topology"):
		return "SliceLevelAboveRequest", true
	case strings.HasPrefix(message, "additional slice layer topology"):
		return "InvalidSliceLayerOrder", true
	case message == "topology level not specified":
		return "TopologyLevelNotSpecified", true
	}
	return "", false
}

func notFit(message string) (map[string]any, error) {
	reason, known := notFitReason(message)
	if !known {
		return nil, fmt.Errorf("the release answered %q, which has no not-fit code in the contract", message)
	}
	return map[string]any{"reason": reason, "message": message}, nil
}

func runAssign(raw json.RawMessage) answer {
	c, stop := loadCluster(raw)
	if stop != nil {
		return *stop
	}
	var in assignInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("InvalidInput", err)
	}
	built, errs, stop := podSetsAndWebhookErrors(in.Workload.PodSets, in.Workload.Integration)
	if stop != nil {
		return *stop
	}
	in.Workload.PodSets = nil
	for _, b := range built {
		in.Workload.PodSets = append(in.Workload.PodSets, b.input)
	}
	if len(errs) > 0 {
		return ok(map[string]any{"admitted": false, "rejected": errs})
	}
	if u := preferredAffinityUnsupported(in.Workload.PodSets); u != nil {
		return *u
	}
	if !features.Enabled(features.TASBalancedPlacement) {
		return place(c, in)
	}
	// Balanced placement in this release walks domains in map order and sorts
	// without a tie-break, so one input can give different assignments from
	// run to run. The placement is repeated on fresh snapshots; an input it
	// does not answer the same way every time is reported as such, never as
	// one of its answers picked at random.
	return protocol.Repeat(balancedRepeats, func() answer { return place(c, in) }, func(runs int, distinct []any) string {
		return fmt.Sprintf("not deterministic: the release gave %d different results for this input over %d runs of the balanced placement", len(distinct), runs)
	})
}

// balancedRepeats is how often a balanced placement is repeated to tell a
// deterministic answer from one that depends on map order.
const balancedRepeats = 64

// place runs the flavor assigner's level check and the TAS placement for the
// workload on a fresh snapshot.
func place(c *cluster, in assignInput) answer {
	var snap *schdcache.TASFlavorSnapshot
	protocol.Timed("snapshot", func() { snap = c.cache.Snapshot() })
	entries := make([]map[string]any, len(in.Workload.PodSets))
	var requests schdcache.FlavorTASRequests
	var order []int // indexes of the podsets sent to TAS, in order
	levelFailure := -1
	levelReason := "UnknownTopologyLevel"
	var levelMessage string
	for i, p := range in.Workload.PodSets {
		entries[i] = map[string]any{"name": p.Name, "topologyAssignment": nil, "notFit": nil}
	}
	for i, p := range in.Workload.PodSets {
		if p.Count == 0 {
			continue
		}
		tr, err := podSetRequests(p, c.flavor)
		if err != nil {
			return failure("InvalidInput", fmt.Errorf("podSets[%d]: %w", i, err))
		}
		// The flavor assigner checks the requested levels before TAS runs
		// (checkPodSetAndFlavorMatchForTAS); implied requests skip the check.
		levelCheck := in.FlavorLevelCheck == nil || *in.FlavorLevelCheck
		if levelCheck && !tr.Implied && !snap.HasLevel(tr.PodSet.TopologyRequest) && tr.PodSet.TopologyRequest != nil && hasAnyLevel(tr.PodSet.TopologyRequest) {
			levelFailure = i
			levelMessage = fmt.Sprintf("Flavor %q does not contain the requested level", c.flavor.Name)
			break
		}
		tr.PreviousAssignment = in.previousAssignment(p.Name)
		requests = append(requests, *tr)
		order = append(order, i)
	}
	// v0.17.0's flavor assigner (WorkloadsTopologyRequests) refuses required
	// and preferred podsets whenever ElasticJobsViaWorkloadSlicesWithTAS is on,
	// elastic workload or not; the workload is then not admitted.
	if levelFailure < 0 && features.Enabled(features.ElasticJobsViaWorkloadSlicesWithTAS) {
		for k, tr := range requests {
			req := tr.PodSet.TopologyRequest
			switch {
			case req != nil && req.Required != nil:
				levelFailure, levelReason, levelMessage = order[k], "ElasticTopologyNotSupported", "required topology is not supported with ElasticJobsViaWorkloadSlices"
			case req != nil && req.Preferred != nil:
				levelFailure, levelReason, levelMessage = order[k], "ElasticTopologyNotSupported", "preferred topology is not supported with ElasticJobsViaWorkloadSlices"
			default:
				continue
			}
			break
		}
	}
	// The flavor assigner places nothing when a podset fails its level check:
	// the placement runs once every podset has its flavor.
	if levelFailure >= 0 {
		for i, p := range in.Workload.PodSets {
			if i != levelFailure && p.Count > 0 {
				entries[i]["notFit"] = map[string]any{"reason": "NotEvaluated", "message": "not evaluated: an earlier pod set did not fit"}
			}
		}
		entries[levelFailure]["notFit"] = map[string]any{"reason": levelReason, "message": levelMessage}
		return ok(map[string]any{"admitted": false, "podSets": entries})
	}
	var result schdcache.TASAssignmentsResult
	protocol.Timed("placement", func() {
		result = findAssignments(snap, requests, schdcache.WithWorkload(&kueue.Workload{}))
	})
	admitted := levelFailure < 0
	stopped := false
	for _, i := range order {
		name := kueue.NewPodSetReference(in.Workload.PodSets[i].Name)
		r, found := result[name]
		switch {
		case !found || stopped:
			entries[i]["notFit"] = map[string]any{"reason": "NotEvaluated", "message": "not evaluated: an earlier pod set did not fit"}
			admitted = false
		case r.FailureReason != "":
			nf, err := notFit(r.FailureReason)
			if err != nil {
				return failure("unclassified placement failure", err)
			}
			entries[i]["notFit"] = nf
			admitted = false
		default:
			entries[i]["topologyAssignment"] = renderAssignment(r.TopologyAssignment)
		}
	}
	if levelFailure >= 0 {
		entries[levelFailure]["notFit"] = map[string]any{"reason": "UnknownTopologyLevel", "message": levelMessage}
		for i := levelFailure + 1; i < len(entries); i++ {
			if in.Workload.PodSets[i].Count > 0 {
				entries[i]["notFit"] = map[string]any{"reason": "NotEvaluated", "message": "not evaluated: an earlier pod set did not fit"}
			}
		}
	}
	return ok(map[string]any{"admitted": admitted, "podSets": entries})
}

// hasAnyLevel is true when the request names a level the check can miss;
// an explicit request without one (unconstrained "false") is left to TAS,
// which answers "topology level not specified".
func hasAnyLevel(tr *kueue.PodSetTopologyRequest) bool {
	return tr.Required != nil || tr.Preferred != nil || tr.PodSetSliceRequiredTopology != nil ||
		len(tr.PodsetSliceRequiredTopologyConstraints) > 0 || (tr.Unconstrained != nil && *tr.Unconstrained)
}
