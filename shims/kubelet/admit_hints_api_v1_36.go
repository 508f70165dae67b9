//go:build kubelet_v1_36

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// suppliedProvider's HintProvider methods in v1.36's form (no logger or
// operation; AllocatePod exists).

func (p *suppliedProvider) GetTopologyHints(_ *v1.Pod, c *v1.Container) map[string][]topologymanager.TopologyHint {
	return p.hintsFor(c)
}
func (p *suppliedProvider) GetPodTopologyHints(*v1.Pod) map[string][]topologymanager.TopologyHint {
	return p.podHints
}
func (p *suppliedProvider) AllocatePod(pod *v1.Pod) error { return p.allocateWholePod(pod) }
func (p *suppliedProvider) Allocate(pod *v1.Pod, c *v1.Container) error {
	return p.allocateContainer(pod, c)
}

// The scopes' pod-level path (PodLevelResourceManagers) exists from v1.36.
var podLevelLeftOut []string

func tmAddSuppliedProvider(ctx context.Context, tm topologymanager.Manager, p *suppliedProvider) {
	tmAddHintProvider(ctx, tm, p)
}
