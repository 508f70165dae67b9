//go:build kep6007

package main

import "k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"

// A KEP-6007 branch of kubernetes/kubernetes (PR 141796, and PR 142226 built
// on it) adds TopologyHint.Score (int64, 0 = unscored), which the CPU and
// device managers fill in and the merge aggregates. This file needs that API
// and is built only with -tags kep6007 against such a tree (KUBERNETES_SRC).
// What a branch adds beyond the score (the strategy and weight options of
// PR 142226) is in kep6007_pr142226.go.
// The score is there, so hello declares kubelet.hint-score (release.go leaves
// it out).
var hintScoreLeftOut []string

func setHintScore(h *topologymanager.TopologyHint, score int64) { h.Score = score }

func hintScore(h topologymanager.TopologyHint) int64 { return h.Score }
