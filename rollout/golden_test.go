package rollout_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestGoldenRollouts renders whole rollouts of upstream's update_test.go
// (docs/rolling-update.md, Worked examples), sync by sync, with the nodes
// each sync picks (node-name order, docs/determinism.md, D2) and the delete
// reasons, into testdata/rollouts.golden. Regenerate with -update and read
// the diff before committing it.
func TestGoldenRollouts(t *testing.T) {
	controlPlane := api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	scenarios := []struct {
		name     string
		strategy api.UpdateStrategy
		tainted  bool // node-0 tainted control-plane:NoSchedule, tolerated by v1 only
		hangV1   bool // v1 pods never become Ready
	}{
		{name: "maxUnavailable 2, 5 nodes", strategy: maxUnavailable(api.Int(2))},
		{name: "maxSurge 2, 5 nodes", strategy: maxSurge(api.Int(2))},
		{name: "all old unready, maxUnavailable 3", strategy: maxUnavailable(api.Int(3)), hangV1: true},
		{name: "all old unready, maxSurge 3", strategy: maxSurge(api.Int(3)), hangV1: true},
		{name: "toleration removed, maxSurge 1", strategy: maxSurge(api.Int(1)), tainted: true},
	}
	var b strings.Builder
	for _, sc := range scenarios {
		fmt.Fprintf(&b, "== %s\n", sc.name)
		nodes := make([]api.Node, 5)
		for i := range nodes {
			nodes[i] = api.Node{Name: fmt.Sprintf("node-%d", i)}
		}
		v1 := simTemplate("v1")
		if sc.tainted {
			nodes[0].Taints = []api.Taint{controlPlane}
			v1.Tolerations = []api.Toleration{{Key: controlPlane.Key, Operator: api.TolerationOpExists}}
		}
		ds := api.DaemonSet{Namespace: "default", Name: "foo", UID: "uid-foo",
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}, UpdateStrategy: sc.strategy}
		c := sim.New(ds, v1, nodes, t0)
		if sc.hangV1 {
			c.FateOf = func(string, *api.Pod) sim.Fate { return sim.Hang }
		}
		trace(t, &b, c, false)
		c.FateOf = nil
		c.Update(simTemplate("v2"), "")
		fmt.Fprintln(&b, "-- update to v2")
		trace(t, &b, c, true)
	}
	got := b.String()
	path := filepath.Join("testdata", "rollouts.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("rollouts mismatch (-want +got):\n%s", diff)
	}
}

func simTemplate(image string) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "foo"}, RestartPolicy: "Always"}}
}

// trace syncs c, advancing ReadyAfter after each sync, until a sync does
// nothing, writing one line per sync when print is set: traceProgressive
// with nothing to react to (a plain RollingUpdate has no progress to note).
func trace(t *testing.T, b *strings.Builder, c *sim.Cluster, print bool) {
	t.Helper()
	traceProgressive(t, b, c, nil, print)
}
