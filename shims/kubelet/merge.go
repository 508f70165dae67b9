package main

import (
	"encoding/json"
	"fmt"

	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
	"topoconf/shims/protocol"
)

type mergeInput struct {
	commonInput
	Policy    string            `json:"policy"`
	Options   map[string]string `json:"options"`
	Providers []json.RawMessage `json:"providers"`
}

type hintInput struct {
	Affinity  json.RawMessage `json:"affinity"`
	Preferred bool            `json:"preferred"`
	Score     int64           `json:"score"`
}

// providerHints turns one fixture provider into the map a HintProvider
// returns, keeping the distinctions the merge depends on: a null provider is
// a nil map, {} an empty one, a null resource list a nil slice, [] an empty
// non-nil slice.
func providerHints(raw json.RawMessage) (map[string][]topologymanager.TopologyHint, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var resources map[string]json.RawMessage
	if err := json.Unmarshal(raw, &resources); err != nil {
		return nil, fmt.Errorf("a provider must be null or a map of resource to hints: %w", err)
	}
	out := make(map[string][]topologymanager.TopologyHint, len(resources))
	for name, list := range resources {
		if string(list) == "null" {
			out[name] = nil
			continue
		}
		var hints []hintInput
		if err := json.Unmarshal(list, &hints); err != nil {
			return nil, fmt.Errorf("hints for %q must be null or a list: %w", name, err)
		}
		converted := make([]topologymanager.TopologyHint, 0, len(hints))
		for i, h := range hints {
			mask, err := maskFromJSON(h.Affinity)
			if err != nil {
				return nil, fmt.Errorf("hint %d of %q: %w", i, name, err)
			}
			th := topologymanager.TopologyHint{NUMANodeAffinity: mask, Preferred: h.Preferred}
			setHintScore(&th, h.Score)
			converted = append(converted, th)
		}
		out[name] = converted
	}
	return out, nil
}

// buildPolicy constructs the policy through the exported constructors, the
// way NewManager does after its checks passed.
func buildPolicy(name string, numaInfo *topologymanager.NUMAInfo, opts topologymanager.PolicyOptions) (topologymanager.Policy, error) {
	switch name {
	case topologymanager.PolicyNone:
		return topologymanager.NewNonePolicy(), nil
	case topologymanager.PolicyBestEffort:
		return topologymanager.NewBestEffortPolicy(numaInfo, opts), nil
	case topologymanager.PolicyRestricted:
		return topologymanager.NewRestrictedPolicy(numaInfo, opts), nil
	case topologymanager.PolicySingleNumaNode:
		return topologymanager.NewSingleNumaNodePolicy(numaInfo, opts), nil
	}
	return nil, fmt.Errorf("unknown policy: %q", name)
}

func runMerge(raw json.RawMessage) answer {
	var in mergeInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("the merge input does not match the contract", err)
	}
	if why, ok := checkVersion(in.KubernetesVersion); !ok {
		return unsupported("%s", why)
	}
	if r := applyGates(in.FeatureGates); r != nil {
		return ok(map[string]any{"refused": refusal{Reason: r.reason, Message: r.message}})
	}
	var nodes []cadvisorapi.Node
	if in.NUMA != nil {
		var err error
		if nodes, err = in.NUMA.cadvisorNodes(); err != nil {
			return failure("invalid numa", err)
		}
	}
	providers := make([]map[string][]topologymanager.TopologyHint, 0, len(in.Providers))
	for i, p := range in.Providers {
		hints, err := providerHints(p)
		if err != nil {
			return failure(fmt.Sprintf("provider %d", i), err)
		}
		providers = append(providers, hints)
	}

	logger := klog.Background()
	// Start-up's checks first, by the code that makes them: option parsing,
	// NUMA discovery (distances for prefer-closest), the NUMA count limit and
	// the policy name. The scope is irrelevant to a merge. The merge does not
	// check an option's maturity against the gates (docs/operations/kubelet.md,
	// merge): an option refused only for that is parsed with the maturity
	// gates on, and the merge then runs under the case's own gates, which is
	// what the linked code's merger consults.
	if _, err := newTopologyManager(logger, nodes, in.Policy, kubeletconfig.ContainerTopologyManagerScope, in.Options); err != nil {
		r, known := classify(err)
		if !known {
			return failure("topologymanager.NewManager failed in a way the contract has no reason for", err)
		}
		if r.Reason != "PolicyOptionNotAvailable" {
			return ok(map[string]any{"refused": r})
		}
		return mergeIgnoringMaturity(in, nodes, providers, logger)
	}
	return mergeWith(in, nodes, providers, logger)
}

// mergeIgnoringMaturity parses the options with every option gate on, then
// restores the case's gates for the merge itself.
func mergeIgnoringMaturity(in mergeInput, nodes []cadvisorapi.Node, providers []map[string][]topologymanager.TopologyHint, logger klog.Logger) answer {
	lenient := map[string]bool{}
	for k, v := range in.FeatureGates {
		lenient[k] = v
	}
	for _, gate := range []string{"TopologyManagerPolicyOptions", "TopologyManagerPolicyBetaOptions", "TopologyManagerPolicyAlphaOptions"} {
		lenient[gate] = true
	}
	if r := applyGates(lenient); r != nil {
		return failure("cannot turn the option gates on to parse the options", fmt.Errorf("%s", r.message))
	}
	if _, err := newTopologyManager(logger, nodes, in.Policy, kubeletconfig.ContainerTopologyManagerScope, in.Options); err != nil {
		if r, known := classify(err); known {
			return ok(map[string]any{"refused": r})
		}
		return failure("topologymanager.NewManager failed in a way the contract has no reason for", err)
	}
	return mergeWith(in, nodes, providers, logger)
}

// mergeWith builds the policy and merges; the case's gates are installed
// again first, since the options may have been parsed under others.
func mergeWith(in mergeInput, nodes []cadvisorapi.Node, providers []map[string][]topologymanager.TopologyHint, logger klog.Logger) answer {
	opts, optsErr := newPolicyOptions(logger, in.Options)
	if r := applyGates(in.FeatureGates); r != nil {
		return ok(map[string]any{"refused": refusal{Reason: r.reason, Message: r.message}})
	}
	var policy topologymanager.Policy
	var numaInfo *topologymanager.NUMAInfo
	if in.Policy == topologymanager.PolicyNone {
		policy = topologymanager.NewNonePolicy()
		opts = topologymanager.PolicyOptions{}
	} else {
		var err error
		if optsErr != nil {
			return failure("NewPolicyOptions failed after NewManager accepted the options", optsErr)
		}
		numaInfo, err = topologymanager.NewNUMAInfo(nodes, opts)
		if err != nil {
			return failure("NewNUMAInfo failed after NewManager accepted the topology", err)
		}
		if policy, err = buildPolicy(in.Policy, numaInfo, opts); err != nil {
			return failure("cannot build the policy", err)
		}
	}
	var hint topologymanager.TopologyHint
	var admit, decided bool
	var err error
	protocol.Timed("merge", func() {
		hint, admit = mergeHints(policy, logger, providers)
		decided, err = scoreDecided(in.Policy, numaInfo, opts, logger, providers, hint)
	})
	if err != nil {
		return failure("cannot merge again with strategy none", err)
	}
	return ok(map[string]any{
		"affinity":     maskToJSON(hint.NUMANodeAffinity),
		"preferred":    hint.Preferred,
		"score":        hintScore(hint),
		"admit":        admit,
		"scoreDecided": decided,
	})
}
