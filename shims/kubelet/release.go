//go:build !kep6007

package main

import "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"

// Released Topology Managers have no hint score: the field KEP-6007 adds to
// TopologyHint does not exist, so a fixture score is dropped on the way in and
// every merged hint reports 0; hello leaves the feature out.
var hintScoreLeftOut = []string{"kubelet.hint-score"}

func setHintScore(h *topologymanager.TopologyHint, score int64) {}

func hintScore(h topologymanager.TopologyHint) int64 { return 0 }
