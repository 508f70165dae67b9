package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/workload"
)

// The upstream entry points the shim drives, with the signatures it was
// written against. A release that changes one fails to build here, with the
// name of the function in the error, instead of answering differently. The
// placement's, whose form changed after v0.17.0, is in signatures_v017.go and
// signatures_main.go.
var (
	_ func(*field.Path, *v1.ObjectMeta) field.ErrorList                           = jobframework.ValidateTASPodSetRequest
	_ func(*field.Path, *v1.ObjectMeta, *kueue.PodSet) field.ErrorList            = jobframework.ValidateSliceSizeAnnotationUpperBound
	_ func([]kueue.PodSet, map[kueue.PodSetReference]*field.Path) field.ErrorList = jobframework.ValidatePodSetGroupingTopology
	_ func(...kueue.PodSet) bool                                                  = workload.IsExplicitlyRequestingTAS
	_ func(*schdcache.TASFlavorSnapshot, *kueue.PodSetTopologyRequest) bool       = (*schdcache.TASFlavorSnapshot).HasLevel
)
