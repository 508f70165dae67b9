"""Release behaviours the contract does not follow, reproducible on request.

Where a Kueue release answers otherwise than the contract, and the difference is
a rule the reference can state, it is named here. The reference never applies
one by itself; a differential run turns one on to recognise that release's
answer exactly (conformance/fuzz/known.py), so the difference is counted under
its corpus case instead of hiding everything else a run could find.
"""

from __future__ import annotations

from ..release_switches import ReleaseSwitches

# v0.17.0 leaves the implicit one-pod request out of the usage a podset's
# placement leaves for the next podset of the workload (tas_flavor_snapshot.go);
# corpus case kueue.capacity.pods-slots-used-by-an-earlier-podset.
PODSET_USAGE_WITHOUT_POD_SLOTS = "v0.17.0: podset usage without pod slots"

# v0.17.0 places a leader and its workers without first moving a domain that
# can hold the leader to the front, and when a domain holding leaders does not
# finish the placement it takes what it offers off the remaining count before
# clamping, keeps its pod count, and (slices) its slice count
# (tas_flavor_snapshot.go consumeWithLeadersGeneric, updateCountsToMinimumGeneric);
# corpus case kueue.group.leader-needs-gpu.
LEADER_DESCENT_V0_17 = "v0.17.0: leader descent"

# v0.17.0 sums a parent's capacity beside the leader over all its children, also
# those that cannot hold the leader, and its BestFit choice of the tightest
# domain reads that capacity without asking whether the domain holds the leader
# at all (tas_flavor_snapshot.go fillInCountsHelper, findBestFitDomainBy); so a
# required group can be sent to a domain with no room for its leader and refused
# there; corpus case kueue.group.best-fit-domain-without-room-for-the-leader.
LEADER_CAPACITY_V0_17 = "v0.17.0: best fit without the leader's room"

# v0.17.0 names the required domain of a replacement at the lowest level (the
# hostname) by the leaf's own id, the hostname alone, but tests each node by
# whether its full label path starts with it; with more than one level no node
# does, so a required-hostname podset never gets a replacement
# (tas_flavor_snapshot.go requiredReplacementDomain, belongsToRequiredDomain);
# corpus case kueue.hotswap.required-hostname-replaced-on-the-remaining-host.
HOSTNAME_REPLACEMENT_DOMAIN_V0_17 = "v0.17.0: hostname replacement domain by leaf id"

KNOWN = frozenset({PODSET_USAGE_WITHOUT_POD_SLOTS, LEADER_DESCENT_V0_17, LEADER_CAPACITY_V0_17,
                   HOSTNAME_REPLACEMENT_DOMAIN_V0_17})

_SWITCHES = ReleaseSwitches("kueue", KNOWN)
active = _SWITCHES.active
using = _SWITCHES.using
