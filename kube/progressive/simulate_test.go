package progressive_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
