package main

// preferredAffinityGate is the contract's gate for ordering domains by the
// podset's preferred node affinity; the pinned release does not have it and
// looks only at the required terms.
const preferredAffinityGate = "TASRespectNodeAffinityPreferred"

// preferredAffinityUnsupported answers unsupported when the case turns the
// gate on and a podset carries preferred node affinity terms: the release
// would place those podsets as if the gate were off. With the gate off, or
// without preferred terms, the release's answer is the contract's question.
func preferredAffinityUnsupported(podSets []podSetInput) *answer {
	if !contractOnly[preferredAffinityGate] {
		return nil
	}
	for _, p := range podSets {
		ps := p.podSet()
		a := ps.Template.Spec.Affinity
		if a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			u := unsupported("Kueue %s has no %s: it does not order domains by preferred node affinity", linkedVersion(), preferredAffinityGate)
			return &u
		}
	}
	return nil
}
