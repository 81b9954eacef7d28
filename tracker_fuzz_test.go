package daemonplan_test

import (
	"testing"

	"pgregory.net/rapid"
)

// FuzzTracker feeds the fuzzer's bytes to the equivalence property as
// rapid's choices: a starting cluster and a sequence of changes, with
// FullPlan and Plan compared to Sync after every one. rapid reads eight
// bytes per choice and skips inputs that run out, so the seeds in
// testdata/fuzz/FuzzTracker are 8 KiB of random bytes, enough for a
// sequence of changes.
func FuzzTracker(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		m := newModel(t)
		t.Repeat(m.actions())
	}))
}
