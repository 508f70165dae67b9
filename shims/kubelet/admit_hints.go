package main

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// admit_hints: the Topology Manager's own scopes, started as the kubelet
// starts them, over hint providers whose hints and allocation failures the
// case states (docs/operations/kubelet.md, admit_hints). Nothing but the
// providers is supplied: NewManager builds policy and scope, Manager.Admit
// runs the scope, and what each container is given is read from the
// manager's store when a provider allocates it, as a real provider reads it.

// Registered here rather than in main.go, so the operation stays in one file.
// Every release the shim builds has it.
func init() { operations["admit_hints"] = runAdmitHints }

type suppliedContainer struct {
	Name string `json:"name"`
}

type suppliedPod struct {
	Name           string              `json:"name"`
	Resources      *resourceSpec       `json:"resources"`
	InitContainers []suppliedContainer `json:"initContainers"`
	Containers     []suppliedContainer `json:"containers"`
}

type suppliedProviderInput struct {
	ContainerHints   map[string]json.RawMessage `json:"containerHints"`
	PodHints         json.RawMessage            `json:"podHints"`
	AllocateErrors   map[string]string          `json:"allocateErrors"`
	AllocatePodError string                     `json:"allocatePodError"`
}

type admitHintsInput struct {
	commonInput
	KubeletConfiguration tmConfig                `json:"kubeletConfiguration"`
	Pod                  suppliedPod             `json:"pod"`
	Providers            []suppliedProviderInput `json:"providers"`
}

// givenAffinity is one container as the first provider saw it at Allocate.
type givenAffinity struct {
	name string
	hint topologymanager.TopologyHint
}

// suppliedProvider answers the scope with the case's hints. Its methods with
// the release's signatures are in admit_hints_api_*.go.
type suppliedProvider struct {
	containerHints map[string]map[string][]topologymanager.TopologyHint
	podHints       map[string][]topologymanager.TopologyHint
	errors         map[string]string
	podError       string
	// the Topology Manager the affinity is read from, and where to record it
	// (only the first provider records)
	tm     topologymanager.Manager
	logger klog.Logger
	given  *[]givenAffinity
}

func (p *suppliedProvider) hintsFor(c *v1.Container) map[string][]topologymanager.TopologyHint {
	return p.containerHints[c.Name]
}

func (p *suppliedProvider) allocateContainer(pod *v1.Pod, c *v1.Container) error {
	if p.given != nil {
		*p.given = append(*p.given, givenAffinity{c.Name, tmAffinity(p.tm, p.logger, string(pod.UID), c.Name)})
	}
	if msg, failing := p.errors[c.Name]; failing {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// allocateWholePod is AllocatePod: every container of the pod at once.
func (p *suppliedProvider) allocateWholePod(pod *v1.Pod) error {
	if p.given != nil {
		for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			*p.given = append(*p.given, givenAffinity{c.Name, tmAffinity(p.tm, p.logger, string(pod.UID), c.Name)})
		}
	}
	if p.podError != "" {
		return fmt.Errorf("%s", p.podError)
	}
	return nil
}

func runAdmitHints(raw json.RawMessage) answer {
	var in admitHintsInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failure("the admit_hints input does not match the contract", err)
	}
	if in.NUMA == nil {
		return failure("admit_hints needs numa", nil)
	}
	if len(in.Providers) == 0 {
		return failure("admit_hints needs at least one provider", nil)
	}
	nodes, err := in.NUMA.cadvisorNodes()
	if err != nil {
		return failure("invalid numa", err)
	}
	providers := make([]*suppliedProvider, 0, len(in.Providers))
	for i, p := range in.Providers {
		sp := &suppliedProvider{containerHints: map[string]map[string][]topologymanager.TopologyHint{}, errors: p.AllocateErrors, podError: p.AllocatePodError}
		for name, hints := range p.ContainerHints {
			if sp.containerHints[name], err = providerHints(hints); err != nil {
				return failure(fmt.Sprintf("provider %d, container %s", i, name), err)
			}
		}
		if sp.podHints, err = providerHints(p.PodHints); err != nil {
			return failure(fmt.Sprintf("provider %d, pod hints", i), err)
		}
		providers = append(providers, sp)
	}

	sm, r, a := startTopologyManager(in.commonInput, in.KubeletConfiguration, nodes)
	if a != nil {
		return *a
	}
	if r != nil {
		return ok(refusedStart(r))
	}
	logger := klog.Background()
	ctx := klog.NewContext(context.Background(), logger)
	given := []givenAffinity{}
	for i, sp := range providers {
		sp.tm, sp.logger = sm.manager, logger
		if i == 0 {
			sp.given = &given
		}
		tmAddSuppliedProvider(ctx, sm.manager, sp)
	}

	pod := &v1.Pod{}
	pod.Name = in.Pod.Name
	pod.Namespace = "default"
	pod.UID = types.UID("uid-" + in.Pod.Name)
	if r := in.Pod.Resources; r != nil {
		req, err := resourceList(r.Requests)
		if err != nil {
			return failure("pod resources requests", err)
		}
		lim, err := resourceList(r.Limits)
		if err != nil {
			return failure("pod resources limits", err)
		}
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: req, Limits: lim}
	}
	for _, c := range in.Pod.InitContainers {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: c.Name})
	}
	for _, c := range in.Pod.Containers {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: c.Name})
	}
	res := tmAdmit(ctx, sm.manager, pod, nil)
	out := map[string]any{"started": true, "admitted": res.Admit, "reason": nil, "message": nil}
	if !res.Admit {
		out["reason"] = res.Reason
		out["message"] = res.Message
	}
	containers := []any{}
	for _, g := range given {
		containers = append(containers, map[string]any{
			"name":      g.name,
			"affinity":  maskToJSON(g.hint.NUMANodeAffinity),
			"preferred": g.hint.Preferred,
		})
	}
	out["containers"] = containers
	return ok(out)
}
