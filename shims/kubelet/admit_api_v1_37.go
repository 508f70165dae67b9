//go:build !kubelet_pre137

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The manager entry points admission drives, in the form v1.37 exports them
// (loggers, contexts and the lifecycle operation everywhere), where it differs
// from older releases; admit.go calls only these names, so the difference
// between releases stays in the admit_api_*.go files. Each file's build
// constraint names the releases that share its form: admit_api_v1_34.go and
// admit_api_v1_36.go hold what only that release exports, admit_api_pre137.go
// what v1.34-v1.36 share, admit_api_v1_34_35.go and admit_api_v1_35_36.go
// what two of them share, and admit_api_v1_35_on.go what every release from
// v1.35 on (this one included) shares.

func (s *affinityStore) GetAffinity(logger klog.Logger, podUID, containerName string) topologymanager.TopologyHint {
	return s.affinity(logger, podUID, containerName)
}

// Name is part of the Store interface from v1.36 on.
func (s *affinityStore) Name() string { return s.tm.Name() }

func (o *observed) GetTopologyHints(l klog.Logger, p *v1.Pod, c *v1.Container, op lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return o.inner.GetTopologyHints(l, p, c, op)
}
func (o *observed) GetPodTopologyHints(l klog.Logger, p *v1.Pod, op lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return o.inner.GetPodTopologyHints(l, p, op)
}
func (o *observed) Allocate(ctx context.Context, p *v1.Pod, c *v1.Container, op lifecycle.Operation) error {
	return o.allocate(p, c, func() error { return o.inner.Allocate(ctx, p, c, op) })
}
func (o *observed) AllocatePod(l klog.Logger, p *v1.Pod, op lifecycle.Operation) error {
	return o.allocatePod(p, func() error { return o.inner.AllocatePod(l, p, op) })
}

func tmAffinity(tm topologymanager.Manager, logger klog.Logger, podUID, containerName string) topologymanager.TopologyHint {
	return tm.GetAffinity(logger, podUID, containerName)
}

func tmAdmit(ctx context.Context, tm topologymanager.Manager, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return tm.Admit(ctx, &lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others, Operation: lifecycle.AddOperation})
}

func tmAddContainer(ctx context.Context, tm topologymanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	tm.AddContainer(klog.FromContext(ctx), pod, c, id)
}

func tmRemoveContainer(ctx context.Context, tm topologymanager.Manager, id string) error {
	return tm.RemoveContainer(klog.FromContext(ctx), id)
}

func newDeviceManager(ctx context.Context, topology []cadvisorapi.Node, store topologymanager.Store) (*devicemanager.ManagerImpl, error) {
	return devicemanager.NewManagerImpl(klog.FromContext(ctx), topology, store)
}

func updateAllocatedDevices(ctx context.Context, dev *devicemanager.ManagerImpl) {
	dev.UpdateAllocatedDevices(klog.FromContext(ctx))
}

func memoryBlocks(ctx context.Context, mem memorymanager.Manager, podUID, containerName string) []memstate.Block {
	return mem.GetMemory(klog.FromContext(ctx), podUID, containerName)
}

// The providers' own Allocate and GetTopologyHints, called directly for the
// baseline pods and the stale-state cleanup.
func allocateFor(ctx context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) error {
	return p.Allocate(ctx, pod, c, lifecycle.AddOperation)
}

func hintsFor(ctx context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) {
	p.GetTopologyHints(klog.FromContext(ctx), pod, c, lifecycle.AddOperation)
}
