//go:build kubelet_v1_36

package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// The manager entry points admission drives where v1.36 alone exports them
// (see admit_api_v1_37.go): the pod-scope AllocatePod and the admission
// operation exist, but take no logger and Admit no context. What v1.36
// shares with other releases is in admit_api_pre137.go,
// admit_api_v1_35_36.go and admit_api_v1_35_on.go.

// Name is part of the Store interface from v1.36 on.
func (s *affinityStore) Name() string { return s.tm.Name() }

func (o *observed) AllocatePod(p *v1.Pod) error {
	return o.allocatePod(p, func() error { return o.inner.AllocatePod(p) })
}

func tmAdmit(_ context.Context, tm topologymanager.Manager, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return tm.Admit(&lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others, Operation: lifecycle.AddOperation})
}
