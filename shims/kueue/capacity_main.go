//go:build kueue_main

package main

import "encoding/json"

// The main branch's TAS cache computes per-domain counts inside its
// scheduling simulator and topology tree; the overlay for it does not expose
// that first placement phase, so capacity is not driven against such a tree.
func runCapacity(json.RawMessage) answer {
	return unsupported("the shim does not drive the per-domain counts of this Kueue tree's TAS cache (the overlay for the main branch does not expose its placement's first phase)")
}
