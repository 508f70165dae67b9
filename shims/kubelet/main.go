// Command kubelet-shim speaks the conformance adapter protocol v1 on stdin and
// stdout and answers each case by driving the real upstream kubelet packages
// (pkg/kubelet/cm/topologymanager and the CPU, memory and device managers) of
// the release this module pins.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

type request struct {
	Cmd      string          `json:"cmd"`
	Protocol int             `json:"protocol"`
	Seq      *int64          `json:"seq"`
	ID       string          `json:"id"`
	Case     json.RawMessage `json:"case"`
}

type runCase struct {
	Component string          `json:"component"`
	Operation string          `json:"operation"`
	Input     json.RawMessage `json:"input"`
}

// answer is one of result, unsupported or error for a run request.
type answer struct {
	result      any
	unsupported string
	err         *protoError
}

type protoError struct {
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
}

func unsupported(format string, args ...any) answer {
	return answer{unsupported: fmt.Sprintf(format, args...)}
}

func failure(message string, detail error) answer {
	e := &protoError{Message: message}
	if detail != nil {
		e.Detail = detail.Error()
	}
	return answer{err: e}
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
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if stop := handleLine(line, out); stop {
				return
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kubelet-shim: reading stdin: %v\n", err)
			os.Exit(1)
		}
	}
}

func handleLine(line []byte, out *bufio.Writer) bool {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintf(os.Stderr, "kubelet-shim: ignoring a line that is not a request: %v\n", err)
		return false
	}
	switch req.Cmd {
	case "hello":
		write(out, helloMessage())
	case "stop":
		return true
	case "run":
		seq := int64(0)
		if req.Seq != nil {
			seq = *req.Seq
		}
		a := runSafely(req)
		msg := map[string]any{"seq": seq}
		switch {
		case a.err != nil:
			msg["error"] = a.err
		case a.unsupported != "":
			msg["unsupported"] = a.unsupported
		default:
			msg["result"] = a.result
		}
		write(out, msg)
	default:
		fmt.Fprintf(os.Stderr, "kubelet-shim: unknown command %q\n", req.Cmd)
	}
	return false
}

// runSafely turns a panic inside upstream code into an error answer, so one
// case cannot take the process (and the cases after it) down.
func runSafely(req request) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = failure(fmt.Sprintf("panic while running %s", req.ID), fmt.Errorf("%v\n%s", r, debug.Stack()))
		}
	}()
	var c runCase
	if err := json.Unmarshal(req.Case, &c); err != nil {
		return failure("the case is not an object with component, operation and input", err)
	}
	if c.Component != "kubelet" {
		return unsupported("this implementation has only the kubelet component, not %q", c.Component)
	}
	op, ok := operations[c.Operation]
	if !ok {
		return unsupported("operation %q is not implemented by this shim", c.Operation)
	}
	return op(c.Input)
}

func write(out *bufio.Writer, msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		fallback := map[string]any{"error": protoError{Message: "cannot encode the answer", Detail: err.Error()}}
		if m, ok := msg.(map[string]any); ok {
			fallback["seq"] = m["seq"]
		}
		b, _ = json.Marshal(fallback)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

var operations = map[string]func(json.RawMessage) answer{
	"start": runStart,
	"merge": runMerge,
	"admit": runAdmit,
}
