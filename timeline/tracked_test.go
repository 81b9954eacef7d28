package timeline_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// trackedScenario is a generated rollout for the tracked-versus-whole
// property: a settled cluster, a strategy, minReadySeconds, a grace
// period, pods already being deleted, fates, and the bounds.
type trackedScenario struct {
	scenario
	minReady    int32
	grace       time.Duration
	terminating time.Duration
	deleting    []int // nodes whose pod is found being deleted
}

func genTrackedScenario(t *rapid.T) trackedScenario {
	s := trackedScenario{scenario: genScenario(t)}
	s.nodes = rapid.IntRange(1, 12).Draw(t, "moreNodes")
	for i := range s.nodes {
		if _, ok := s.fates[fmt.Sprintf("node-%d", i)]; !ok {
			s.fates[fmt.Sprintf("node-%d", i)] = sim.BecomeReady
		}
	}
	s.minReady = int32(rapid.SampledFrom([]int{0, 0, 5, 40}).Draw(t, "minReady"))
	s.grace = time.Duration(rapid.SampledFrom([]int{0, 1, 30, 90}).Draw(t, "grace")) * time.Second
	s.terminating = time.Duration(rapid.SampledFrom([]int{0, 20}).Draw(t, "terminating")) * time.Second
	s.deleting = rapid.SliceOfNDistinct(rapid.IntRange(0, s.nodes-1), 0, 2, rapid.ID[int]).Draw(t, "deleting")
	s.opts.MaxSyncs = rapid.IntRange(1, 200).Draw(t, "maxSyncs")
	s.opts.Terminating = s.terminating
	return s
}

// cluster builds the scenario's cluster, settled by whole syncs or by a
// tracked cluster, then updated to agent:v2.
func (s trackedScenario) cluster(t require.TestingT, whole bool) *sim.Cluster {
	ds := api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "uid-agent",
		Selector:        &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy:  s.strategy,
		MinReadySeconds: s.minReady}
	nodes := make([]api.Node, s.nodes)
	for i := range nodes {
		nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i)}
	}
	c := sim.New(ds, template("agent:v1"), nodes, start)
	c.ReadyAfter = s.readyAfter
	c.GracePeriod = s.grace
	_, err := timeline.Run(c, timeline.Options{WholeSyncs: whole, MaxSyncs: 1000})
	require.NoError(t, err)
	// Pods found being deleted: marked as sim.FromInput would find them.
	in := c.Input()
	for _, i := range s.deleting {
		for j := range in.Pods {
			if in.Pods[j].NodeName == fmt.Sprintf("node-%d", i) && !in.Pods[j].Deleting {
				in.Pods[j].Deleting = true
			}
		}
	}
	c = sim.FromInput(in)
	c.ReadyAfter = s.readyAfter
	c.GracePeriod = s.grace
	failures := timeline.Failures(s.failRate, 42)
	c.FateOf = func(node string, p *api.Pod) sim.Fate {
		if f := s.fates[node]; f != sim.BecomeReady {
			return f
		}
		return failures(node, p)
	}
	c.Update(template("agent:v2"), "")
	return c
}

// TestTrackedRunEqualsWholeSyncs: a run on a tracked cluster (a
// daemonplan.Tracker, queued pod events, only changed nodes observed) records
// the same timeline as one of whole syncs looking at every pod and node
// after each, and leaves the cluster in the same state, on generated
// rollouts with grace periods, minReadySeconds, pods found being deleted,
// failures and hangs.
func TestTrackedRunEqualsWholeSyncs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genTrackedScenario(t)
		whole := s.opts
		whole.WholeSyncs = true
		cw := s.cluster(t, true)
		want, err := timeline.Run(cw, whole)
		if err != nil {
			t.Fatalf("whole Run: %v", err)
		}
		ct := s.cluster(t, false)
		got, err := timeline.Run(ct, s.opts)
		if err != nil {
			t.Fatalf("tracked Run: %v", err)
		}
		if ct.Tracked() {
			t.Fatal("Run left the cluster tracked")
		}
		require.Equal(t, want, got, "timeline")
		require.Equal(t, cw.Now, ct.Now, "clock")
		require.Equal(t, cw.DaemonSet, ct.DaemonSet, "DaemonSet")
		require.Equal(t, cw.Revisions, ct.Revisions, "revisions")
		require.Equal(t, cw.Backoff, ct.Backoff, "backoff")
		require.Equal(t, sortedPods(cw.Pods), sortedPods(ct.Pods), "pods")
	})
}

func sortedPods(pods []api.Pod) []api.Pod {
	out := slices.Clone(pods)
	slices.SortFunc(out, func(a, b api.Pod) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
