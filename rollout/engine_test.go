package rollout_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestClassify is the decision table row by row: each node shape and the
// class upstream's walk (and, with switches, the progressive one) gives it
// (docs/rolling-update.md, R5–R16 and R18).
func TestClassify(t *testing.T) {
	ready := &api.Pod{Name: "ready", Ready: true, ReadySince: t0.Add(-time.Hour)}
	unready := &api.Pod{Name: "unready"}
	young := &api.Pod{Name: "young", Ready: true, ReadySince: t0.Add(-5 * time.Second)}
	upstream := rollout.Classifier{MinReadySeconds: 10, Now: t0}
	strict := upstream
	strict.StrictBudgets = true
	combined := upstream
	combined.SurgeWithUnavailable = true
	cases := []struct {
		name, reason string
		cls          rollout.Classifier
		node         rollout.NodeView
		want         rollout.Class
	}{
		{name: "empty desired node", reason: "manage creates its pod; it counts as unavailable (R7) and surges nothing",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, Allowed: true},
			want: rollout.Class{Unavailable: true}},
		{name: "crowded", reason: "two pods of a kind: manage settles the node; unavailable without surge, surging with it (R6, R11)",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, Crowded: true, Allowed: true},
			want: rollout.Class{Unavailable: true, Surging: true}},
		{name: "available new pod", reason: "updated and available: counts as available, nothing to do",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, New: ready, Allowed: true},
			want: rollout.Class{Available: true}},
		{name: "new pod within minReadySeconds", reason: "Ready for 5 s of 10: unavailable without surge; with surge it is not counted as surging without an old pod (R11)",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, New: young, Allowed: true},
			want: rollout.Class{Unavailable: true}},
		{name: "available old pod", reason: "a candidate of both passes (R9, R13 case 4)",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, Old: ready, Allowed: true},
			want: rollout.Class{Replace: rollout.Candidate, Available: true, Surge: rollout.Candidate}},
		{name: "unavailable old pod", reason: "deleted at once without surge (R8), a new pod beside it at once with surge (R13 case 2)",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, Old: unready, Allowed: true},
			want: rollout.Class{Unavailable: true, Replace: rollout.DeleteForced, Surge: rollout.CreateForced}},
		{name: "unavailable old pod, node should not run", reason: "with surge deleted at once, no new pod (R13 case 1)",
			cls: upstream, node: rollout.NodeView{Present: true, Old: unready, Allowed: true},
			want: rollout.Class{Unavailable: true, Replace: rollout.DeleteForced, Surge: rollout.DeleteForced}},
		{name: "available old pod, node should not run", reason: "with surge deleted only while more pods are available than desired (R13 case 3, R15)",
			cls: upstream, node: rollout.NodeView{Present: true, Old: ready, Allowed: true},
			want: rollout.Class{Replace: rollout.Candidate, Available: true, Surge: rollout.DeleteSurplus}},
		{name: "old pod beside available new pod", reason: "with surge the old pod goes (R14); without, the node counts as unavailable",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, New: ready, Old: ready, Allowed: true},
			want: rollout.Class{Unavailable: true, Available: true, Surge: rollout.DeleteReplaced}},
		{name: "old pod beside unavailable new pod", reason: "the node surges (R11, R14)",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, New: unready, Old: ready, Allowed: true},
			want: rollout.Class{Unavailable: true, Available: true, Surging: true}},
		{name: "old pod on a vanished node", reason: "with surge upstream's node lookup fails (R16); without, a candidate",
			cls: upstream, node: rollout.NodeView{Old: ready, Allowed: true},
			want: rollout.Class{Replace: rollout.Candidate, Available: true, Surge: rollout.MissingNode}},
		{name: "outdated node outside the update set", reason: "not counted and not touched; its old pod still counts as available",
			cls: upstream, node: rollout.NodeView{Present: true, Desired: true, Old: unready},
			want: rollout.Class{}},
		{name: "strict: unavailable old pod", reason: "costs budget like any other, first in line",
			cls: strict, node: rollout.NodeView{Present: true, Desired: true, Old: unready, Allowed: true},
			want: rollout.Class{Replace: rollout.PriorityCandidate, Surge: rollout.PriorityCandidate}},
		{name: "strict: outside the update set", reason: "counted, but an unavailable old pod left alone costs nothing",
			cls: strict, node: rollout.NodeView{Present: true, Desired: true, Old: unready},
			want: rollout.Class{}},
		{name: "surge with unavailability: a desired node without an available pod", reason: "counts as down against maxUnavailable",
			cls: combined, node: rollout.NodeView{Present: true, Desired: true, New: unready, Pods: []*api.Pod{unready}, Allowed: true},
			want: rollout.Class{Unavailable: true, Down: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.cls.Classify(&tc.node)); diff != "" {
				t.Errorf("%s\nClassify() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestQuota: how many budgeted nodes a domain takes from its totals.
func TestQuota(t *testing.T) {
	cases := []struct {
		name, reason   string
		b              rollout.Budgets
		t              rollout.Tally
		surge, combine bool
		want           rollout.Quota
	}{
		{name: "room left", reason: "maxUnavailable 3 with 1 unavailable: two candidates (R9)",
			b: rollout.Budgets{Desired: 10, MaxUnavailable: 3}, t: rollout.Tally{Unavailable: 1, Candidates: 5},
			want: rollout.Quota{Candidates: 2}},
		{name: "over budget", reason: "more unavailable than allowed takes none, never a negative count",
			b: rollout.Budgets{Desired: 10, MaxUnavailable: 1}, t: rollout.Tally{Unavailable: 4, Candidates: 5},
			want: rollout.Quota{}},
		{name: "surge", reason: "maxSurge 2 with 1 surging: one create (R13 case 4); surplus deletes while available > desired (R15)",
			b: rollout.Budgets{Desired: 3, MaxSurge: 2}, t: rollout.Tally{Surging: 1, Available: 5, Candidates: 4, Surplus: 3}, surge: true,
			want: rollout.Quota{Candidates: 1, Surplus: 2}},
		{name: "surge with unavailability", reason: "after the surge creates, candidates beyond them lose their old pod while fewer than maxUnavailable are down",
			b: rollout.Budgets{Desired: 6, MaxSurge: 1, MaxUnavailable: 2}, t: rollout.Tally{Down: 1, Candidates: 4}, surge: true, combine: true,
			want: rollout.Quota{Candidates: 1, Down: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.b.Quota(tc.t, tc.surge, tc.combine)); diff != "" {
				t.Errorf("%s\nQuota() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
