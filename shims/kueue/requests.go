package main

import (
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/workload"
)

// podSetRequests turns one podset into the TAS request the flavor assigner
// builds for a ClusterQueue whose only flavor is the case's TAS flavor.
func podSetRequests(p podSetInput, flavor *kueue.ResourceFlavor) (*schdcache.TASPodSetRequests, error) {
	ps := p.podSet()
	tr, err := jobframework.NewPodSetTopologyRequest(&ps.Template.ObjectMeta).Build()
	if err != nil {
		return nil, err
	}
	ps.TopologyRequest = tr
	var group *string
	if tr != nil {
		group = tr.PodSetGroupName
	}
	return &schdcache.TASPodSetRequests{
		PodSet:            &ps,
		SinglePodRequests: resources.NewRequestsFromPodSpec(&ps.Template.Spec),
		Count:             ps.Count,
		Flavor:            kueue.ResourceFlavorReference(flavor.Name),
		Implied:           !workload.IsExplicitlyRequestingTAS(ps),
		PodSetGroupName:   group,
	}, nil
}
