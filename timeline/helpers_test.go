package timeline_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// start is the simulated clock's origin.
var start = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

func maxUnavailable(n int32) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(n), MaxSurge: api.Int(0)}}
}

func maxSurge(n int32) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(0), MaxSurge: api.Int(n)}}
}

var onDelete = api.UpdateStrategy{Type: api.OnDelete}

func template(image string) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{
		Labels:        map[string]string{"app": "agent"},
		RestartPolicy: "Always",
	}}
}

// settled returns a cluster of n nodes running agent:v1 everywhere, every
// pod Ready, with the given strategy; new pods take readyAfter.
func settled(t require.TestingT, n int, strategy api.UpdateStrategy, readyAfter time.Duration) *sim.Cluster {
	ds := api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "uid-agent",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: strategy}
	nodes := make([]api.Node, n)
	for i := range nodes {
		nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i)}
	}
	c := sim.New(ds, template("agent:v1"), nodes, start)
	c.ReadyAfter = readyAfter
	_, err := timeline.Run(c, timeline.Options{})
	require.NoError(t, err)
	return c
}

// hangOn is a FateOf that hangs the new pods of the named nodes.
func hangOn(nodes ...string) func(string, *api.Pod) sim.Fate {
	return func(node string, _ *api.Pod) sim.Fate {
		for _, n := range nodes {
			if n == node {
				return sim.Hang
			}
		}
		return sim.BecomeReady
	}
}

// steps renders the syncs as "at:+creates-deletes" with the updated count,
// e.g. "0s:+0-1 u2".
func steps(tl *timeline.Timeline) string {
	var parts []string
	for _, s := range tl.Syncs {
		parts = append(parts, fmt.Sprintf("%v:+%d-%d u%d", s.At, s.Creates, s.Deletes, s.Updated))
	}
	return strings.Join(parts, " ")
}

// rows renders each node's intervals as "state@from" lists, pods as
// their state and hash's revision number.
func rows(tl *timeline.Timeline) map[string]string {
	num := map[string]int64{}
	for _, r := range tl.Revisions {
		num[r.Hash] = r.Number
	}
	out := map[string]string{}
	for _, n := range tl.Nodes {
		var parts []string
		for _, iv := range n.Intervals {
			var ps []string
			for _, p := range iv.Pods {
				ps = append(ps, fmt.Sprintf("%v/r%d", p.State, num[p.Hash]))
			}
			if len(ps) == 0 {
				ps = []string{"none"}
			}
			parts = append(parts, fmt.Sprintf("%s@%v", strings.Join(ps, "+"), iv.From))
		}
		out[n.Name] = strings.Join(parts, " ")
	}
	return out
}

// mustRun runs the simulation and checks the recording's invariants.
func mustRun(t testing.TB, c *sim.Cluster, opts timeline.Options) *timeline.Timeline {
	t.Helper()
	tl, err := timeline.Run(c, opts)
	require.NoError(t, err)
	require.NoError(t, tl.Check())
	return tl
}
