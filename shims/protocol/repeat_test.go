package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// sequence answers the given answers in turn, then the last one forever,
// and counts the calls.
func sequence(calls *int, answers ...Answer) func() Answer {
	return func() Answer {
		*calls++
		if *calls <= len(answers) {
			return answers[*calls-1]
		}
		return answers[len(answers)-1]
	}
}

func describeCount(runs int, distinct []any) string {
	return fmt.Sprintf("not deterministic: %d results over %d runs", len(distinct), runs)
}

func TestRepeatAnswersTheFirstWhenAllRunsAgree(t *testing.T) {
	calls := 0
	got := Repeat(8, sequence(&calls, Result(map[string]any{"a": 1})), describeCount)
	if got.Error != nil || calls != 8 {
		t.Fatalf("want the result after 8 runs, got %+v after %d", got, calls)
	}
}

func TestRepeatReportsDistinctResultsStructured(t *testing.T) {
	calls := 0
	b, a := Result(map[string]any{"x": "b"}), Result(map[string]any{"x": "a"})
	var seen []any
	got := Repeat(4, sequence(&calls, b, a, b), func(runs int, distinct []any) string {
		seen = distinct
		return describeCount(runs, distinct)
	})
	if got.Error == nil || got.Error.Nondeterministic == nil {
		t.Fatalf("want a non-deterministic error, got %+v", got)
	}
	if got.Error.Message != "not deterministic: 2 results over 4 runs" {
		t.Fatalf("message %q", got.Error.Message)
	}
	text, _ := json.Marshal(got.Error)
	want := `{"message":"not deterministic: 2 results over 4 runs","nondeterministic":{"runs":4,"distinct":2,"results":[{"x":"a"},{"x":"b"}]}}`
	if string(text) != want {
		t.Fatalf("wire form\n got %s\nwant %s", text, want)
	}
	// describe sees the results as once gave them, in the same order.
	if len(seen) != 2 || seen[0].(map[string]any)["x"] != "a" {
		t.Fatalf("describe saw %v", seen)
	}
}

func TestRepeatPassesErrorsAndUnsupportedThrough(t *testing.T) {
	calls := 0
	if got := Repeat(8, sequence(&calls, Unsupported("no")), describeCount); got.Unsupported != "no" || calls != 1 {
		t.Fatalf("first unsupported: %+v after %d runs", got, calls)
	}
	calls = 0
	failed := Failure("cannot", nil)
	if got := Repeat(8, sequence(&calls, Result(1), Result(1), failed), describeCount); got.Error != failed.Error || calls != 3 {
		t.Fatalf("a later error: %+v after %d runs", got, calls)
	}
}

func TestNondeterministicAnswerOnTheWire(t *testing.T) {
	calls := 0
	s := testShim(nil)
	s.Operations["flaky"] = func(json.RawMessage) Answer {
		return Repeat(3, sequence(&calls, Result(1), Result(2)), describeCount)
	}
	out, log := new(bytes.Buffer), new(bytes.Buffer)
	s.Log = log
	if err := s.Serve(strings.NewReader(`{"cmd":"run","seq":5,"id":"x","case":{"component":"demo","operation":"flaky","input":{}}}`+"\n"), out); err != nil {
		t.Fatal(err)
	}
	want := `{"error":{"message":"not deterministic: 2 results over 3 runs","nondeterministic":{"runs":3,"distinct":2,"results":[1,2]}},"seq":5}` + "\n"
	if out.String() != want {
		t.Fatalf("got %s\nwant %s", out.String(), want)
	}
}
