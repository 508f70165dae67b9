//go:build kubelet_v1_34 || kubelet_v1_35

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// suppliedProvider's HintProvider methods in v1.34's and v1.35's form (no
// logger, no operation, no AllocatePod).

func (p *suppliedProvider) GetTopologyHints(_ *v1.Pod, c *v1.Container) map[string][]topologymanager.TopologyHint {
	return p.hintsFor(c)
}
func (p *suppliedProvider) GetPodTopologyHints(*v1.Pod) map[string][]topologymanager.TopologyHint {
	return p.podHints
}
func (p *suppliedProvider) Allocate(pod *v1.Pod, c *v1.Container) error {
	return p.allocateContainer(pod, c)
}

// The scopes have no pod-level path (PodLevelResourceManagers) before v1.36.
var podLevelLeftOut = []string{"kubelet.pod-level-resources"}

func tmAddSuppliedProvider(ctx context.Context, tm topologymanager.Manager, p *suppliedProvider) {
	tmAddHintProvider(ctx, tm, p)
}
