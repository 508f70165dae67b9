//go:build kubelet_pre137

package cadvisorapi

import info "github.com/google/cadvisor/info/v1"

type (
	Node          = info.Node
	Core          = info.Core
	MachineInfo   = info.MachineInfo
	HugePagesInfo = info.HugePagesInfo
)
