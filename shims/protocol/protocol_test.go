package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func testShim(log *bytes.Buffer) Shim {
	return Shim{
		Name:      "test-shim",
		Component: "demo",
		Hello: HelloPayload(Implementation{
			Name: "demo", Version: "v1.2.3", Language: "go",
			Homepage: "https://example.invalid/demo", Source: "demo@v1.2.3 pkg/demo",
		}, "demo", []string{"demo.b", "demo.a"}),
		Operations: map[string]Operation{
			"echo": func(in json.RawMessage) Answer {
				var v any
				if err := json.Unmarshal(in, &v); err != nil {
					return Failure("bad input", err)
				}
				return Result(map[string]any{"echo": v})
			},
			"refuse": func(json.RawMessage) Answer { return Unsupported("not in release %s", "v1.2.3") },
			"broken": func(json.RawMessage) Answer { return Failure("cannot build", errors.New("boom")) },
			"panics": func(json.RawMessage) Answer { panic("upstream fell over") },
			"nan":    func(json.RawMessage) Answer { return Result(map[string]any{"x": math.NaN()}) },
		},
		Log: log,
	}
}

// serve feeds the lines to a fresh shim and returns its answer lines and log.
func serve(t *testing.T, input string) ([]string, string) {
	t.Helper()
	var out, log bytes.Buffer
	if err := testShim(&log).Serve(strings.NewReader(input), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	text := out.String()
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Fatalf("output does not end with a newline: %q", text)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	return lines, log.String()
}

func TestHello(t *testing.T) {
	lines, _ := serve(t, `{"cmd": "hello", "protocol": 1}`+"\n")
	want := `{"capabilities":{"components":["demo"],"features":["demo.a","demo.b"]},` +
		`"implementation":{"homepage":"https://example.invalid/demo","language":"go","name":"demo",` +
		`"source":"demo@v1.2.3 pkg/demo","version":"v1.2.3"},"protocol":1}`
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("hello answer:\n got %q\nwant %q", lines, want)
	}
}

func TestRun(t *testing.T) {
	input := strings.Join([]string{
		`{"cmd":"run","seq":7,"id":"c.echo","case":{"component":"demo","operation":"echo","input":{"a":[1,2]}}}`,
		`{"cmd":"run","seq":8,"id":"c.refuse","case":{"component":"demo","operation":"refuse","input":{}}}`,
		`{"cmd":"run","seq":9,"id":"c.broken","case":{"component":"demo","operation":"broken","input":{}}}`,
		`{"cmd":"run","seq":10,"id":"c.other","case":{"component":"other","operation":"echo","input":{}}}`,
		`{"cmd":"run","seq":11,"id":"c.missing","case":{"component":"demo","operation":"missing","input":{}}}`,
		`{"cmd":"run","seq":12,"id":"c.notcase","case":[1]}`,
		`{"cmd":"run","id":"c.noseq","case":{"component":"demo","operation":"refuse","input":{}}}`,
		`{"cmd":"run","seq":13,"id":"c.html","case":{"component":"demo","operation":"echo","input":"<a&b>"}}`,
	}, "\n") + "\n"
	want := []string{
		`{"result":{"echo":{"a":[1,2]}},"seq":7}`,
		`{"seq":8,"unsupported":"not in release v1.2.3"}`,
		`{"error":{"message":"cannot build","detail":"boom"},"seq":9}`,
		`{"seq":10,"unsupported":"this implementation has only the demo component, not \"other\""}`,
		`{"seq":11,"unsupported":"operation \"missing\" is not implemented by this shim"}`,
		`{"error":{"message":"the case is not an object with component, operation and input","detail":"json: cannot unmarshal array into Go value of type protocol.Case"},"seq":12}`,
		`{"seq":0,"unsupported":"not in release v1.2.3"}`,
		`{"result":{"echo":"\u003ca\u0026b\u003e"},"seq":13}`,
	}
	lines, _ := serve(t, input)
	if len(lines) != len(want) {
		t.Fatalf("got %d answers, want %d: %q", len(lines), len(want), lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("answer %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

func TestRunPanicBecomesError(t *testing.T) {
	lines, _ := serve(t, `{"cmd":"run","seq":3,"id":"c.panics","case":{"component":"demo","operation":"panics","input":{}}}`+"\n"+
		`{"cmd":"run","seq":4,"id":"c.refuse","case":{"component":"demo","operation":"refuse","input":{}}}`+"\n")
	if len(lines) != 2 {
		t.Fatalf("want two answers, got %q", lines)
	}
	var a struct {
		Seq   int64 `json:"seq"`
		Error Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &a); err != nil {
		t.Fatal(err)
	}
	if a.Seq != 3 || a.Error.Message != "panic while running c.panics" || !strings.HasPrefix(a.Error.Detail, "upstream fell over\n") {
		t.Errorf("panic answer: %s", lines[0])
	}
	if lines[1] != `{"seq":4,"unsupported":"not in release v1.2.3"}` {
		t.Errorf("the case after the panic: %s", lines[1])
	}
}

func TestUnencodableResultKeepsSeq(t *testing.T) {
	lines, _ := serve(t, `{"cmd":"run","seq":5,"id":"c.nan","case":{"component":"demo","operation":"nan","input":{}}}`+"\n")
	want := `{"error":{"message":"cannot encode the answer","detail":"json: unsupported value: NaN"},"seq":5}`
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("got %q, want %q", lines, want)
	}
}

func TestUnknownCommandIsLoggedNotAnswered(t *testing.T) {
	lines, log := serve(t, `{"cmd":"reticulate"}`+"\n"+`{"cmd":"hello","protocol":1}`+"\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"capabilities":`) {
		t.Fatalf("want only the hello answer, got %q", lines)
	}
	if log != "test-shim: unknown command \"reticulate\"\n" {
		t.Errorf("log: %q", log)
	}
}

func TestMalformedLineIsLoggedNotAnswered(t *testing.T) {
	lines, log := serve(t, "this is not json\n[1,2]\n"+`{"cmd":"run","seq":1,"id":"c","case":{"component":"demo","operation":"refuse","input":{}}}`+"\n")
	if len(lines) != 1 || lines[0] != `{"seq":1,"unsupported":"not in release v1.2.3"}` {
		t.Fatalf("want only the run answer, got %q", lines)
	}
	if strings.Count(log, "test-shim: ignoring a line that is not a request: ") != 2 {
		t.Errorf("log: %q", log)
	}
}

func TestStopEndsTheLoop(t *testing.T) {
	lines, _ := serve(t, `{"cmd":"stop"}`+"\n"+`{"cmd":"hello","protocol":1}`+"\n")
	if len(lines) != 0 {
		t.Fatalf("nothing is read after stop, got %q", lines)
	}
}

func TestEndOfInputWithoutNewline(t *testing.T) {
	lines, _ := serve(t, `{"cmd":"run","seq":2,"id":"c","case":{"component":"demo","operation":"refuse","input":{}}}`)
	if len(lines) != 1 || lines[0] != `{"seq":2,"unsupported":"not in release v1.2.3"}` {
		t.Fatalf("the last line without a newline is still answered, got %q", lines)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("pipe broke") }

func TestReadErrorIsReturned(t *testing.T) {
	var out bytes.Buffer
	err := testShim(&bytes.Buffer{}).Serve(failingReader{}, &out)
	if err == nil || err.Error() != "reading stdin: pipe broke" {
		t.Fatalf("got %v", err)
	}
}

func TestModuleVersionOfAMissingModule(t *testing.T) {
	if v := ModuleVersion("example.invalid/not-linked"); v != "unknown" {
		t.Errorf("got %q", v)
	}
}
