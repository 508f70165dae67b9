package main

import (
	"encoding/json"
	"strings"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

type refusal struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type commonInput struct {
	KubernetesVersion string          `json:"kubernetesVersion"`
	FeatureGates      map[string]bool `json:"featureGates"`
	NUMA              *numaInput      `json:"numa"`
}

type startInput struct {
	commonInput
	KubeletConfiguration tmConfig `json:"kubeletConfiguration"`
}

// classify maps an error returned by topologymanager.NewManager (or by
// NewPolicyOptions / NewNUMAInfo, which it calls) onto the contract's reason
// codes. Upstream returns plain fmt errors, so the text is all there is to go
// by; an error matching none of them is reported as an error, not guessed.
func classify(err error) (*refusal, bool) {
	msg := err.Error()
	reason := ""
	switch {
	case strings.Contains(msg, "unknown Topology Manager Policy option"),
		strings.Contains(msg, "unsupported topologymanager option"):
		reason = "UnknownPolicyOption"
	case strings.Contains(msg, "alpha-level options not enabled"),
		strings.Contains(msg, "beta-level options not enabled"):
		reason = "PolicyOptionNotAvailable"
	case strings.Contains(msg, "bad value for option"),
		strings.Contains(msg, "unable to convert policy option"),
		strings.Contains(msg, "should not be less than"):
		reason = "InvalidPolicyOptionValue"
	case strings.Contains(msg, "cannot discover NUMA topology"),
		strings.Contains(msg, "error getting NUMA distances"):
		reason = "MissingNUMADistances"
	case strings.Contains(msg, "unsupported on machines with more than"):
		reason = "TooManyNUMANodes"
	case strings.Contains(msg, "unknown policy"):
		reason = "UnknownPolicy"
	case strings.Contains(msg, "unknown scope"):
		reason = "UnknownScope"
	default:
		return nil, false
	}
	return &refusal{Reason: reason, Message: msg}, true
}

// startedManager is a Topology Manager the kubelet would have started with.
type startedManager struct {
	manager topologymanager.Manager
	policy  string
	scope   string
	options topologymanager.PolicyOptions
	nodes   []cadvisorapi.Node
}

// startTopologyManager follows kubelet start-up for the Topology Manager:
// feature gates, configuration defaulting and validation, then
// topologymanager.NewManager with the discovered NUMA topology (which parses
// and checks the options, builds NUMAInfo, applies the NUMA count limit and
// builds the policy and scope). It returns either a manager, a refusal, or an
// answer to send as is.
func startTopologyManager(common commonInput, cfg tmConfig, nodes []cadvisorapi.Node) (*startedManager, *refusal, *answer) {
	if why, ok := checkVersion(common.KubernetesVersion); !ok {
		a := unsupported("%s", why)
		return nil, nil, &a
	}
	if r := applyGates(common.FeatureGates); r != nil {
		return nil, &refusal{Reason: r.reason, Message: r.message}, nil
	}
	kc, err := defaultedConfig(cfg)
	if err != nil {
		a := failure("cannot build a KubeletConfiguration", err)
		return nil, nil, &a
	}
	if r, err := validateTopologyConfig(kc); err != nil {
		a := failure("kubelet configuration rejected for a reason outside the case", err)
		return nil, nil, &a
	} else if r != nil {
		return nil, r, nil
	}
	logger := klog.Background()
	m, err := newTopologyManager(logger, nodes, kc.TopologyManagerPolicy, kc.TopologyManagerScope, kc.TopologyManagerPolicyOptions)
	if err != nil {
		if r, ok := classify(err); ok {
			return nil, r, nil
		}
		a := failure("topologymanager.NewManager failed in a way the contract has no reason for", err)
		return nil, nil, &a
	}
	sm := &startedManager{manager: m, policy: kc.TopologyManagerPolicy, scope: kc.TopologyManagerScope, nodes: nodes}
	if kc.TopologyManagerPolicy == topologymanager.PolicyNone {
		// NewManager skips option parsing for none; the options in force are
		// the defaults, which is what NewPolicyOptions makes of no options.
		sm.options, _ = newPolicyOptions(logger, nil)
	} else {
		// The same call NewManager just made successfully, for its result.
		sm.options, err = newPolicyOptions(logger, kc.TopologyManagerPolicyOptions)
		if err != nil {
			a := failure("NewPolicyOptions failed after NewManager accepted the options", err)
			return nil, nil, &a
		}
	}
	return sm, nil, nil
}

func optionsResult(o topologymanager.PolicyOptions) map[string]any {
	// The KEP-6007 options as the linked code holds them (kep6007_*.go).
	strategy, weights, active := kepOptions(o)
	return map[string]any{
		"preferClosestNUMA":      o.PreferClosestNUMA,
		"maxAllowableNUMANodes":  o.MaxAllowableNUMANodes,
		"numaAllocationStrategy": strategy,
		"numaScoreWeights":       weights,
		"scoringActive":          active,
	}
}

func refusedStart(r *refusal) map[string]any {
	return map[string]any{"started": false, "refused": r}
}

func runStart(raw json.RawMessage) answer {
	var in startInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("the start input does not match the contract", err)
	}
	// Without `numa` the machine has one NUMA node, id 0, reporting no
	// distances (the contract's default).
	nodes := []cadvisorapi.Node{{Id: 0}}
	if in.NUMA != nil {
		var err error
		if nodes, err = in.NUMA.cadvisorNodes(); err != nil {
			return failure("invalid numa", err)
		}
	}
	return startOn(in.commonInput, in.KubeletConfiguration, nodes)
}

// startOn answers start for the given NUMA nodes, however they were given
// (the contract's numa form or machine information).
func startOn(common commonInput, cfg tmConfig, nodes []cadvisorapi.Node) answer {
	sm, r, a := startTopologyManager(common, cfg, nodes)
	if a != nil {
		return *a
	}
	if r != nil {
		return ok(refusedStart(r))
	}
	return ok(map[string]any{
		"started": true,
		"policy":  sm.policy,
		"scope":   sm.scope,
		"options": optionsResult(sm.options),
	})
}
