package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

// start is the simulated clock's origin.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func unavailableStrategy(n int32) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(n), MaxSurge: api.Int(0)}}
}

func surgeStrategy(n int32) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(0), MaxSurge: api.Int(n)}}
}

func daemonSet(strategy api.UpdateStrategy) api.DaemonSet {
	return api.DaemonSet{
		Namespace:      "default",
		Name:           "foo",
		UID:            "uid-foo",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
		UpdateStrategy: strategy,
	}
}

func template(image string, tols ...api.Toleration) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{
		Labels:        map[string]string{"app": "foo"},
		RestartPolicy: "Always",
		Tolerations:   tols,
	}}
}

func plainNodes(n int) []api.Node {
	nodes := make([]api.Node, n)
	for i := range nodes {
		nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i)}
	}
	return nodes
}

// syncCount renders what one sync did: "create 2", "delete 1",
// "create 1, delete 1" or "nothing".
func syncCount(p daemonplan.Plan) string {
	var parts []string
	if n := len(p.Create); n > 0 {
		parts = append(parts, fmt.Sprintf("create %d", n))
	}
	if n := len(p.Delete); n > 0 {
		parts = append(parts, fmt.Sprintf("delete %d", n))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// syncOnce runs one sync, fails the test on any error, and returns the
// plan.
func syncOnce(t testing.TB, c *sim.Cluster) daemonplan.Plan {
	t.Helper()
	p, err := c.Sync()
	require.NoError(t, err)
	require.Empty(t, p.Errors)
	return p
}

// untilQuiet syncs, advancing the clock by ReadyAfter after each sync (so
// pods created by one sync are Ready at the next), until a sync does
// nothing, and returns what each sync did, the final "nothing" included.
func untilQuiet(t testing.TB, c *sim.Cluster, limit int) []string {
	t.Helper()
	var seq []string
	for range limit {
		p := syncOnce(t, c)
		seq = append(seq, syncCount(p))
		if seq[len(seq)-1] == "nothing" {
			return seq
		}
		c.Advance(c.ReadyAfter)
	}
	t.Fatalf("no quiet sync within %d syncs: %v", limit, seq)
	return nil
}

// running starts a cluster on nodes and rolls out its first template, so
// that every eligible node runs a Ready pod of image v1.
func running(t testing.TB, strategy api.UpdateStrategy, nodes []api.Node, tols ...api.Toleration) *sim.Cluster {
	t.Helper()
	c := sim.New(daemonSet(strategy), template("v1", tols...), nodes, start)
	untilQuiet(t, c, 10)
	return c
}

// images counts the running pods per image of c.
func images(c *sim.Cluster) map[string]int {
	out := map[string]int{}
	byHash := map[string]string{}
	for _, r := range c.Revisions {
		byHash[r.Labels[api.LabelRevisionHash]] = imageOf(r.Data)
	}
	for _, p := range c.Pods {
		out[byHash[p.Labels[api.LabelRevisionHash]]]++
	}
	return out
}

// imageOf reads the image out of a revision's data as sim encodes it.
func imageOf(data []byte) string {
	s := string(data)
	i := strings.Index(s, `"image":"`)
	if i < 0 {
		return ""
	}
	s = s[i+len(`"image":"`):]
	return s[:strings.IndexByte(s, '"')]
}
