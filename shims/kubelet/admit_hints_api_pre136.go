//go:build kubelet_v1_34 || kubelet_v1_35

package main

// The scopes have no pod-level path (PodLevelResourceManagers) before v1.36,
// so admit_hints cannot drive pod-level resources; the suppliedProvider
// methods these releases share with v1.36 are in admit_hints_api_pre137.go.
var podLevelLeftOut = []string{"kubelet.pod-level-resources"}
