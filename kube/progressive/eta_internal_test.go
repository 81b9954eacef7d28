package progressive

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestEstimate: the ETA from the node counts, the phase, the budget and
// the time per node (measured, else the timeline model's).
func TestEstimate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	ds := &appsv1.DaemonSet{}
	grace := int64(5)
	ds5 := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{MinReadySeconds: 3}}
	ds5.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
	measured := func(n int, each time.Duration) RolloutState {
		return RolloutState{Phase: PhaseRemaining, Replaced: n, ReplaceTime: metav1.Duration{Duration: time.Duration(n) * each}}
	}
	nodes := func(spec ...string) []NodeProgress { // "name/zone/State"
		var out []NodeProgress
		for _, s := range spec {
			f := strings.Split(s, "/")
			out = append(out, NodeProgress{Name: f[0], Zone: f[1], State: NodeStage(f[2]), Desired: true})
		}
		return out
	}
	two := intstr.FromInt32(2)
	zones := &ZonesPolicy{Key: "z", Order: []string{"a", "b"}}
	tests := []struct {
		name, reason string
		st           RolloutState
		pol          Policy
		nodes        []NodeProgress
		budget       int
		ds           *appsv1.DaemonSet
		want         time.Duration
		wantSource   ETASource
		wantIn       string
	}{
		{"model defaults", "nothing measured: 30 s grace + 10 s to Ready per node, 3 nodes one at a time",
			RolloutState{Phase: PhaseRemaining}, Policy{}, nodes("n0//Outdated", "n1//Outdated", "n2//Outdated"), 1, ds,
			120 * time.Second, ETAModel, "grace period 30s + ready after 10s + minReadySeconds 0s"},
		{"model from the template", "the template's grace period and minReadySeconds: 5+10+3 s, 4 nodes 2 at a time",
			RolloutState{Phase: PhaseRemaining}, Policy{MaxUnavailable: &two}, nodes("n0//Outdated", "n1//Outdated", "n2//Outdated", "n3//Outdated"), 2, ds5,
			36 * time.Second, ETAModel, "18s per node"},
		{"measured", "the mean of the measured replacements wins over the model",
			measured(4, 3*time.Second), Policy{}, nodes("n0//Updated", "n1//Outdated", "n2//Outdated"), 1, ds,
			6 * time.Second, ETAMeasured, "the mean of 4 replacements measured"},
		{"in progress", "a node being replaced counts what it has left: 3 s of 10 s run, then 7 s, then one more",
			RolloutState{Phase: PhaseRemaining, Replaced: 1, ReplaceTime: metav1.Duration{Duration: 10 * time.Second},
				Replacing: []Replacing{{Node: "n1", Since: metav1.NewMicroTime(now.Add(-3 * time.Second))}}},
			Policy{}, nodes("n0//Updated", "n1//Deleting", "n2//Outdated"), 1, ds,
			17 * time.Second, ETAMeasured, "2 nodes"},
		{"zones", "zone b waits for zone a to finish: a's 3 nodes 2 at a time (2 rounds), then b's 1",
			RolloutState{Phase: PhaseZone, Zone: "a", Replaced: 2, ReplaceTime: metav1.Duration{Duration: 20 * time.Second}},
			Policy{Zones: zones}, nodes("n0/a/Outdated", "n1/a/Outdated", "n2/a/Outdated", "n3/b/Outdated"), 2, ds,
			30 * time.Second, ETAMeasured, "4 nodes, 2 at a time"},
		{"canary waits", "the promote is not counted, only named",
			RolloutState{Phase: PhaseCanary, Replaced: 1, ReplaceTime: metav1.Duration{Duration: time.Second}},
			Policy{Canary: &CanaryPolicy{Nodes: &two}}, nodes("n0//Updated", "n1//Outdated"), 1, ds,
			time.Second, ETAMeasured, "not counting the waits for 'rollout promote' after the canary"},
		{"pause points", "pause points ahead are named, not counted",
			RolloutState{Phase: PhaseZone, Zone: "a", Replaced: 1, ReplaceTime: metav1.Duration{Duration: time.Second}},
			Policy{Zones: zones, PauseBefore: []string{"zone:b", "rest"}}, nodes("n0/a/Outdated", "n1/b/Outdated", "n2//Outdated"), 1, ds,
			3 * time.Second, ETAMeasured, "'rollout resume' at 2 pause points ahead"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := estimate(&tc.st, tc.pol.Defaulted(), tc.nodes, tc.budget, tc.ds, now)
			if e == nil || e.Remaining != tc.want || e.Source != tc.wantSource || !strings.Contains(e.String(), tc.wantIn) {
				t.Errorf("%s: got %v, want %s from %s, saying %q", tc.reason, e, tc.want, tc.wantSource, tc.wantIn)
			}
		})
	}
	for _, ph := range []Phase{PhaseDone, PhaseAborted} {
		if e := estimate(&RolloutState{Phase: ph}, Policy{}.Defaulted(), nil, 1, ds, now); e != nil {
			t.Errorf("phase %s: ETA %v, want none", ph, e)
		}
	}
}

// TestMeasure: a replacement is measured from the decided delete to the
// step that sees the node Updated; one whose delete was dropped (pause,
// abort) is not.
func TestMeasure(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &RolloutState{InFlight: []InFlight{{Pod: "p0", UID: "u0", Node: "n0"}, {Pod: "p1", UID: "u1", Node: "n1"}}}
	measure(st, []NodeProgress{{Name: "n0", State: Outdated, Desired: true}, {Name: "n1", State: Outdated, Desired: true}}, t0)
	if len(st.Replacing) != 2 {
		t.Fatalf("two deletes decided: replacing %v", st.Replacing)
	}
	st.InFlight = nil // n0's pod went; n1's delete was dropped by a pause
	measure(st, []NodeProgress{{Name: "n0", State: Updated, Desired: true}, {Name: "n1", State: Outdated, Desired: true}}, t0.Add(4*time.Second))
	if len(st.Replacing) != 0 || st.Replaced != 1 || st.ReplaceTime.Duration != 4*time.Second {
		t.Errorf("n0 replaced in 4 s, n1 never deleted: %+v", st)
	}
}
