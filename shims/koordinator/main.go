// Command koordinator-shim speaks the conformance adapter protocol v1 on
// stdin and stdout and answers each case by driving the real Koordinator
// scheduler packages of the release this module pins: the scheduler-side
// Topology Manager (pkg/scheduler/frameworkext/topologymanager).
package main

import (
	"encoding/json"
	"fmt"

	"topoconf/shims/protocol"
)

// answer is one of result, unsupported or error for a run request, in the
// form the operation files build; protocol.Answer is what goes on the wire.
type answer struct {
	result      any
	unsupported string
	err         *protocol.Error
}

func (a answer) wire() protocol.Answer {
	return protocol.Answer{Result: a.result, Unsupported: a.unsupported, Error: a.err}
}

func unsupported(format string, args ...any) answer {
	return answer{unsupported: fmt.Sprintf(format, args...)}
}

func failure(message string, detail error) answer {
	return answer{err: protocol.Failure(message, detail).Error}
}

func ok(result any) answer { return answer{result: result} }

func main() {
	protocol.Shim{
		Name:       "koordinator-shim",
		Component:  "koordinator",
		Hello:      helloMessage(),
		Operations: protocol.Adapt(operations, answer.wire),
	}.Main()
}

var operations = map[string]func(json.RawMessage) answer{
	"merge":   runMerge,
	"resolve": pluginOnly("resolve"),
	"cpuset":  runCPUSet,
	"filter":  pluginOnly("filter"),
	"score":   pluginOnly("score"),
}
