//go:build kubelet_v1_35 || kubelet_v1_36

package main

import (
	"context"

	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
)

// The memory manager's GetMemory as v1.35 and v1.36 export it (see
// admit_api_v1_37.go): neither context, as in v1.34, nor logger, as from
// v1.37.

func memoryBlocks(_ context.Context, mem memorymanager.Manager, podUID, containerName string) []memstate.Block {
	return mem.GetMemory(podUID, containerName)
}
