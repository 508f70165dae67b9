package main

import (
	"context"
	"fmt"
	"sort"

	"google.golang.org/grpc"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
)

// inProcessPlugin is a device plugin answering the device manager in
// process: the manager receives it through PluginConnected, as after a
// registration, and its device list through PluginListAndWatchReceiver, as
// from ListAndWatch. Allocate hands back an empty response per container,
// which is all a device plugin owes the Topology Manager.
type inProcessPlugin struct{ resource string }

func (p inProcessPlugin) API() pluginapi.DevicePluginClient { return inProcessClient{} }
func (p inProcessPlugin) Resource() string                  { return p.resource }
func (p inProcessPlugin) SocketPath() string {
	return devicePluginDir + "/" + sanitize(p.resource) + ".sock"
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '/' {
			b[i] = '_'
		}
	}
	return string(b)
}

type inProcessClient struct{}

func (inProcessClient) GetDevicePluginOptions(context.Context, *pluginapi.Empty, ...grpc.CallOption) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{GetPreferredAllocationAvailable: true}, nil
}
func (inProcessClient) ListAndWatch(context.Context, *pluginapi.Empty, ...grpc.CallOption) (grpc.ServerStreamingClient[pluginapi.ListAndWatchResponse], error) {
	return nil, fmt.Errorf("the in-process plugin pushes its devices directly")
}

// GetPreferredAllocation is the plugin's say in which devices a container
// gets, among those the device manager offers (already narrowed to the
// Topology Manager's affinity where that suffices): the required ones, then
// the lowest device ids, which sort by NUMA node. Without it the device
// manager takes devices in map order, which differs from run to run.
func (inProcessClient) GetPreferredAllocation(_ context.Context, req *pluginapi.PreferredAllocationRequest, _ ...grpc.CallOption) (*pluginapi.PreferredAllocationResponse, error) {
	resp := &pluginapi.PreferredAllocationResponse{}
	for _, cr := range req.ContainerRequests {
		chosen := append([]string{}, cr.MustIncludeDeviceIDs...)
		taken := map[string]bool{}
		for _, id := range chosen {
			taken[id] = true
		}
		available := append([]string{}, cr.AvailableDeviceIDs...)
		sort.Strings(available)
		for _, id := range available {
			if len(chosen) >= int(cr.AllocationSize) {
				break
			}
			if !taken[id] {
				chosen = append(chosen, id)
				taken[id] = true
			}
		}
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerPreferredAllocationResponse{DeviceIDs: chosen})
	}
	return resp, nil
}
func (inProcessClient) Allocate(_ context.Context, req *pluginapi.AllocateRequest, _ ...grpc.CallOption) (*pluginapi.AllocateResponse, error) {
	resp := &pluginapi.AllocateResponse{}
	for range req.ContainerRequests {
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{})
	}
	return resp, nil
}
func (inProcessClient) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest, ...grpc.CallOption) (*pluginapi.PreStartContainerResponse, error) {
	return &pluginapi.PreStartContainerResponse{}, nil
}

var _ plugin.DevicePlugin = inProcessPlugin{}

// registerDevices gives every device-plugin resource of the node its devices:
// per NUMA node with that node as topology, and devicesWithoutTopology with
// none. Device ids sort by NUMA node, then by index; devices without topology
// sort after all NUMA nodes' ("x-notopo" > "numa"), so the plugin's
// lowest-id preference takes them last.
func registerDevices(ctx context.Context, dev *devicemanager.ManagerImpl, spec *nodeSpec) error {
	byResource := map[string][]*pluginapi.Device{}
	for _, ns := range spec.NUMANodes {
		names := make([]string, 0, len(ns.Devices))
		for r := range ns.Devices {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			// A resource the node lists with no devices still has a plugin:
			// the device manager knows it and refuses requests for it.
			if _, ok := byResource[r]; !ok {
				byResource[r] = []*pluginapi.Device{}
			}
			for i := 0; i < ns.Devices[r]; i++ {
				byResource[r] = append(byResource[r], &pluginapi.Device{
					ID:       fmt.Sprintf("%s-numa%04d-%04d", sanitize(r), ns.ID, i),
					Health:   pluginapi.Healthy,
					Topology: &pluginapi.TopologyInfo{Nodes: []*pluginapi.NUMANode{{ID: int64(ns.ID)}}},
				})
			}
		}
	}
	for r, cnt := range spec.DevicesWithoutTopology {
		if _, ok := byResource[r]; !ok {
			byResource[r] = []*pluginapi.Device{}
		}
		for i := 0; i < cnt; i++ {
			byResource[r] = append(byResource[r], &pluginapi.Device{
				ID:     fmt.Sprintf("%s-x-notopo-%04d", sanitize(r), i),
				Health: pluginapi.Healthy,
			})
		}
	}
	names := make([]string, 0, len(byResource))
	for r := range byResource {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		if err := connectPlugin(ctx, dev, r, inProcessPlugin{resource: r}); err != nil {
			return fmt.Errorf("%s: %w", r, err)
		}
		listAndWatch(ctx, dev, r, &pluginapi.ListAndWatchResponse{Devices: byResource[r]})
	}
	return nil
}
