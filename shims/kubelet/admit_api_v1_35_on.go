//go:build !kubelet_v1_34

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
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/utils/cpuset"
	"topoconf/shims/kubelet/cadvisorapi"
)

// The manager entry points admission drives, as every release from v1.35 on
// exports them (see admit_api_v1_37.go): the hint provider registration, the
// device manager's start, stop and plugin calls, and the CPU and memory
// managers take a logger or a context.

func tmAddHintProvider(ctx context.Context, tm topologymanager.Manager, h topologymanager.HintProvider) {
	tm.AddHintProvider(klog.FromContext(ctx), h)
}

func startDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl, activePods func() []*v1.Pod) error {
	return dev.Start(klog.FromContext(ctx), activePods, readySources{}, containermap.NewContainerMap(), sets.New[string]())
}

func stopDeviceManager(ctx context.Context, dev *devicemanager.ManagerImpl) error {
	return dev.Stop(klog.FromContext(ctx))
}

func connectPlugin(ctx context.Context, dev *devicemanager.ManagerImpl, resource string, p plugin.DevicePlugin) error {
	return dev.PluginConnected(ctx, resource, p)
}

func listAndWatch(ctx context.Context, dev *devicemanager.ManagerImpl, resource string, resp *pluginapi.ListAndWatchResponse) {
	dev.PluginListAndWatchReceiver(klog.FromContext(ctx), resource, resp)
}

func newCPUManager(ctx context.Context, policy string, options map[string]string, machine *cadvisorapi.MachineInfo, reserved cpuset.CPUSet,
	reservation v1.ResourceList, dir string, store topologymanager.Store) (cpumanager.Manager, error) {
	return cpumanager.NewManager(klog.FromContext(ctx), policy, options, time.Hour, machine, reserved, reservation, dir, store)
}

func startCPUManager(ctx context.Context, cpu cpumanager.Manager, activePods func() []*v1.Pod) error {
	return cpu.Start(ctx, activePods, readySources{}, stubStatus{}, stubRuntime{}, containermap.NewContainerMap())
}

func cpuAddContainer(ctx context.Context, cpu cpumanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	cpu.AddContainer(klog.FromContext(ctx), pod, c, id)
}

func cpuRemoveContainer(ctx context.Context, cpu cpumanager.Manager, id string) error {
	return cpu.RemoveContainer(klog.FromContext(ctx), id)
}

func newMemoryManager(ctx context.Context, policy string, machine *cadvisorapi.MachineInfo, reservation v1.ResourceList,
	reserved []kubeletconfig.MemoryReservation, dir string, store topologymanager.Store) (memorymanager.Manager, error) {
	return memorymanager.NewManager(klog.FromContext(ctx), policy, machine, reservation, reserved, dir, store)
}

func memAddContainer(ctx context.Context, mem memorymanager.Manager, pod *v1.Pod, c *v1.Container, id string) {
	mem.AddContainer(klog.FromContext(ctx), pod, c, id)
}

func memRemoveContainer(ctx context.Context, mem memorymanager.Manager, id string) error {
	return mem.RemoveContainer(klog.FromContext(ctx), id)
}
