package daemonplan_test

import (
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
)

// TestSyncKeepsTheOthers: in every plan that manages pods, Keep and Delete
// together name exactly the bucketed pods (claimed, with a target node, not
// both terminal and being deleted, as the naive reference buckets them),
// each once, whether manage or the rolling update deleted them. The count
// of rolling-update plans checked keeps the property from passing on
// manage plans alone.
func TestSyncKeepsTheOthers(t *testing.T) {
	rolled := 0
	rapid.Check(t, func(t *rapid.T) {
		in := syncInput(t)
		burst := rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "burst")
		plan, err := daemonplan.Sync(in, daemonplan.Options{Placement: placement.Options{BurstReplicas: burst}})
		ds := api.Default(in.DaemonSet)
		if err != nil || in.ExpectationsPending || len(plan.Errors) > 0 || ds.Deleting ||
			ds.Selector != nil && reflect.DeepEqual(*ds.Selector, selector.LabelSelector{}) {
			return
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
	})
	if rolled == 0 {
		t.Fatal("no plan held a rolling-update delete: the property checked manage alone")
	}
}
