//go:build kubelet_pre137

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The manager entry points admission drives, as v1.34, v1.35 and v1.36 all
// export them (see admit_api_v1_37.go): the hint providers take neither
// logger nor operation, the Topology Manager's GetAffinity, AddContainer and
// RemoveContainer no logger, the device manager's constructor and
// UpdateAllocatedDevices no logger.

func (s *affinityStore) GetAffinity(podUID, containerName string) topologymanager.TopologyHint {
	return s.affinity(klog.Background(), podUID, containerName)
}

func (o *observed) GetTopologyHints(p *v1.Pod, c *v1.Container) map[string][]topologymanager.TopologyHint {
	return o.inner.GetTopologyHints(p, c)
}
func (o *observed) GetPodTopologyHints(p *v1.Pod) map[string][]topologymanager.TopologyHint {
	return o.inner.GetPodTopologyHints(p)
}
func (o *observed) Allocate(p *v1.Pod, c *v1.Container) error {
	return o.allocate(p, c, func() error { return o.inner.Allocate(p, c) })
}

func tmAffinity(tm topologymanager.Manager, _ klog.Logger, podUID, containerName string) topologymanager.TopologyHint {
	return tm.GetAffinity(podUID, containerName)
}

func tmAddContainer(_ context.Context, tm topologymanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	tm.AddContainer(pod, c, id)
}

func tmRemoveContainer(_ context.Context, tm topologymanager.Manager, id string) error {
	return tm.RemoveContainer(id)
}

func newDeviceManager(_ context.Context, topology []cadvisorapi.Node, store topologymanager.Store) (*devicemanager.ManagerImpl, error) {
	return devicemanager.NewManagerImpl(topology, store)
}

func updateAllocatedDevices(_ context.Context, dev *devicemanager.ManagerImpl) {
	dev.UpdateAllocatedDevices()
}

// The providers' own Allocate and GetTopologyHints, called directly for the
// baseline pods and the stale-state cleanup.
func allocateFor(_ context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) error {
	return p.Allocate(pod, c)
}

func hintsFor(_ context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) {
	p.GetTopologyHints(pod, c)
}
