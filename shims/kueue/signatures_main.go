//go:build kueue_main

package main

import (
	"context"

	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
)

// The placement as a later Kueue tree has it, taking a context (signatures.go
// has the others).
var _ func(*schdcache.TASFlavorSnapshot, context.Context, schdcache.FlavorTASRequests, ...schdcache.FindTopologyAssignmentsOption) schdcache.TASAssignmentsResult = (*schdcache.TASFlavorSnapshot).FindTopologyAssignmentsForFlavor
