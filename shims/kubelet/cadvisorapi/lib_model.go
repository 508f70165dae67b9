//go:build !kubelet_pre137

// Package cadvisorapi names the cadvisor machine types the linked kubelet
// release takes. v1.37 moved them to github.com/google/cadvisor/lib/model;
// earlier releases take github.com/google/cadvisor/info/v1. The shim's
// other files import this package so that one source tree builds against
// either.
package cadvisorapi

import model "github.com/google/cadvisor/lib/model"

type (
	Node          = model.Node
	Core          = model.Core
	MachineInfo   = model.MachineInfo
	HugePagesInfo = model.HugePagesInfo
)
