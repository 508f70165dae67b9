//go:build kubelet_pre137

package main

import "encoding/json"

// Admission drives the CPU, memory and device managers through entry points
// whose signatures changed in every release before v1.37 (loggers, contexts,
// the lifecycle operation, AllocatePod). Until admit.go is ported to them, a
// build for an older release answers start and merge with that release's
// code and says so for admit, rather than answering with anything else.
func runAdmit(json.RawMessage) answer {
	return unsupported("admit drives the v1.37 manager API; this build links %s, whose managers it does not drive yet", linkedVersion())
}
