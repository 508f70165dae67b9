// Command koordinator-shim speaks the conformance adapter protocol v1 on
// stdin and stdout and answers each case by driving the real Koordinator
// scheduler packages of the release this module pins: the scheduler-side
// Topology Manager (pkg/scheduler/frameworkext/topologymanager).
package main

import (
	"topoconf/shims/protocol"
)

// The operation files answer in protocol.Answer itself.
type answer = protocol.Answer

var (
	ok          = protocol.Result
	unsupported = protocol.Unsupported
	failure     = protocol.Failure
)

func main() {
	protocol.Shim{
		Name:       "koordinator-shim",
		Component:  "koordinator",
		Hello:      helloMessage(),
		Operations: operations,
	}.Main()
}

var operations = map[string]protocol.Operation{
	"merge":    runMerge,
	"resolve":  runResolve,
	"cpuset":   runCPUSet,
	"filter":   runFilter,
	"score":    runScore,
	"allocate": runAllocate,
}
