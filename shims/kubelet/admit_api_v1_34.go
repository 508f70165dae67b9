//go:build kubelet_v1_34

package main

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/utils/cpuset"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The manager entry points admission drives where v1.34 alone exports them
// (see admit_api_v1_37.go): the device and CPU managers take no logger and
// no context, the memory manager takes a context where later releases take a
// logger. What v1.34 shares with v1.35 and v1.36 is in admit_api_pre137.go
// and admit_api_v1_34_35.go.

func tmAddHintProvider(ctx context.Context, tm topologymanager.Manager, h topologymanager.HintProvider) {
	tm.AddHintProvider(h)
}

func startDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl, activePods func() []*v1.Pod) error {
	return dev.Start(activePods, readySources{}, containermap.NewContainerMap(), sets.New[string]())
}

func stopDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl) error {
	return dev.Stop()
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
