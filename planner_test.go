package daemonplan_test

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
)

// errorText compares errors by their text: plans hold errors built anew
// by every sync.
var errorText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
})

// syncInput draws a whole sync input from the kit: any snapshot, with
// orphans, failed and terminating pods, revisions of a rollout, backoff
// windows, and pending expectations now and then.
func syncInput(t *rapid.T) daemonplan.Input {
	c := plantest.Snapshots(plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}).Draw(t, "snapshot")
	in := c.Input
	in.ExpectationsPending = rapid.IntRange(0, 9).Draw(t, "pending") == 0
	return in
}

// TestPlannerMatchesSync: a Planner that plans one input after another
// returns, every time, exactly the plan Sync returns for that input: the
// memory it keeps from earlier syncs never leaks into a later plan. The
// inputs follow one another as a controller's do: a new snapshot, the same
// one again, the same nodes shuffled, one node fewer, or one node another.
func TestPlannerMatchesSync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := daemonplan.Options{Placement: placement.Options{BurstReplicas: rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "burst")}}
		pl := daemonplan.NewPlanner(opts)
		in := syncInput(t)
		for step := range rapid.IntRange(1, 6).Draw(t, "syncs") {
			switch rapid.IntRange(0, 4).Draw(t, "next") {
			case 0:
				in = syncInput(t)
			case 1:
				// the same input again
			case 2:
				in.Nodes = rapid.Permutation(in.Nodes).Draw(t, "shuffled")
			case 3:
				if len(in.Nodes) > 0 {
					in.Nodes = in.Nodes[1:]
				}
			case 4:
				// as many nodes, one of them another
				if len(in.Nodes) > 0 {
					in.Nodes = slices.Clone(in.Nodes)
					in.Nodes[0].Name = "node-renamed"
				}
			}
			checkPlannerSync(t, step, pl, in, opts)
		}
	})
}

// TestPlannerAllocatesPerWrite: once it has synced a cluster twice, a Planner
// allocates as much for 100 nodes as for 3,000: what it allocates depends
// on the plan's writes (here the same burst of deletes), not on the nodes.
func TestPlannerAllocatesPerWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 3,000-node cluster")
	}
	bytesPerSync := func(n int) float64 {
		in := midRolloutSettled(n)
		in.DaemonSet.UpdateStrategy.RollingUpdate.MaxUnavailable = api.Int(50)
		pl := daemonplan.NewPlanner(daemonplan.Options{})
		for range 2 {
			if _, err := pl.Sync(in); err != nil {
				t.Fatal(err)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const syncs = 5
		for range syncs {
			if _, err := pl.Sync(in); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / syncs
	}
	small, large := bytesPerSync(100), bytesPerSync(3000)
	if large > 1.5*small {
		t.Errorf("a Planner allocates %.0f bytes per sync of 3,000 nodes and %.0f of 100: want about the same", large, small)
	}
}

// TestPlannerKeepsNodeDecisions: a Planner given nodes with a Version
// plans, every time, exactly what Sync plans, while it decides again only
// the nodes whose name or Version changed, or every node when the
// placement changed. The inputs change as a caller that keeps its promise
// changes them: a node whose labels or taints change gets a new Version;
// nodes come and go, are renamed and shuffled; the DaemonSet's nodeSelector,
// tolerations, template nodeName and hostNetwork change.
func TestPlannerKeepsNodeDecisions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := daemonplan.Options{Placement: placement.Options{IgnoredDuringExecution: rapid.Bool().Draw(t, "ignored")}}
		pl := daemonplan.NewPlanner(opts)
		in := syncInput(t)
		version := 0
		newVersion := func() string { version++; return fmt.Sprint("v", version) }
		in.Nodes = slices.Clone(in.Nodes)
		for i := range in.Nodes {
			in.Nodes[i].Version = newVersion()
		}
		for step := range rapid.IntRange(1, 8).Draw(t, "syncs") {
			checkPlannerSync(t, step, pl, in, opts)
			in.Nodes = slices.Clone(in.Nodes)
			for range rapid.IntRange(0, 3).Draw(t, "changes") {
				changeForMemo(t, &in, newVersion)
			}
		}
	})
}

// changeForMemo makes one change of TestPlannerKeepsNodeDecisions to in,
// whose node list is its own.
func changeForMemo(t *rapid.T, in *daemonplan.Input, newVersion func() string) {
	keys := []string{"kubernetes.io/os", "zone", "gpu"}
	if in.DaemonSet.Template.NodeSelector != nil {
		keys = append(keys, slices.Sorted(maps.Keys(in.DaemonSet.Template.NodeSelector))...)
	}
	node := func() *api.Node {
		if len(in.Nodes) == 0 {
			return nil
		}
		return &in.Nodes[rapid.IntRange(0, len(in.Nodes)-1).Draw(t, "node")]
	}
	switch rapid.IntRange(0, 6).Draw(t, "change") {
	case 0: // a node's label changes, with a new Version
		if n := node(); n != nil {
			n.Labels = maps.Clone(n.Labels)
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			k := rapid.SampledFrom(keys).Draw(t, "key")
			if rapid.Bool().Draw(t, "remove") {
				delete(n.Labels, k)
			} else {
				n.Labels[k] = rapid.SampledFrom([]string{"linux", "windows", "a", "true"}).Draw(t, "value")
			}
			n.Version = newVersion()
		}
	case 1: // a node's taints change, with a new Version
		if n := node(); n != nil {
			if len(n.Taints) > 0 {
				n.Taints = nil
			} else {
				n.Taints = []api.Taint{{Key: "dedicated", Effect: rapid.SampledFrom([]api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute}).Draw(t, "effect")}}
			}
			n.Version = newVersion()
		}
	case 2: // a node goes, or is renamed with its Version
		if n := node(); n != nil {
			if rapid.Bool().Draw(t, "rename") {
				n.Name += "-renamed"
			} else {
				i := int(n.Name[0]) % len(in.Nodes)
				in.Nodes = slices.Delete(in.Nodes, i, i+1)
			}
		}
	case 3: // a node comes, or a node without a Version
		if rapid.Bool().Draw(t, "unversioned") {
			if n := node(); n != nil {
				n.Version = ""
			}
		} else {
			in.Nodes = append(in.Nodes, api.Node{Name: fmt.Sprint("node-new-", newVersion()), Labels: map[string]string{"kubernetes.io/os": "linux"}, Version: newVersion()})
		}
	case 4:
		in.Nodes = rapid.Permutation(in.Nodes).Draw(t, "shuffled")
	case 5: // the nodeSelector changes
		ds := *in.DaemonSet
		ds.Template.NodeSelector = maps.Clone(ds.Template.NodeSelector)
		if ds.Template.NodeSelector == nil {
			ds.Template.NodeSelector = map[string]string{}
		}
		k := rapid.SampledFrom(keys).Draw(t, "key")
		if rapid.Bool().Draw(t, "remove") {
			delete(ds.Template.NodeSelector, k)
		} else {
			ds.Template.NodeSelector[k] = rapid.SampledFrom([]string{"linux", "windows", "a", "true"}).Draw(t, "value")
		}
		in.DaemonSet = &ds
	case 6: // the tolerations, the template's nodeName or hostNetwork change
		ds := *in.DaemonSet
		switch rapid.IntRange(0, 2).Draw(t, "what") {
		case 0:
			if len(ds.Template.Tolerations) > 0 {
				ds.Template.Tolerations = nil
			} else {
				ds.Template.Tolerations = []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpExists}}
			}
		case 1:
			ds.Template.NodeName = ""
			if n := node(); n != nil && rapid.Bool().Draw(t, "nodeName") {
				ds.Template.NodeName = n.Name
			}
		case 2:
			ds.Template.HostNetwork = !ds.Template.HostNetwork
		}
		in.DaemonSet = &ds
	}
}

// checkPlannerSync fails t unless pl's sync of in is Sync's, error included.
func checkPlannerSync(t *rapid.T, step int, pl *daemonplan.Planner, in daemonplan.Input, opts daemonplan.Options) {
	want, werr := daemonplan.Sync(in, opts)
	got, gerr := pl.Sync(in)
	if diff := cmp.Diff(werr, gerr, errorText); diff != "" {
		t.Fatalf("sync %d: Planner.Sync() error mismatch (-Sync +Planner):\n%s", step, diff)
	}
	if diff := cmp.Diff(want, got, errorText); diff != "" {
		t.Fatalf("sync %d: Planner.Sync() mismatch (-Sync +Planner):\n%s", step, diff)
	}
}
