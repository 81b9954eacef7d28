package whatif_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/whatif"
)

// genStrategy draws a rolling update with or without surge, or OnDelete.
func genStrategy(t *rapid.T) api.UpdateStrategy {
	switch rapid.IntRange(0, 3).Draw(t, "strategy") {
	case 0:
		return api.UpdateStrategy{Type: api.OnDelete}
	case 1:
		return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(0), MaxSurge: api.Int(rapid.Int32Range(1, 2).Draw(t, "maxSurge"))}}
	}
	return maxUnavailable(rapid.Int32Range(1, 3).Draw(t, "maxUnavailable"))
}

// genCluster draws a cluster settled or with work pending (a rollout
// begun or not, nodes without their pod, pods being deleted), and the
// timing to simulate it with, a sync limit included.
func genCluster(t *rapid.T) (daemonplan.Input, whatif.Options) {
	n := rapid.IntRange(1, 6).Draw(t, "nodes")
	strategy := genStrategy(t)
	opts := whatif.Options{
		Terminating: rapid.SampledFrom([]time.Duration{0, 30 * time.Second}).Draw(t, "terminating"),
		GracePeriod: rapid.SampledFrom([]time.Duration{0, 10 * time.Second}).Draw(t, "gracePeriod"),
	}
	if rapid.IntRange(0, 4).Draw(t, "limited") == 0 {
		opts.MaxSyncs = rapid.IntRange(1, 10).Draw(t, "maxSyncs")
	}
	if rapid.IntRange(0, 3).Draw(t, "settled") == 0 {
		return settled(t, n, strategy), opts
	}
	syncs := rapid.IntRange(0, 3).Draw(t, "syncs")
	grace := rapid.SampledFrom([]time.Duration{0, 30 * time.Second}).Draw(t, "snapshotGrace")
	drop := rapid.SliceOfN(rapid.Bool(), n, n).Draw(t, "dropPod")
	return pendingCluster(t, n, strategy, syncs, grace, func(i int) bool { return drop[i] }), opts
}

// genNoOpEdit draws an edit that changes nothing the DaemonSet looks at:
// none, the same DaemonSet and nodes copied, a label no selector reads, a
// PreferNoSchedule taint, an annotation, another revision history limit.
func genNoOpEdit(t *rapid.T, before daemonplan.Input) daemonplan.Input {
	ds, nodes := before.DaemonSet.DeepCopy(), cloneNodes(before.Nodes)
	i := rapid.IntRange(0, len(nodes)-1).Draw(t, "node")
	switch rapid.IntRange(0, 5).Draw(t, "noOpEdit") {
	case 0:
		return daemonplan.Input{}
	case 1:
		return daemonplan.Input{DaemonSet: ds, Nodes: nodes}
	case 2:
		nodes[i].Labels["unrelated.example/x"] = "y"
		return daemonplan.Input{Nodes: nodes}
	case 3:
		nodes[i].Taints = append(nodes[i].Taints, api.Taint{Key: "soft", Effect: api.TaintEffectPreferNoSchedule})
		return daemonplan.Input{Nodes: nodes}
	case 4:
		ds.Annotations = map[string]string{}
		for k, v := range before.DaemonSet.Annotations {
			ds.Annotations[k] = v
		}
		ds.Annotations[api.AnnotationChangeCause] = "nothing"
		return daemonplan.Input{DaemonSet: ds}
	}
	limit := int32(3)
	ds.RevisionHistoryLimit = &limit
	return daemonplan.Input{DaemonSet: ds}
}

// genEdit draws a node edit, a spec edit, or both: nodes relabelled out
// of the pool or back, tainted or untainted, added or removed; another
// image, a toleration, a rollback to agent:v1, another nodeSelector,
// other budgets.
func genEdit(t *rapid.T, before daemonplan.Input) (daemonplan.Input, string) {
	kind := rapid.SampledFrom([]string{"node", "spec", "both"}).Draw(t, "editKind")
	var after daemonplan.Input
	if kind != "spec" {
		nodes := cloneNodes(before.Nodes)
		for i := range nodes {
			switch rapid.IntRange(0, 6).Draw(t, "nodeEdit") {
			case 0:
				nodes[i].Labels = map[string]string{"pool": "gpu"}
			case 1:
				nodes[i].Taints = []api.Taint{{Key: "maintenance", Effect: rapid.SampledFrom([]api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute}).Draw(t, "effect")}}
			case 2:
				nodes[i].Taints = nil
			}
		}
		if len(nodes) > 1 && rapid.Bool().Draw(t, "dropNode") {
			nodes = slices.Delete(nodes, 0, 1)
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "addNodes") {
			nodes = append(nodes, api.Node{Name: fmt.Sprintf("new-%d", i), Labels: map[string]string{"pool": "general"}})
		}
		after.Nodes = nodes
	}
	if kind != "node" {
		ds := before.DaemonSet.DeepCopy()
		switch rapid.IntRange(0, 4).Draw(t, "specEdit") {
		case 0:
			withTemplate(ds, "agent:v3", false)
		case 1:
			withTemplate(ds, "agent:v3", true)
		case 2:
			ds.TemplateData = slices.Clone(settled(t, 1, maxUnavailable(1)).DaemonSet.TemplateData)
		case 3:
			ds.Template.NodeSelector = map[string]string{"pool": "gpu"}
			ds.TemplateData = []byte(`{"image":"agent:v2","pool":"gpu"}`)
		case 4:
			if ds.UpdateStrategy.Type == api.RollingUpdate {
				ds.UpdateStrategy = maxUnavailable(rapid.Int32Range(1, 4).Draw(t, "newMaxUnavailable"))
			} else {
				ds.UpdateStrategy = maxUnavailable(1)
			}
		}
		after.DaemonSet = ds
	}
	return after, kind
}

// TestPropertyNoOpEditChangesNothing: an edit that changes nothing the
// DaemonSet reads reports every node Unchanged, on settled clusters and on
// clusters mid-rollout alike; what is pending is reported apart, as for
// no edit at all, and the rollout with the edit is the one without it.
func TestPropertyNoOpEditChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		before, opts := genCluster(t)
		after := genNoOpEdit(t, before)
		rep, err := whatif.Diff(before, after, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := (whatif.Counts{Unchanged: len(rep.Nodes)}); rep.Counts != want {
			t.Fatalf("an edit that changes nothing: %v\n%s", rep.Counts, rep.Table())
		}
		none, err := whatif.Diff(before, daemonplan.Input{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(none.Pending, rep.Pending); diff != "" {
			t.Fatalf("pending mismatch (-no edit +no-op edit):\n%s", diff)
		}
		if rep.Steps != rep.Pending.Steps || rep.Syncs != rep.Pending.Syncs || rep.Duration != rep.Pending.Duration || rep.Done != rep.Pending.Done {
			t.Fatalf("the rollout with the edit (%d steps, %d syncs, %v, done %v) is not the one without (%+v)",
				rep.Steps, rep.Syncs, rep.Duration, rep.Done, rep.Pending)
		}
	})
}

// TestPropertyEditAgainstPending: for node edits, spec edits and both, on
// settled clusters and clusters mid-rollout: every node whose decision the
// edit flips is listed (its change is not Unchanged, and the table names
// it); what is pending is the same whatever the edit (it is the cluster
// without it); both counts add up to the nodes; a node the edit leaves
// Unchanged ends as it would without the edit; neither input changes.
func TestPropertyEditAgainstPending(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		before, opts := genCluster(t)
		after, kind := genEdit(t, before)
		keepBefore, keepAfter := clone(before), after
		if after.DaemonSet != nil {
			keepAfter.DaemonSet = after.DaemonSet.DeepCopy()
		}
		keepAfter.Nodes = cloneNodes(after.Nodes)
		rep, err := whatif.Diff(before, after, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(keepBefore, before, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("before changed (-was +is):\n%s", diff)
		}
		if diff := cmp.Diff(keepAfter.DaemonSet, after.DaemonSet); diff != "" {
			t.Fatalf("after.DaemonSet changed (-was +is):\n%s", diff)
		}
		if diff := cmp.Diff(keepAfter.Nodes, after.Nodes, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("after.Nodes changed (-was +is):\n%s", diff)
		}
		none, err := whatif.Diff(before, daemonplan.Input{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		table := rep.Table()
		loaded := map[string]bool{}
		for _, p := range before.Pods {
			loaded[p.Name] = true
		}
		pendingOf := map[string]whatif.PendingChange{}
		for _, n := range none.Nodes {
			pendingOf[n.Node] = n.Pending
		}
		var counts, pending whatif.Counts
		for _, n := range rep.Nodes {
			counts = add(counts, n.Change)
			pending = add(pending, n.Pending.Change)
			flipped := n.Before.ShouldRun != n.After.ShouldRun || n.Before.ShouldContinueRunning != n.After.ShouldContinueRunning
			if !n.Added && !n.Removed && flipped {
				if n.Change == whatif.Unchanged {
					t.Fatalf("%s edit: node %s's decision goes from %+v to %+v, reported Unchanged:\n%s", kind, n.Node, n.Before, n.After, table)
				}
				if !strings.Contains(table, fmt.Sprintf("%-10s %s", n.Change, n.Node)) {
					t.Fatalf("%s edit: node %s's decision flips, the table does not list it:\n%s", kind, n.Node, table)
				}
			}
			want := whatif.PendingChange{Change: whatif.Unchanged}
			if !n.Added {
				want = pendingOf[n.Node]
			}
			if n.Pending != want {
				t.Fatalf("%s edit: node %s pending %+v, without any edit %+v", kind, n.Node, n.Pending, want)
			}
			// Pods the simulations create have each simulation's names.
			created := func(pod string) bool { return pod != "" && !loaded[pod] }
			if n.Change == whatif.Unchanged && n.WithEdit != n.WithoutEdit && !(created(n.WithEdit) && created(n.WithoutEdit)) {
				t.Fatalf("%s edit: node %s Unchanged, yet ends with %q, with %q without the edit:\n%s", kind, n.Node, n.WithEdit, n.WithoutEdit, table)
			}
		}
		if counts != rep.Counts || pending != rep.Pending.Counts {
			t.Fatalf("counts %v and %v, nodes say %v and %v", rep.Counts, rep.Pending.Counts, counts, pending)
		}
	})
}

func add(c whatif.Counts, ch whatif.Change) whatif.Counts {
	switch ch {
	case whatif.Unchanged:
		c.Unchanged++
	case whatif.Gains:
		c.Gains++
	case whatif.Loses:
		c.Loses++
	case whatif.Replaced:
		c.Replaced++
	case whatif.Outdated:
		c.Outdated++
	case whatif.NotYetReplaced:
		c.NotYetReplaced++
	case whatif.Keeps:
		c.Keeps++
	case whatif.DecisionChanged:
		c.DecisionChanged++
	}
	return c
}
