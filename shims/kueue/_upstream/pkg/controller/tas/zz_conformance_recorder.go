package tas

// Conformance shim overlay (not part of Kueue): the event recorder the
// release's node reconciler takes. A later tree's form is in
// _upstream-main/, laid over this file by shims/kueue/build-local.sh.

import "k8s.io/client-go/tools/record"

type conformanceRecorder = record.EventRecorder
