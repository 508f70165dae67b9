package protocol

import (
	"encoding/json"
	"sort"
)

// Nondeterminism is the structured part of an error answer for an input the
// release does not answer the same way every time (docs/protocol.md): how
// often it ran, how many distinct results it gave, and those results in the
// order of their JSON text.
type Nondeterminism struct {
	Runs     int               `json:"runs"`
	Distinct int               `json:"distinct"`
	Results  []json.RawMessage `json:"results"`
}

// Describe writes the message of a non-deterministic answer from the number
// of runs and the distinct results, as once returned them, in the order of
// their JSON text.
type Describe func(runs int, distinct []any) string

// Repeat runs once up to runs times. When every run's result encodes to the
// same JSON it answers the first run's answer; an error or unsupported
// answer, from the first run or a later one, is answered as it is. Otherwise
// the answer is an error whose message describe writes and which carries the
// distinct results as Nondeterminism: an input whose answer depends on Go map
// or set order is reported as such, never with one of its answers picked at
// random.
func Repeat(runs int, once func() Answer, describe Describe) Answer {
	first := once()
	if !first.isResult() {
		return first
	}
	distinct := map[string]any{}
	add := func(result any) {
		text, _ := json.Marshal(result)
		if _, seen := distinct[string(text)]; !seen {
			distinct[string(text)] = result
		}
	}
	add(first.Result)
	for i := 1; i < runs; i++ {
		again := once()
		if !again.isResult() {
			return again
		}
		add(again.Result)
	}
	if len(distinct) == 1 {
		return first
	}
	texts := make([]string, 0, len(distinct))
	for text := range distinct {
		texts = append(texts, text)
	}
	sort.Strings(texts)
	results := make([]any, len(texts))
	raw := make([]json.RawMessage, len(texts))
	for i, text := range texts {
		results[i], raw[i] = distinct[text], json.RawMessage(text)
	}
	return Answer{Error: &Error{
		Message:          describe(runs, results),
		Nondeterministic: &Nondeterminism{Runs: runs, Distinct: len(texts), Results: raw},
	}}
}

func (a Answer) isResult() bool { return a.Error == nil && a.Unsupported == "" }
