// Command kubelet-shim speaks the conformance adapter protocol v1 on stdin and
// stdout and answers each case by driving the real upstream kubelet packages
// (pkg/kubelet/cm/topologymanager and the CPU, memory and device managers) of
// the release this module pins.
package main

import (
	"fmt"
	"os"

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
		Operations: operations,
	}.Main()
}

var operations = map[string]protocol.Operation{
	"start": runStart,
	"merge": runMerge,
	"admit": runAdmit,
}
