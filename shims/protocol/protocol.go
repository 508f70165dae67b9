// Package protocol is the adapter protocol v1 (docs/protocol.md) as the Go
// shims speak it: one JSON object per line on stdin and stdout, hello, run
// and stop. It knows nothing of the upstream release a shim links; a shim
// gives it the hello payload and one handler per operation.
package protocol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
)

// Version is the protocol number a shim announces in hello.
const Version = 1

// Request is one line the harness sends.
type Request struct {
	Cmd      string          `json:"cmd"`
	Protocol int             `json:"protocol"`
	Seq      *int64          `json:"seq"`
	ID       string          `json:"id"`
	Case     json.RawMessage `json:"case"`
}

// Case is the self-contained case a run request carries.
type Case struct {
	Component string          `json:"component"`
	Operation string          `json:"operation"`
	Input     json.RawMessage `json:"input"`
}

// Error is the body of an error answer.
type Error struct {
	Message          string          `json:"message"`
	Detail           string          `json:"detail,omitempty"`
	Nondeterministic *Nondeterminism `json:"nondeterministic,omitempty"`
}

// Answer is the outcome of one run request: an error if Error is set,
// otherwise unsupported if Unsupported is not empty, otherwise Result.
type Answer struct {
	Result      any
	Unsupported string
	Error       *Error
}

// Result answers with a result object.
func Result(result any) Answer { return Answer{Result: result} }

// Unsupported answers that the case is outside what the shim can drive.
func Unsupported(format string, args ...any) Answer {
	return Answer{Unsupported: fmt.Sprintf(format, args...)}
}

// Failure answers with an error; detail may be nil.
func Failure(message string, detail error) Answer {
	e := &Error{Message: message}
	if detail != nil {
		e.Detail = detail.Error()
	}
	return Answer{Error: e}
}

// Operation answers one case's input.
type Operation func(input json.RawMessage) Answer

// Shim is what the serve loop needs to know of one shim.
type Shim struct {
	// Name prefixes the shim's log lines ("kubelet-shim").
	Name string
	// Component is the only component the shim answers for.
	Component string
	// Hello is the hello answer, encoded as it is (see HelloPayload).
	Hello any
	// Operations maps an operation name to its handler.
	Operations map[string]Operation
	// Log receives the log lines; nil means stderr.
	Log io.Writer
}

// Serve answers requests from in on out until a stop request or the end of
// in, and returns nil then. It returns an error only when reading in fails.
// A line that is not a request, or a request with an unknown command, is
// logged and gets no answer.
func (s Shim) Serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if stop := s.handleLine(line, w); stop {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

// Main serves stdin and stdout and returns on stop or at the end of stdin;
// when reading stdin fails it logs why and exits with status 1.
func (s Shim) Main() {
	if err := s.Serve(os.Stdin, os.Stdout); err != nil {
		s.logf("%v", err)
		os.Exit(1)
	}
}

func (s Shim) logf(format string, args ...any) {
	log := s.Log
	if log == nil {
		log = os.Stderr
	}
	fmt.Fprintf(log, "%s: %s\n", s.Name, fmt.Sprintf(format, args...))
}

func (s Shim) handleLine(line []byte, w *bufio.Writer) bool {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		s.logf("ignoring a line that is not a request: %v", err)
		return false
	}
	switch req.Cmd {
	case "hello":
		write(w, s.Hello, nil)
	case "stop":
		return true
	case "run":
		seq := int64(0)
		if req.Seq != nil {
			seq = *req.Seq
		}
		a := s.runSafely(req)
		msg := map[string]any{"seq": seq}
		switch {
		case a.Error != nil:
			msg["error"] = a.Error
		case a.Unsupported != "":
			msg["unsupported"] = a.Unsupported
		default:
			msg["result"] = a.Result
		}
		write(w, msg, &seq)
	default:
		s.logf("unknown command %q", req.Cmd)
	}
	return false
}

// runSafely turns a panic inside upstream code into an error answer, so one
// case cannot take the process (and the cases after it) down.
func (s Shim) runSafely(req Request) (a Answer) {
	defer func() {
		if r := recover(); r != nil {
			a = Failure(fmt.Sprintf("panic while running %s", req.ID), fmt.Errorf("%v\n%s", r, debug.Stack()))
		}
	}()
	var c Case
	if err := json.Unmarshal(req.Case, &c); err != nil {
		return Failure("the case is not an object with component, operation and input", err)
	}
	if c.Component != s.Component {
		return Unsupported("this implementation has only the %s component, not %q", s.Component, c.Component)
	}
	if c.Operation == BenchOperation {
		return s.bench(c.Input)
	}
	op, found := s.Operations[c.Operation]
	if !found {
		return Unsupported("operation %q is not implemented by this shim", c.Operation)
	}
	return op(c.Input)
}

// write sends msg as one line. A result that cannot be encoded (a NaN, say)
// becomes an error answer that keeps the request's seq, so the harness
// records an error for that case instead of a protocol breach.
func write(w *bufio.Writer, msg any, seq *int64) {
	b, err := json.Marshal(msg)
	if err != nil {
		fallback := map[string]any{"error": Error{Message: "cannot encode the answer", Detail: err.Error()}}
		if seq != nil {
			fallback["seq"] = *seq
		}
		b, _ = json.Marshal(fallback)
	}
	w.Write(b)
	w.WriteByte('\n')
	w.Flush()
}

// Implementation names the release a shim links, for hello.
type Implementation struct {
	Name     string
	Version  string
	Language string
	Homepage string
	Source   string
}

// HelloPayload is the hello answer for a shim of one component. Maps, not
// structs, so the keys come out sorted, as the shims have always sent them.
func HelloPayload(impl Implementation, component string, features []string) map[string]any {
	sorted := append([]string{}, features...)
	sort.Strings(sorted)
	return map[string]any{
		"protocol": Version,
		"implementation": map[string]any{
			"name":     impl.Name,
			"version":  impl.Version,
			"language": impl.Language,
			"homepage": impl.Homepage,
			"source":   impl.Source,
		},
		"capabilities": map[string]any{
			"components": []string{component},
			"features":   sorted,
		},
	}
}

// ModuleVersion is the version of the module at path that the binary was
// built with: a replacement's version when the replacement is another module
// version; the required version when the replacement is a directory (the
// build records "(devel)" for it, and the shims lay a pinned release's source
// out in a directory); "unknown" when the binary has no such dependency.
func ModuleVersion(path string) string {
	if info, found := debug.ReadBuildInfo(); found {
		for _, dep := range info.Deps {
			if dep.Path == path {
				if dep.Replace != nil && dep.Replace.Version != "" && dep.Replace.Version != "(devel)" {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return "unknown"
}
