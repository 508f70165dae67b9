//go:build kubelet_v1_36

package main

import v1 "k8s.io/api/core/v1"

// v1.36 adds AllocatePod to the HintProvider (still without logger or
// operation); the methods it shares with v1.34 and v1.35 are in
// admit_hints_api_pre137.go.
func (p *suppliedProvider) AllocatePod(pod *v1.Pod) error { return p.allocateWholePod(pod) }

// The scopes' pod-level path (PodLevelResourceManagers) exists from v1.36.
var podLevelLeftOut []string
