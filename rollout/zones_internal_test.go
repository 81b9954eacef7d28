package rollout

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
)

// TestInFlight: the zones' "in flight" (docs/progressive-delivery.md) for
// every shape of node, written out by hand, and, for every node that is
// not outdated and should run the pod or holds a live one, the decision
// table's answer: a node in flight is one Classify counts as unavailable,
// with or without the progressive switches. A copy of the row kept beside
// Classify would fail the second check when the table changes.
func TestInFlight(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ready := &api.Pod{Name: "ready", Phase: api.PodRunning, Ready: true, ReadySince: now.Add(-time.Hour)}
	starting := &api.Pod{Name: "starting", Phase: api.PodPending}
	deleting := &api.Pod{Name: "deleting", Phase: api.PodRunning, Ready: true, ReadySince: now.Add(-time.Hour), Deleting: true}
	tests := []struct {
		name, reason string
		pods         []*api.Pod
		updated      []bool
		desired      bool
		want         bool
	}{
		{"no pod, desired", "should run a pod and has none", nil, nil, true, true},
		{"no pod, not desired", "nothing to replace", nil, nil, false, false},
		{"only a pod being deleted, not desired", "it waits for its pod to go", []*api.Pod{deleting}, []bool{false}, false, false},
		{"only a pod being deleted, desired", "no live pod although it should run one", []*api.Pod{deleting}, []bool{false}, true, true},
		{"new available", "done", []*api.Pod{ready}, []bool{true}, true, false},
		{"new starting", "a new pod not available yet", []*api.Pod{starting}, []bool{true}, true, true},
		{"new starting, not desired", "a new pod not available yet", []*api.Pod{starting}, []bool{true}, false, true},
		{"old available", "outdated: waits for the budget", []*api.Pod{ready}, []bool{false}, true, false},
		{"old starting", "outdated, not in flight", []*api.Pod{starting}, []bool{false}, true, false},
		{"old and new", "an old pod next to a new one", []*api.Pod{ready, ready}, []bool{false, true}, true, true},
		{"two new", "two live pods of a kind", []*api.Pod{ready, ready}, []bool{true, true}, true, true},
		{"two old", "two live pods of a kind", []*api.Pod{ready, ready}, []bool{false, false}, false, true},
	}
	for _, tt := range tests {
		for _, cls := range []Classifier{
			{Now: now},
			{Now: now, StrictBudgets: true},
			{Now: now, SurgeWithUnavailable: true},
			{Now: now, StrictBudgets: true, SurgeWithUnavailable: true},
		} {
			for _, allowed := range []bool{true, false} {
				name := fmt.Sprintf("%s/strict=%v,surgeWithUnavailable=%v,allowed=%v", tt.name, cls.StrictBudgets, cls.SurgeWithUnavailable, allowed)
				t.Run(name, func(t *testing.T) {
					n := &pnode{NodeView: NodeView{Name: "n", Present: true, Desired: tt.desired, Allowed: allowed}}
					n.SetPods(tt.pods, func(j int) bool { return tt.updated[j] })
					if got := inFlight(n, &cls); got != tt.want {
						t.Errorf("inFlight() = %v, want %v (%s)", got, tt.want, tt.reason)
					}
					live := n.Crowded || n.New != nil || n.Old != nil
					if !n.Outdated() && (tt.desired || live) {
						if got := cls.Classify(&n.NodeView).Unavailable; got != tt.want {
							t.Errorf("Classify().Unavailable = %v, inFlight() wants %v: the zones and the budgets disagree on what is in flight", got, tt.want)
						}
					}
				})
			}
		}
	}
}
