//go:build !kubelet_pre137

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// suppliedProvider's HintProvider methods in v1.37's form.

func (p *suppliedProvider) GetTopologyHints(_ klog.Logger, _ *v1.Pod, c *v1.Container, _ lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return p.hintsFor(c)
}
func (p *suppliedProvider) GetPodTopologyHints(klog.Logger, *v1.Pod, lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return p.podHints
}
func (p *suppliedProvider) AllocatePod(_ klog.Logger, pod *v1.Pod, _ lifecycle.Operation) error {
	return p.allocateWholePod(pod)
}
func (p *suppliedProvider) Allocate(_ context.Context, pod *v1.Pod, c *v1.Container, _ lifecycle.Operation) error {
	return p.allocateContainer(pod, c)
}

// The scopes' pod-level path (PodLevelResourceManagers) exists from v1.36.
var podLevelLeftOut []string

func tmAddSuppliedProvider(ctx context.Context, tm topologymanager.Manager, p *suppliedProvider) {
	tmAddHintProvider(ctx, tm, p)
}
