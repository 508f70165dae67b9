//go:build kubelet_v1_34 || kubelet_v1_35

package main

// The scopes, the CPU manager and the memory manager have no pod-level path
// (PodLevelResourceManagers) before v1.36, so neither admit_hints nor admit
// can drive pod-level resources; the suppliedProvider methods these releases
// share with v1.36 are in admit_hints_api_pre137.go.
var podLevelLeftOut = []string{"kubelet.pod-level-resources", "kubelet.pod-level-resources.managers"}
