package daemonplan_test

import (
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
)

// TestSyncKeepsTheOthers: in every plan that manages pods, Keep and Delete
// together name exactly the bucketed pods (claimed, with a target node, not
// both terminal and being deleted, as the naive reference buckets them),
// each once, whether manage or the rolling update deleted them. Generated
// clusters seldom reach the rolling update's deletes, so a cluster mid
// rollout, whose plans always hold them, is checked too, whatever rapid
// draws.
func TestSyncKeepsTheOthers(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, in daemonplan.Input, burst int) (rolled int) {
		plan, err := daemonplan.Sync(in, daemonplan.Options{Placement: placement.Options{BurstReplicas: burst}})
		ds := api.Default(in.DaemonSet)
		if err != nil || in.ExpectationsPending || len(plan.Errors) > 0 || ds.Deleting ||
			ds.Selector != nil && reflect.DeepEqual(*ds.Selector, api.LabelSelector{}) {
			return 0
		}
		var want []string
		for _, b := range reference.Buckets(&ds, in.Pods) {
			for _, p := range b {
				want = append(want, p.Name)
			}
		}
		slices.Sort(want)
		got := slices.Clone(plan.Keep)
		for _, d := range plan.Delete {
			got = append(got, d.Pod)
			if d.Reason == placement.Outdated || d.Reason == placement.Unschedulable {
				rolled++
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Keep %v and Delete %v, want together the bucketed pods %v", plan.Keep, plan.Delete, want)
		}
		return rolled
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, syncInput(t), rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "burst"))
	})
	for _, burst := range []int{0, 1, 2} {
		if check(t, midRolloutSettled(40), burst) == 0 {
			t.Fatalf("burst %d: the plan mid rollout holds no rolling-update delete", burst)
		}
	}
}
