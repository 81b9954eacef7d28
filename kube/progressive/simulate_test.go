package progressive_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/progressive"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

var simStart = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// simCluster is n nodes in zones a, b, c (node-i in the i%3-th), running
// agent:v1 Ready everywhere on OnDelete, then updated to agent:v2; new
// pods are Ready 1s after their creation and deleted pods go 1s later, as
// on the test bed.
func simCluster(t *testing.T, n int) *sim.Cluster {
	ds := api.DaemonSet{Namespace: "default", Name: "agent", UID: "uid-agent",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.OnDelete}}
	nodes := make([]api.Node, n)
	for i := range nodes {
		nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{rollout.LabelZone: string(rune('a' + i%3))}}
	}
	tpl := func(image string) sim.Template {
		return sim.Template{Image: image, PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "agent"}, RestartPolicy: "Always"}}
	}
	c := sim.New(ds, tpl("agent:v1"), nodes, simStart)
	c.ReadyAfter = time.Second
	_, err := timeline.Run(c, timeline.Options{})
	require.NoError(t, err)
	c.GracePeriod = time.Second
	c.Update(tpl("agent:v2"), "")
	return c
}

func changes(s *progressive.Simulation, from time.Time) []string {
	var out []string
	for _, ch := range s.Changes {
		e := fmt.Sprintf("%v %s", ch.At.Sub(from), ch.Phase)
		if ch.Zone != "" {
			e += " " + ch.Zone
		}
		if ch.Answer != "" {
			e += " (" + ch.Answer + ")"
		}
		if ch.Gate != "" {
			e += " [" + ch.Gate + "]"
		}
		out = append(out, e)
	}
	return out
}

// TestSimulation: the driver's phases in a simulated cluster, with the
// test bed's timings (docs/progressive-live.md): a canary of 2 of 4 nodes
// under maxUnavailable 1, promoted at once; 9 nodes zone by zone a → b → c
// under maxUnavailable 2, a pause point before zone c resumed at once.
func TestSimulation(t *testing.T) {
	n := func(v int) *intstr.IntOrString { x := intstr.FromInt32(int32(v)); return &x }
	t.Run("canary", func(t *testing.T) {
		c := simCluster(t, 4)
		from := c.Now
		s := progressive.NewSimulation(progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: n(2)}})
		s.Prepare(c)
		tl, err := timeline.Run(c, timeline.Options{BeforeSync: s.BeforeSync})
		require.NoError(t, err)
		require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
		require.Equal(t, []string{"0s Canary", "4s Canary (promote)", "4s Rest", "8s Done"}, changes(s, from))
		require.Equal(t, 8*time.Second, tl.Duration)
	})
	t.Run("zones", func(t *testing.T) {
		c := simCluster(t, 9)
		from := c.Now
		s := progressive.NewSimulation(progressive.Policy{MaxUnavailable: n(2), PauseBefore: []string{"zone:c"},
			Zones: &progressive.ZonesPolicy{Order: []string{"a", "b", "c"}}})
		s.Prepare(c)
		tl, err := timeline.Run(c, timeline.Options{BeforeSync: s.BeforeSync})
		require.NoError(t, err)
		require.Equal(t, timeline.Converged, tl.Outcome, tl.Summary())
		require.Equal(t, []string{"0s Zone a", "4s Zone b", "8s Zone c", "8s Zone c (resume)", "12s Done"}, changes(s, from))
		require.Equal(t, 12*time.Second, tl.Duration)
		// No node of a zone is touched before the zone before it is done.
		for _, nd := range tl.Nodes {
			i := 0
			fmt.Sscanf(nd.Name, "node-%d", &i)
			first := nd.Intervals[1].From
			zone := time.Duration(i%3) * 4 * time.Second
			require.GreaterOrEqual(t, first, zone, nd.Name)
			require.Less(t, first, zone+4*time.Second, nd.Name)
		}
	})
}

// TestSimulationGates: the gates judge simulated pods by the live rule.
// The test bed's never-ready scenario (6 nodes in zones a, b; canary 2,
// maxUnavailable 2, readyDeadline 10s), new pods never Ready within the
// run (Ready after an hour): the gate pauses 11 s after the canaries'
// creation (the deadline, then the simulation's one-second grain), at
// +12s; only the 2 canaries are touched, to the end of the run (the hour,
// when the pods turn Ready and the pause stands). Without the wake-up the
// gate would be seen only at that hour. Failed pods with onFailure Abort: the
// rollout aborts at the first sync that sees them.
func TestSimulationGates(t *testing.T) {
	n := func(v int) *intstr.IntOrString { x := intstr.FromInt32(int32(v)); return &x }
	t.Run("never ready", func(t *testing.T) {
		c := simCluster(t, 6)
		c.ReadyAfter = time.Hour
		from := c.Now
		s := progressive.NewSimulation(progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: n(2)}, MaxUnavailable: n(2),
			Zones: &progressive.ZonesPolicy{Order: []string{"a", "b"}},
			Gates: &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 10 * time.Second}}})
		s.Prepare(c)
		tl, err := timeline.Run(c, timeline.Options{BeforeSync: s.BeforeSync, Wake: s.Wake})
		require.NoError(t, err)
		require.Equal(t, timeline.Stalled, tl.Outcome, tl.Summary())
		got := changes(s, from)
		require.Len(t, got, 2, got)
		require.Equal(t, "0s Canary", got[0])
		require.Contains(t, got[1], "12s Canary [gate failed: pod ")
		require.Contains(t, got[1], "not Ready 11s after its creation (gate: Ready within 10s) (and 1 more pods)]")
		require.NotNil(t, s.State.Paused)
		require.Equal(t, progressive.ByGate, s.State.Paused.By)
		require.Equal(t, 2, touched(tl), "only the canaries are touched")
	})
	t.Run("crash loop, abort", func(t *testing.T) {
		// The test bed's crash-loop scenario: 6 nodes, canary 2,
		// maxUnavailable 2, maxRestarts 3, onFailure Abort, a ready
		// deadline far away; new pods crash-loop from 1s after their
		// creation, restarted after 1s, 2s, 4s, 8s: the 4th restart, 15s
		// after the first exit, aborts the rollout. The canaries are
		// created at 1s (the grace period), exit first at 2s: aborted at
		// 17s, no node beyond the 2 canaries touched.
		c := simCluster(t, 6)
		c.FateOf = timeline.Fates(0, 1, 1)
		c.CrashBackoff = time.Second
		from := c.Now
		s := progressive.NewSimulation(progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: n(2)}, MaxUnavailable: n(2),
			Gates: &progressive.Gates{MaxRestarts: ptr(int32(3)), OnFailure: progressive.ActionAbort, ReadyDeadline: metav1.Duration{Duration: 10 * time.Minute}}})
		s.Prepare(c)
		tl, err := timeline.Run(c, timeline.Options{BeforeSync: s.BeforeSync, Wake: s.Wake})
		require.NoError(t, err)
		require.Equal(t, timeline.Stalled, tl.Outcome, tl.Summary())
		got := changes(s, from)
		require.Equal(t, progressive.PhaseAborted, s.State.Phase, got)
		require.Contains(t, got[len(got)-1], "17s Aborted [gate failed: pod ")
		require.Contains(t, got[len(got)-1], "restarted 4 times (gate: at most 3) (and 1 more pods)]")
		require.Equal(t, 2, touched(tl), "only the canaries are touched")
	})
	t.Run("failed, abort", func(t *testing.T) {
		c := simCluster(t, 4)
		c.FateOf = timeline.Failures(1, 1)
		from := c.Now
		s := progressive.NewSimulation(progressive.Policy{MaxUnavailable: n(1), Gates: &progressive.Gates{OnFailure: progressive.ActionAbort}})
		s.Prepare(c)
		tl, err := timeline.Run(c, timeline.Options{BeforeSync: s.BeforeSync, Wake: s.Wake})
		require.NoError(t, err)
		require.Equal(t, timeline.Stalled, tl.Outcome, tl.Summary())
		got := changes(s, from)
		require.Equal(t, progressive.PhaseAborted, s.State.Phase, got)
		require.Contains(t, got[len(got)-1], "Aborted [gate failed: pod ")
		require.Contains(t, got[len(got)-1], " failed]")
	})
}

func ptr[T any](v T) *T { return &v }

// touched counts the nodes whose pods changed in the timeline.
func touched(tl *timeline.Timeline) int {
	n := 0
	for _, nd := range tl.Nodes {
		if len(nd.Intervals) > 1 {
			n++
		}
	}
	return n
}
