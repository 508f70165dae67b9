package protocol

import (
	"reflect"
	"strings"
	"testing"
)

const demoVocabulary = "demo.a\ndemo.b\n\ndemo.c.sub\ndemo.d\n"

func TestFeaturesSubtractsEveryGroup(t *testing.T) {
	got, err := Features(demoVocabulary, []string{"demo.b"}, nil, []string{"demo.d"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"demo.a", "demo.c.sub"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestFeaturesWithoutLeaveOutsIsTheVocabulary(t *testing.T) {
	got, err := Features(demoVocabulary)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"demo.a", "demo.b", "demo.c.sub", "demo.d"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestFeaturesRefusesWhatItCannotUse(t *testing.T) {
	cases := []struct {
		name       string
		vocabulary string
		leaveOut   [][]string
		says       string
	}{
		{"a typo in a leave-out", demoVocabulary, [][]string{{"demo.bb"}}, `"demo.bb", which is not in the vocabulary`},
		{"one entry left out twice", demoVocabulary, [][]string{{"demo.a"}, {"demo.a"}}, `"demo.a" twice`},
		{"an empty vocabulary", "\n\n", nil, "the vocabulary is empty"},
		{"a line that is not a name", "demo.a\n  \"demo.b\":\n", nil, `line 2: "\"demo.b\":" is not a feature name`},
		{"a name with upper case", "demo.A\n", nil, `line 1: "demo.A" is not a feature name`},
		{"a name listed twice", "demo.a\ndemo.a\n", nil, `line 2: "demo.a" is listed twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Features(c.vocabulary, c.leaveOut...)
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %v, want one saying %s", err, c.says)
			}
		})
	}
}

func TestMustFeaturesStopsOnATypo(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "demo.x") {
			t.Fatalf("recovered %v, want a panic naming demo.x", r)
		}
	}()
	MustFeatures(demoVocabulary, []string{"demo.x"})
}
