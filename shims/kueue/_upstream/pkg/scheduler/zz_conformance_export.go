package scheduler

// Conformance shim overlay (not part of Kueue): one scheduling cycle run
// synchronously, and the nomination's verdict for one workload. Laid over the
// release's copy by shims/kueue/build.sh, and over a local Kueue tree's copy
// by shims/kueue/build-local.sh; what nominate takes, which differs between
// the two, is in zz_conformance_heads.go.

import (
	"context"

	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/workload"
)

type inline struct{}

func (inline) Run(f func()) { f() }

// ConformanceSchedule runs one scheduling cycle; the admission patch runs
// before it returns. The caller makes sure a head is ready (Heads blocks).
func (s *Scheduler) ConformanceSchedule(ctx context.Context) {
	s.admissionRoutineWrapper = inline{}
	s.schedule(ctx)
}

// ConformanceNominate gives the flavor assignment's mode and message for the
// workload over a fresh snapshot of the cache, as nominate computes them.
func (s *Scheduler) ConformanceNominate(ctx context.Context, w workload.Info) (mode string, message string, err error) {
	snap, err := s.cache.Snapshot(ctx)
	if err != nil {
		return "", "", err
	}
	return conformanceVerdict(s.nominate(ctx, conformanceHeads(w), snap))
}

func conformanceVerdict(entries, inadmissible []entry) (string, string, error) {
	for _, e := range entries {
		return e.assignment.RepresentativeMode().String(), e.inadmissibleMsg, nil
	}
	for _, e := range inadmissible {
		return "Inadmissible", e.inadmissibleMsg, nil
	}
	return "Skipped", "", nil
}

var _ = schdcache.New
