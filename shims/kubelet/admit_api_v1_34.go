//go:build kubelet_v1_34

package main

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/utils/cpuset"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The manager entry points admission drives, as v1.34 exports them
// (see admit_api_v1_37.go).
//
// v1.34: the device and CPU managers take no logger and no context, the memory
// manager takes a context where later releases take a logger.

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

func tmAdmit(_ context.Context, tm topologymanager.Manager, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return tm.Admit(&lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others})
}

func tmAddHintProvider(ctx context.Context, tm topologymanager.Manager, h topologymanager.HintProvider) {
	tm.AddHintProvider(h)
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

func startDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl, activePods func() []*v1.Pod) error {
	return dev.Start(activePods, readySources{}, containermap.NewContainerMap(), sets.New[string]())
}

func stopDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl) error {
	return dev.Stop()
}

func updateAllocatedDevices(_ context.Context, dev *devicemanager.ManagerImpl) {
	dev.UpdateAllocatedDevices()
}

func connectPlugin(ctx context.Context, dev *devicemanager.ManagerImpl, resource string, p plugin.DevicePlugin) error {
	return dev.PluginConnected(resource, p)
}

func listAndWatch(ctx context.Context, dev *devicemanager.ManagerImpl, resource string, resp *pluginapi.ListAndWatchResponse) {
	dev.PluginListAndWatchReceiver(resource, resp)
}

func newCPUManager(ctx context.Context, policy string, options map[string]string, machine *cadvisorapi.MachineInfo, reserved cpuset.CPUSet,
	reservation v1.ResourceList, dir string, store topologymanager.Store) (cpumanager.Manager, error) {
	return cpumanager.NewManager(policy, options, time.Hour, machine, reserved, reservation, dir, store)
}

func startCPUManager(ctx context.Context, cpu cpumanager.Manager, activePods func() []*v1.Pod) error {
	return cpu.Start(activePods, readySources{}, stubStatus{}, stubRuntime{}, containermap.NewContainerMap())
}

func cpuAddContainer(ctx context.Context, cpu cpumanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	cpu.AddContainer(pod, c, id)
}

func cpuRemoveContainer(ctx context.Context, cpu cpumanager.Manager, id string) error {
	return cpu.RemoveContainer(id)
}

func newMemoryManager(ctx context.Context, policy string, machine *cadvisorapi.MachineInfo, reservation v1.ResourceList,
	reserved []kubeletconfig.MemoryReservation, dir string, store topologymanager.Store) (memorymanager.Manager, error) {
	return memorymanager.NewManager(ctx, policy, machine, reservation, reserved, dir, store)
}

func memAddContainer(ctx context.Context, mem memorymanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	mem.AddContainer(ctx, pod, c, id)
}

func memRemoveContainer(ctx context.Context, mem memorymanager.Manager, id string) error {
	return mem.RemoveContainer(ctx, id)
}

func memoryBlocks(ctx context.Context, mem memorymanager.Manager, podUID, containerName string) []memstate.Block {
	return mem.GetMemory(ctx, podUID, containerName)
}

// The providers' own Allocate and GetTopologyHints, called directly for the
// baseline pods and the stale-state cleanup.
func allocateFor(_ context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) error {
	return p.Allocate(pod, c)
}

func hintsFor(_ context.Context, p topologymanager.HintProvider, pod *v1.Pod, c *v1.Container) {
	p.GetTopologyHints(pod, c)
}
