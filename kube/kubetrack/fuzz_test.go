package kubetrack_test

import (
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// FuzzTracker feeds the fuzzer's bytes to the equivalence property as
// rapid's choices: a sequence of informer events, with FullPlan and Plan
// compared to kubesync.Sync after every one. rapid reads eight bytes per
// choice and skips inputs that run out: the seeds are 8 KiB of bytes from
// a fixed random source, enough for a sequence of events.
func FuzzTracker(f *testing.F) {
	r := rand.New(rand.NewPCG(30, 1))
	for range 3 {
		seed := make([]byte, 8<<10)
		for i := range seed {
			seed[i] = byte(r.Uint32())
		}
		f.Add(seed)
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		m := newModel(t)
		t.Repeat(m.actions())
	}))
}
