//go:build kubelet_pre137

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// suppliedProvider's HintProvider methods in the form v1.34 to v1.36 share
// (no logger, no operation); AllocatePod, which only v1.36 has, is in
// admit_hints_api_v1_36.go.

func (p *suppliedProvider) GetTopologyHints(_ *v1.Pod, c *v1.Container) map[string][]topologymanager.TopologyHint {
	return p.hintsFor(c)
}
func (p *suppliedProvider) GetPodTopologyHints(*v1.Pod) map[string][]topologymanager.TopologyHint {
	return p.podHints
}
func (p *suppliedProvider) Allocate(pod *v1.Pod, c *v1.Container) error {
	return p.allocateContainer(pod, c)
}

func tmAddSuppliedProvider(ctx context.Context, tm topologymanager.Manager, p *suppliedProvider) {
	tmAddHintProvider(ctx, tm, p)
}
