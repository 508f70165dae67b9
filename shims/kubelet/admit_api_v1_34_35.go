//go:build kubelet_v1_34 || kubelet_v1_35

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// Admission as v1.34 and v1.35 export it (see admit_api_v1_37.go): the
// admit attributes carry no lifecycle operation yet.

func tmAdmit(_ context.Context, tm topologymanager.Manager, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return tm.Admit(&lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others})
}
