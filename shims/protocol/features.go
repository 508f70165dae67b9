package protocol

import (
	"fmt"
	"regexp"
	"strings"
)

// featureName is the form schemas/features.schema.json gives a vocabulary
// entry; a line of another form means the build's conversion of the corpus
// file went wrong, and hello must not carry it.
var featureName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// Features is the feature list a shim declares in hello: every entry of its
// component's vocabulary (fixtures/features/<component>.yaml, which build.sh
// writes beside the shim as one name a line) except those it leaves out. Each
// group of leaveOut is one reason or one build tag's choice. A leave-out that
// names no vocabulary entry is an error, so a typo or an entry renamed in the
// corpus stops the shim instead of quietly declaring a feature.
func Features(vocabulary string, leaveOut ...[]string) ([]string, error) {
	var names []string
	known := map[string]bool{}
	for i, line := range strings.Split(vocabulary, "\n") {
		name := strings.TrimSpace(line)
		if name == "" {
			continue
		}
		if !featureName.MatchString(name) {
			return nil, fmt.Errorf("vocabulary line %d: %q is not a feature name", i+1, name)
		}
		if known[name] {
			return nil, fmt.Errorf("vocabulary line %d: %q is listed twice", i+1, name)
		}
		known[name] = true
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the vocabulary is empty (build.sh writes it from the corpus)")
	}
	dropped := map[string]bool{}
	for _, group := range leaveOut {
		for _, name := range group {
			if !known[name] {
				return nil, fmt.Errorf("leaves out %q, which is not in the vocabulary", name)
			}
			if dropped[name] {
				return nil, fmt.Errorf("leaves out %q twice", name)
			}
			dropped[name] = true
		}
	}
	declared := make([]string, 0, len(names)-len(dropped))
	for _, name := range names {
		if !dropped[name] {
			declared = append(declared, name)
		}
	}
	return declared, nil
}

// MustFeatures is Features for a shim's start: a vocabulary or leave-out it
// cannot use is a mistake in the build, so it stops the program, naming it.
func MustFeatures(vocabulary string, leaveOut ...[]string) []string {
	declared, err := Features(vocabulary, leaveOut...)
	if err != nil {
		panic("hello features: " + err.Error())
	}
	return declared
}
