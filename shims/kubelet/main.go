// Command kubelet-shim speaks the conformance adapter protocol v1 on stdin and
// stdout and answers each case by driving the real upstream kubelet packages
// (pkg/kubelet/cm/topologymanager and the CPU, memory and device managers) of
// the release this module pins.
package main

import (
	"encoding/json"
	"fmt"
	"os"

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

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Printf("kubelet-shim linking %s %s\n", upstreamModule, linkedVersion())
		return
	}
	if err := prepareSandbox(); err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-shim: %v\n", err)
		os.Exit(2)
	}
	initState()
	protocol.Shim{
		Name:       "kubelet-shim",
		Component:  "kubelet",
		Hello:      helloMessage(),
		Operations: protocol.Adapt(operations, answer.wire),
	}.Main()
}

var operations = map[string]func(json.RawMessage) answer{
	"start": runStart,
	"merge": runMerge,
	"admit": runAdmit,
}
