package main

import kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

// crdProblem checks the Topology and ResourceFlavor against the rules the
// API server enforces from the release's CRDs.
func crdProblem(topology *kueue.Topology, flavor *kueue.ResourceFlavor) *answer {
	return nil
}
