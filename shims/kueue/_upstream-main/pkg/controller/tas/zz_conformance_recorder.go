package tas

// Conformance shim overlay (not part of Kueue): a later Kueue tree's node
// reconciler records events through k8s.io/client-go/tools/events. Laid over
// _upstream/'s file of the same name by shims/kueue/build-local.sh.

import "k8s.io/client-go/tools/events"

type conformanceRecorder = events.EventRecorder
