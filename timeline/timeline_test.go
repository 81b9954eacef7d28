package timeline_test

import (
	"io"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// TestRun: each way a rollout ends, the steps it takes, each node's
// history and the summary.
func TestRun(t *testing.T) {
	tests := []struct {
		name, reason string
		nodes        int
		strategy     api.UpdateStrategy
		fate         func(string, *api.Pod) sim.Fate
		opts         timeline.Options
		steps        string
		rows         map[string]string // only the nodes named
		summary      string
	}{{
		name:     "converges, maxUnavailable 1",
		reason:   "each node in turn loses its old pod and gets a new one that is Ready 30s later: a step each; the sync after a write follows at once; the last sync writes nothing",
		nodes:    3,
		strategy: maxUnavailable(1),
		steps:    "0s:+0-1 u0 0s:+1-0 u0 0s:+0-0 u1 30s:+0-1 u1 30s:+1-0 u1 30s:+0-0 u2 1m0s:+0-1 u2 1m0s:+1-0 u2 1m0s:+0-0 u3 1m30s:+0-0 u3",
		rows: map[string]string{
			"node-0": "NotReady/r2@0s Ready/r2@30s",
			"node-2": "Ready/r1@0s NotReady/r2@1m0s Ready/r2@1m30s",
		},
		summary: "converged in 1m30s: 3 steps, 10 syncs",
	}, {
		name:     "converges, maxSurge 1",
		reason:   "a surge runs the new pod beside the old one until it is Ready; intervals then hold two pods",
		nodes:    2,
		strategy: maxSurge(1),
		steps:    "0s:+1-0 u0 0s:+0-0 u0 30s:+0-1 u0 30s:+1-0 u1 30s:+0-0 u1 1m0s:+0-1 u1 1m0s:+0-0 u2",
		rows: map[string]string{
			"node-0": "Ready/r1+NotReady/r2@0s Ready/r2@30s",
			"node-1": "Ready/r1@0s Ready/r1+NotReady/r2@30s Ready/r2@1m0s",
		},
		summary: "converged in 1m0s: 2 steps, 7 syncs",
	}, {
		name:     "stalls on a hanging pod and names it",
		reason:   "node-1's new pod never becomes Ready and holds the whole maxUnavailable of 1: nothing is left to wait for",
		nodes:    3,
		strategy: maxUnavailable(1),
		fate:     hangOn("node-1"),
		steps:    "0s:+0-1 u0 0s:+1-0 u0 0s:+0-0 u1 30s:+0-1 u1 30s:+1-0 u1 30s:+0-0 u2 1m0s:+0-0 u2",
		rows: map[string]string{
			"node-1": "Ready/r1@0s NotReady/r2@30s",
			"node-2": "Ready/r1@0s",
		},
		summary: "stalled after 1m0s (2 steps, 7 syncs): node-1 pod agent-bbbbh never became Ready; maxUnavailable 1 used up",
	}, {
		name:     "surge stalls on a hanging pod",
		reason:   "the hanging new pod holds the surge budget; the old pod stays Ready beside it",
		nodes:    2,
		strategy: maxSurge(1),
		fate:     hangOn("node-0"),
		steps:    "0s:+1-0 u0 0s:+0-0 u0 30s:+0-0 u0",
		rows: map[string]string{
			"node-0": "Ready/r1+NotReady/r2@0s",
		},
		summary: "stalled after 30s (1 steps, 3 syncs): node-0 pod agent-bbbbf never became Ready; maxSurge 1 used up",
	}, {
		name:     "every pod fails: the time limit names the node",
		reason:   "a pod that always fails is replaced after the growing backoff until the bound; the node keeps its failures",
		nodes:    1,
		strategy: maxUnavailable(1),
		fate:     timeline.Failures(1, 1),
		opts:     timeline.Options{MaxDuration: 10 * time.Minute},
		summary:  "stopped at the time limit after 7m14s (10 steps, 34 syncs): node-0 pod agent-bbbbp failed (10 failures on the node); maxUnavailable 1 used up",
	}, {
		name:     "sync limit",
		reason:   "the bound on syncs stops a rollout that would converge, and says so",
		nodes:    3,
		strategy: maxUnavailable(1),
		opts:     timeline.Options{MaxSyncs: 2},
		steps:    "0s:+0-1 u0 0s:+1-0 u0",
		summary:  "stopped at the sync limit after 0s (1 steps, 2 syncs): node-0 pod agent-bbbbg not Ready yet; maxUnavailable 1 used up",
	}, {
		name:     "OnDelete converges with outdated pods",
		reason:   "OnDelete replaces nothing by itself: one sync writes nothing and the old pods stay, counted as outdated",
		nodes:    2,
		strategy: onDelete,
		steps:    "0s:+0-0 u0",
		rows:     map[string]string{"node-0": "Ready/r1@0s"},
		summary:  "converged in 0s: 0 steps, 1 syncs; 2 outdated pods left (OnDelete: replaced once deleted)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := settled(t, tt.nodes, tt.strategy, 30*time.Second)
			c.FateOf = tt.fate
			c.Update(template("agent:v2"), "")
			tl := mustRun(t, c, tt.opts)
			if tt.steps != "" {
				if diff := cmp.Diff(tt.steps, steps(tl)); diff != "" {
					t.Errorf("steps mismatch (-want +got) (%s):\n%s", tt.reason, diff)
				}
			}
			got := rows(tl)
			for node, want := range tt.rows {
				if diff := cmp.Diff(want, got[node]); diff != "" {
					t.Errorf("%s mismatch (-want +got) (%s):\n%s", node, tt.reason, diff)
				}
			}
			if diff := cmp.Diff(tt.summary, tl.Summary()); diff != "" {
				t.Errorf("Summary() mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestFailuresSeeded: the same seed fails the same pods, another seed
// other pods, and the rate is about right.
func TestFailuresSeeded(t *testing.T) {
	run := func(seed uint64) *timeline.Timeline {
		c := settled(t, 40, maxUnavailable(4), 30*time.Second)
		c.FateOf = timeline.Failures(0.2, seed)
		c.Update(template("agent:v2"), "")
		return mustRun(t, c, timeline.Options{})
	}
	failed := func(tl *timeline.Timeline) []string {
		var out []string
		for _, n := range tl.Nodes {
			for _, f := range n.Failures {
				out = append(out, f.At.String()+" "+n.Name+" "+f.Pod)
			}
		}
		return out
	}
	a, b, other := run(7), run(7), run(8)
	require.Equal(t, timeline.Converged, a.Outcome, "a 20%% failure rate slows the rollout, it does not stop it: %s", a.Summary())
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different timelines (-first +second):\n%s", diff)
	}
	if cmp.Equal(failed(a), failed(other)) {
		t.Errorf("seeds 7 and 8 failed the same pods: %v", failed(a))
	}
	if n := len(failed(a)); n < 3 || n > 25 {
		t.Errorf("seed 7 failed %d pods of about 50 created, want about 20%%: %v", n, failed(a))
	}
	// The fate depends on the name only: the same name fails whatever
	// the node or the order of the calls.
	f := timeline.Failures(0.5, 3)
	pods := []string{"agent-a", "agent-b", "agent-c", "agent-d", "agent-e", "agent-f"}
	var first, again []sim.Fate
	for _, p := range pods {
		first = append(first, f("node-x", &api.Pod{Name: p}))
	}
	for i := len(pods) - 1; i >= 0; i-- {
		again = append([]sim.Fate{f("node-y", &api.Pod{Name: pods[i]})}, again...)
	}
	require.Equal(t, first, again, "fates must not depend on the node or call order")
	require.Equal(t, sim.BecomeReady, timeline.Failures(0, 3)(" ", &api.Pod{Name: "x"}), "rate 0 fails nothing")
	require.Equal(t, sim.Fail, timeline.Failures(1, 3)(" ", &api.Pod{Name: "x"}), "rate 1 fails everything")
}

// TestRunNil: a nil cluster is an error, not a panic.
func TestRunNil(t *testing.T) {
	_, err := timeline.Run(nil, timeline.Options{})
	require.ErrorIs(t, err, timeline.ErrNoCluster)
	require.ErrorIs(t, timeline.WriteHTML(io.Discard, nil, timeline.HTMLOptions{}), timeline.ErrNoTimeline)
}

// TestTerminating: an old pod found being deleted holds its node until
// its grace period ends; without one it never goes and the stall names it.
func TestTerminating(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		grace        time.Duration
		summary      string
	}{{
		name:    "goes after the grace period",
		reason:  "the controller creates the replacement once the terminating pod is gone",
		grace:   45 * time.Second,
		summary: "converged in 1m45s: 2 steps, 7 syncs",
	}, {
		name:    "never goes",
		reason:  "with no grace period the pod stays terminating and the node never gets a pod",
		summary: "stalled after 0s (0 steps, 1 syncs): node-1 pod agent-bbbbd is being deleted; maxUnavailable 1 used up",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			c := settled(t, 2, maxUnavailable(1), 30*time.Second)
			c.Update(template("agent:v2"), "")
			for i := range c.Pods {
				if c.Pods[i].NodeName == "node-1" {
					c.Pods[i].Deleting = true
				}
			}
			tl := mustRun(t, c, timeline.Options{Terminating: tt.grace})
			if diff := cmp.Diff(tt.summary, tl.Summary()); diff != "" {
				t.Errorf("Summary() mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestAfterSync: AfterSync sees every sync's plan once, in order, and the
// plans' writes are the ones the recording counts.
func TestAfterSync(t *testing.T) {
	c := settled(t, 4, maxUnavailable(1), 10*time.Second)
	c.Update(template("agent:v2"), "")
	var creates, deletes []int
	tl, err := timeline.Run(c, timeline.Options{AfterSync: func(p daemonplan.Plan) {
		creates, deletes = append(creates, len(p.Create)), append(deletes, len(p.Delete))
	}})
	require.NoError(t, err)
	require.Len(t, creates, len(tl.Syncs))
	for i, s := range tl.Syncs {
		require.Equal(t, s.Creates, creates[i], "sync %d", i)
		require.Equal(t, s.Deletes, deletes[i], "sync %d", i)
	}
	require.Equal(t, timeline.Converged, tl.Outcome)
}

// TestSurgedPodBecomesAvailable: with minReadySeconds, a surged pod that
// turns Ready after the old pod is available is waited for until it is
// available, as the controller's requeue on a pod turning Ready makes the
// next sync happen then (upstream: updatePod); the old pod then goes.
// Found by FuzzTimeline: the run stalled on the Ready, not yet available
// pod, since no plan asked for a requeue.
func TestSurgedPodBecomesAvailable(t *testing.T) {
	c := settled(t, 1, maxSurge(1), 49*time.Second)
	c.DaemonSet.MinReadySeconds = 5
	c.Update(template("agent:v2"), "")
	tl := mustRun(t, c, timeline.Options{})
	require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
	// Ready at 49s, available at 54s, the requeue one second later.
	require.Equal(t, "0s:+1-0 u0 0s:+0-0 u0 5s:+0-0 u0 49s:+0-0 u0 55s:+0-1 u0 55s:+0-0 u1", steps(tl))
}

// TestFailedPodOnAnIneligibleNode: a failed pod on a node that should not
// run the pod is deleted and nothing replaces it: the node's Failed
// interval ends with the deletion instead of lasting to the end, as on a
// node whose replacement is coming.
func TestFailedPodOnAnIneligibleNode(t *testing.T) {
	c := settled(t, 2, maxUnavailable(1), 10*time.Second)
	for i := range c.Pods {
		if c.Pods[i].NodeName == "node-1" {
			c.Pods[i].Phase, c.Pods[i].Ready = api.PodFailed, false
		}
	}
	c.Nodes[1].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
	tl := mustRun(t, c, timeline.Options{})
	require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
	n := tl.Nodes[1]
	require.Equal(t, "node-1", n.Name)
	require.Len(t, n.Failures, 1)
	last := n.Intervals[len(n.Intervals)-1]
	require.Empty(t, last.Pods, "no pod once the failed one is deleted: %+v", n.Intervals)
}

// TestFailedPodReplacedAtOnce: on a node that should run the pod, the
// sync that deletes a failed pod creates no replacement (the node still
// had a pod), and the controller's next sync, which its own delete
// triggers, creates it at once: the failure is recorded, the node shows
// no Failed interval (it lasts no time), and the pod after the failure is
// the replacement.
func TestFailedPodReplacedAtOnce(t *testing.T) {
	c := settled(t, 3, maxUnavailable(2), 10*time.Second)
	c.DaemonSet.MinReadySeconds = 5
	failedOnce := false
	c.FateOf = func(node string, _ *api.Pod) sim.Fate {
		if node == "node-1" && !failedOnce {
			failedOnce = true
			return sim.Fail
		}
		return sim.BecomeReady
	}
	c.Update(template("agent:v2"), "")
	tl := mustRun(t, c, timeline.Options{})
	require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
	n := tl.Nodes[1]
	require.Equal(t, "node-1", n.Name)
	require.Len(t, n.Failures, 1)
	f := n.Failures[0]
	i := slices.IndexFunc(n.Intervals, func(iv timeline.Interval) bool { return iv.From == f.At })
	require.GreaterOrEqual(t, i, 0, "no interval from the failure at %v: %+v", f.At, n.Intervals)
	next := n.Intervals[i].Pods
	require.Len(t, next, 1)
	require.NotEqual(t, f.Pod, next[0].Name, "the interval from the failure holds the replacement: %+v", n.Intervals)
	require.Equal(t, timeline.NotReady, next[0].State)
}

// TestUnclaimedPodsStop: a DaemonSet whose selector does not select the
// pods it creates (an invalid spec the controller plans all the same)
// creates a pod on every sync, forever. Run stops after the first such
// sync and names the stall, instead of simulating to the sync limit (a
// fuzzed CLI input took 20 s doing so).
func TestUnclaimedPodsStop(t *testing.T) {
	c := settled(t, 2, maxUnavailable(1), 10*time.Second)
	c.DaemonSet.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "elsewhere"}}
	tl := mustRun(t, c, timeline.Options{})
	require.Equal(t, timeline.Stalled, tl.Outcome, tl.Summary())
	require.Equal(t, timeline.Unclaimed, tl.Stall.Kind)
	require.Len(t, tl.Syncs, 1)
	require.Contains(t, tl.Stall.String(), "never claims the pods it creates")
	require.Empty(t, tl.Stall.Holders, "no node holds back a rollout whose pods are never claimed")

	// The same without a UID, which owns nothing.
	c = settled(t, 2, maxUnavailable(1), 10*time.Second)
	c.DaemonSet.UID = ""
	tl = mustRun(t, c, timeline.Options{})
	require.Equal(t, timeline.Unclaimed, tl.Stall.Kind, tl.Summary())
	require.Len(t, tl.Syncs, 1)
}

// TestStallCountsAsTheRollingUpdate: the holders and the budget come from
// the rolling update's decision table (rollout.Classify, Tally, Quota;
// docs/timeline.md, T4). node-1 no longer should run the pod (a NoSchedule
// taint) and its pod is being deleted for ever: the table counts the node
// as unavailable, so it uses up maxUnavailable 1 and node-0 never rolls. A
// diagnosis of its own, counting only nodes that should run a pod, named
// nobody.
func TestStallCountsAsTheRollingUpdate(t *testing.T) {
	c := settled(t, 2, maxUnavailable(1), 10*time.Second)
	c.Nodes[1].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoSchedule}}
	c.Update(template("agent:v2"), "")
	for i := range c.Pods {
		if c.Pods[i].NodeName == "node-1" {
			c.Pods[i].Deleting = true
		}
	}
	var pod string
	for _, p := range c.PodsOn("node-1") {
		pod = p.Name
	}
	tl := mustRun(t, c, timeline.Options{})
	want := &timeline.Stall{Kind: timeline.Stuck, Budget: "maxUnavailable 1 used up",
		Holders: []timeline.Holder{{Node: "node-1", Pod: pod, Why: "is being deleted"}}}
	if diff := cmp.Diff(want, tl.Stall); diff != "" {
		t.Errorf("Stall mismatch (-want +got):\n%s", diff)
	}
	require.Equal(t, "Ready/r1@0s", rows(tl)["node-0"], "node-0 never rolls")
}
