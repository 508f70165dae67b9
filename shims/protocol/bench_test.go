package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func benchShim() Shim {
	return Shim{
		Name: "bench-shim", Component: "demo", Hello: map[string]any{}, Log: &bytes.Buffer{},
		Operations: map[string]Operation{
			"twice": func(in json.RawMessage) Answer {
				Timed("upstream", func() {})
				Timed("upstream", func() {})
				return Result(map[string]any{"input": string(in)})
			},
		},
	}
}

func benchAnswer(t *testing.T, input string) map[string]any {
	t.Helper()
	var out bytes.Buffer
	req := `{"cmd":"run","seq":1,"case":{"component":"demo","operation":"bench","input":` + input + `}}` + "\n"
	if err := benchShim().Serve(strings.NewReader(req), &out); err != nil {
		t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(out.Bytes(), &msg); err != nil {
		t.Fatalf("answer %q: %v", out.String(), err)
	}
	return msg
}

func TestBenchTimesEachRunAndItsSections(t *testing.T) {
	msg := benchAnswer(t, `{"operation":"twice","input":{"a":1},"repeat":3}`)
	result, _ := msg["result"].(map[string]any)
	if result == nil {
		t.Fatalf("no result: %v", msg)
	}
	if n := len(result["handlerNs"].([]any)); n != 3 {
		t.Errorf("handlerNs has %d runs, want 3", n)
	}
	if n := len(result["sectionNs"].(map[string]any)["upstream"].([]any)); n != 3 {
		t.Errorf("upstream section has %d runs, want 3", n)
	}
	if calls := result["sectionCalls"].(map[string]any)["upstream"]; calls != float64(2) {
		t.Errorf("upstream section entered %v times per run, want 2", calls)
	}
	answer := result["answer"].(map[string]any)["result"].(map[string]any)
	if answer["input"] != `{"a":1}` {
		t.Errorf("the last run's answer is %v", answer)
	}
	if sections != nil {
		t.Error("sections stay recorded after the bench run")
	}
}

func TestBenchRefusesBadRequests(t *testing.T) {
	for _, input := range []string{
		`{"operation":"twice","input":{},"repeat":0}`,
		`{"operation":"bench","input":{},"repeat":1}`,
		`[1]`,
	} {
		if msg := benchAnswer(t, input); msg["error"] == nil {
			t.Errorf("%s: answered %v, want an error", input, msg)
		}
	}
	if msg := benchAnswer(t, `{"operation":"nope","input":{},"repeat":1}`); msg["unsupported"] == nil {
		t.Errorf("an unknown operation answered %v", msg)
	}
}
