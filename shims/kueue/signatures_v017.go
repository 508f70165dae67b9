//go:build !kueue_main

package main

import schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"

// The placement as v0.17.0 has it (signatures.go has the others).
var _ func(*schdcache.TASFlavorSnapshot, schdcache.FlavorTASRequests, ...schdcache.FindTopologyAssignmentsOption) schdcache.TASAssignmentsResult = (*schdcache.TASFlavorSnapshot).FindTopologyAssignmentsForFlavor
