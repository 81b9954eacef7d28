package rollout_test

import (
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
	"pgregory.net/rapid"
)

// layoutEntry draws one node of a build layout: half of the time one
// available old pod (a candidate for the budget), else a prefix and up to
// two pods of any kind.
func layoutEntry() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.Bool().Draw(t, "candidate") {
			return rapid.SampledFrom([]string{"O", "!O"}).Draw(t, "entry")
		}
		prefix := rapid.SampledFrom([]string{"", "", "", "!", "?"}).Draw(t, "prefix")
		pods := rapid.SliceOfN(rapid.SampledFrom([]rune("OOOoNnmGTF")), 0, 2).Draw(t, "pods")
		if prefix == "?" && len(pods) == 0 {
			prefix = ""
		}
		return prefix + string(pods)
	})
}

// TestPropertyBurstCutsTheUnlimitedStep: a step under a burst limit holds
// a part of the step without limit, and what it leaves out is exactly what
// it reports as skipped. The rolling update keeps at most burst candidates
// and counts the rest; this is the check that the count is right.
func TestPropertyBurstCutsTheUnlimitedStep(t *testing.T) {
	budgets := []*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(3), api.Percent("50%"), api.Percent("100%")}
	rapid.Check(t, func(t *rapid.T) {
		strategy := maxUnavailable(rapid.SampledFrom(budgets[1:]).Draw(t, "maxUnavailable"))
		if rapid.Bool().Draw(t, "surge") {
			strategy = maxSurge(rapid.SampledFrom(budgets[1:]).Draw(t, "maxSurge"))
		}
		f := build(strategy, rapid.SliceOfN(layoutEntry(), 1, 12).Draw(t, "layout")...)
		f.opts.BurstReplicas = 1 << 30
		all, errAll := f.step(t)
		f.opts.BurstReplicas = rapid.IntRange(1, 4).Draw(t, "burst")
		cut, errCut := f.step(t)
		if (errAll == nil) != (errCut == nil) {
			t.Fatalf("errors differ: without limit %v, with limit %v", errAll, errCut)
		}
		if errAll != nil {
			return
		}
		creates := func(s rollout.Step) []string { return shapeOf(s).Create }
		if got, want := len(cut.Create)+cut.SkippedCreates, len(all.Create); got != want {
			t.Fatalf("creates kept %d + skipped %d, want %d, the creates without limit", len(cut.Create), cut.SkippedCreates, want)
		}
		if got, want := len(cut.Delete)+cut.SkippedDeletes, len(all.Delete); got != want {
			t.Fatalf("deletes kept %d + skipped %d, want %d, the deletes without limit", len(cut.Delete), cut.SkippedDeletes, want)
		}
		for _, n := range creates(cut) {
			if !slices.Contains(creates(all), n) {
				t.Fatalf("create on %s is not in the step without limit %v", n, creates(all))
			}
		}
		for _, d := range cut.Delete {
			if !slices.Contains(all.Delete, d) {
				t.Fatalf("delete %v is not in the step without limit %v", d, all.Delete)
			}
		}
	})
}
