package rollout_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/rollout"
)

// TestEngineMatchesFormer is a differential property: the rolling update
// through its one decision table (Classifier.Classify, Budgets.Quota)
// plans exactly what the two engines it replaced planned (the upstream
// pass and the progressive one, kept in former_internal_test.go), on
// clusters and extensions decoded as FuzzProgressiveStep decodes them,
// with and without extensions and with burst limits small enough to cut.
func TestEngineMatchesFormer(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 8, 64).Draw(rt, "data")
		f, p := fuzzFixture(data)
		if rapid.Bool().Draw(rt, "upstream") {
			p = rollout.Progressive{}
		}
		f.opts.BurstReplicas = rapid.SampledFrom([]int{0, 1, 2, 3}).Draw(rt, "burst")
		got, gotProg, gotErr := rollout.RollingUpdate(f.cluster(rt), t0, hashNew, p)
		want, wantProg, wantErr := rollout.FormerRollingUpdate(f.cluster(rt), t0, hashNew, p)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			rt.Fatalf("error %v, former %v", gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			rt.Fatalf("RollingUpdate with Progressive%s mismatch (-former +engine):\n%s", describeOpts(p), diff)
		}
		if diff := cmp.Diff(wantProg, gotProg); diff != "" {
			rt.Fatalf("Progress with Progressive%s mismatch (-former +engine):\n%s", describeOpts(p), diff)
		}
	})
}
