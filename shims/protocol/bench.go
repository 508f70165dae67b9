package protocol

// The bench operation: any shim answers it, for any of its operations. It
// runs one operation on one input a given number of times and answers how
// long each run took, measured here, so that process start, the pipe and
// the harness are not in the numbers. A shim marks the calls into upstream
// code with Timed; the answer then also says how long those calls took in
// each run, apart from decoding the input and encoding the result.

import (
	"encoding/json"
	"fmt"
	"time"
)

// BenchOperation is the operation name the serve loop reserves for timing.
const BenchOperation = "bench"

type benchInput struct {
	Operation string          `json:"operation"`
	Input     json.RawMessage `json:"input"`
	Repeat    int             `json:"repeat"`
}

// sections holds, while a bench run is under way, the time spent in each
// named section during the current iteration. The serve loop answers one
// request at a time, so no lock is needed; outside a bench run it is nil and
// Timed costs one comparison.
var sections map[string]*sectionTime

type sectionTime struct {
	nanos int64
	calls int
}

// Timed runs f and, during a bench run, adds its duration to the section
// called name (one section may be entered several times per run: a
// placement repeated to detect map-order dependence, say).
func Timed(name string, f func()) {
	if sections == nil {
		f()
		return
	}
	started := time.Now()
	f()
	elapsed := time.Since(started).Nanoseconds()
	s := sections[name]
	if s == nil {
		s = &sectionTime{}
		sections[name] = s
	}
	s.nanos += elapsed
	s.calls++
}

// BenchResult is the answer to a bench request.
type BenchResult struct {
	Operation string `json:"operation"`
	Repeat    int    `json:"repeat"`
	// HandlerNs is each run's whole handler time: decoding the input,
	// upstream's code and building the result.
	HandlerNs []int64 `json:"handlerNs"`
	// SectionNs is, per section, each run's time inside it.
	SectionNs map[string][]int64 `json:"sectionNs"`
	// SectionCalls is, per section, how often one run entered it.
	SectionCalls map[string]int `json:"sectionCalls"`
	// Answer is the last run's answer, so the caller can check it.
	Answer map[string]any `json:"answer"`
}

func (s Shim) bench(raw json.RawMessage) Answer {
	var in benchInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Failure("the bench input must be {operation, input, repeat}", err)
	}
	if in.Operation == BenchOperation {
		return Failure("bench cannot time itself", nil)
	}
	op, found := s.Operations[in.Operation]
	if !found {
		return Unsupported("operation %q is not implemented by this shim", in.Operation)
	}
	if in.Repeat < 1 {
		return Failure(fmt.Sprintf("bench repeat must be at least 1, not %d", in.Repeat), nil)
	}
	out := BenchResult{Operation: in.Operation, Repeat: in.Repeat, SectionNs: map[string][]int64{}, SectionCalls: map[string]int{}}
	var last Answer
	defer func() { sections = nil }()
	for i := 0; i < in.Repeat; i++ {
		sections = map[string]*sectionTime{}
		started := time.Now()
		last = op(in.Input)
		out.HandlerNs = append(out.HandlerNs, time.Since(started).Nanoseconds())
		for name, t := range sections {
			out.SectionNs[name] = append(out.SectionNs[name], t.nanos)
			out.SectionCalls[name] = t.calls
		}
	}
	switch {
	case last.Error != nil:
		out.Answer = map[string]any{"error": last.Error}
	case last.Unsupported != "":
		out.Answer = map[string]any{"unsupported": last.Unsupported}
	default:
		out.Answer = map[string]any{"result": last.Result}
	}
	return Result(out)
}
