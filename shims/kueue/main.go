// Command kueue-shim speaks the conformance adapter protocol v1 on stdin and
// stdout and answers each case by driving the real Kueue packages of the
// release this module pins: the TAS cache and flavor snapshot
// (pkg/cache/scheduler), the webhooks' annotation validation and the
// annotation parsing (pkg/controller/jobframework) and the feature gates
// (pkg/features).
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
	quietLogs()
	protocol.Shim{
		Name:       "kueue-shim",
		Component:  "kueue",
		Hello:      helloMessage(),
		Operations: operations,
	}.Main()
}

var operations = map[string]protocol.Operation{
	"validate":  runValidate,
	"capacity":  runCapacity,
	"assign":    runAssign,
	"hot_swap":  runHotSwap,
	"provision": runProvision,
}
