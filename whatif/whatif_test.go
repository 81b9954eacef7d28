package whatif_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/whatif"
)

var start = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func template(image string) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{
		Labels:       map[string]string{"app": "agent"},
		NodeSelector: map[string]string{"pool": "general"},
	}}
}

// settled returns a cluster of n nodes in pool "general" running agent:v1
// everywhere, every pod Ready, with the given strategy.
func settled(t require.TestingT, n int, strategy api.UpdateStrategy) daemonplan.Input {
	ds := api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "uid-agent",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: strategy}
	var nodes []api.Node
	for i := range n {
		nodes = append(nodes, api.Node{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{"pool": "general"}})
	}
	c := sim.New(ds, template("agent:v1"), nodes, start)
	for range 10 {
		p, err := c.Sync()
		require.NoError(t, err)
		c.Advance(c.ReadyAfter)
		if len(p.Create)+len(p.Delete) == 0 && p.Rollout.Done {
			break
		}
	}
	in := c.Input()
	in.DaemonSet = c.DaemonSet.DeepCopy()
	return in
}

func maxUnavailable(n int32) api.UpdateStrategy {
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(n), MaxSurge: api.Int(0)}}
}

// changes renders a report as node → change.
func changes(r whatif.Report) map[string]string {
	out := map[string]string{}
	for _, n := range r.Nodes {
		s := n.Change.String()
		if n.Why != 0 {
			s += "/" + n.Why.String()
		}
		out[n.Node] = s
	}
	return out
}

// TestDiff: each kind of edit, what it does to each node, and how many
// steps it takes.
func TestDiff(t *testing.T) {
	tests := []struct {
		name, reason string
		strategy     api.UpdateStrategy
		edit         func(ds *api.DaemonSet, nodes []api.Node) []api.Node
		want         map[string]string
		steps        int
		done         bool
	}{
		{
			name:     "no edit",
			reason:   "a settled cluster stays as it is",
			strategy: maxUnavailable(1),
			edit:     func(*api.DaemonSet, []api.Node) []api.Node { return nil },
			want:     map[string]string{"node-0": "Unchanged", "node-1": "Unchanged", "node-2": "Unchanged"},
			steps:    0, done: true,
		},
		{
			name:     "new template, maxUnavailable 1",
			reason:   "one node at a time: a delete, then a create, three times: three steps",
			strategy: maxUnavailable(1),
			edit: func(ds *api.DaemonSet, _ []api.Node) []api.Node {
				ds.TemplateData = []byte(`{"image":"agent:v2"}`)
				return nil
			},
			want:  map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced"},
			steps: 3, done: true,
		},
		{
			name:     "new template, maxUnavailable 3",
			reason:   "all nodes in one wave: one step (the deletes, then the creates that finish it)",
			strategy: maxUnavailable(3),
			edit: func(ds *api.DaemonSet, _ []api.Node) []api.Node {
				ds.TemplateData = []byte(`{"image":"agent:v2"}`)
				return nil
			},
			want:  map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced"},
			steps: 1, done: true,
		},
		{
			name:     "new template, OnDelete",
			reason:   "OnDelete leaves old pods until someone deletes them",
			strategy: api.UpdateStrategy{Type: api.OnDelete},
			edit: func(ds *api.DaemonSet, _ []api.Node) []api.Node {
				ds.TemplateData = []byte(`{"image":"agent:v2"}`)
				return nil
			},
			want:  map[string]string{"node-0": "Outdated", "node-1": "Outdated", "node-2": "Outdated"},
			steps: 0, done: true,
		},
		{
			name:     "node relabelled out of the pool",
			reason:   "the nodeSelector no longer matches: the pod is deleted and none comes back",
			strategy: maxUnavailable(1),
			edit: func(_ *api.DaemonSet, nodes []api.Node) []api.Node {
				nodes[1].Labels = map[string]string{"pool": "gpu"}
				return nodes
			},
			want:  map[string]string{"node-0": "Unchanged", "node-1": "Loses/NotEligible", "node-2": "Unchanged"},
			steps: 1, done: true,
		},
		{
			name:     "NoExecute taint",
			reason:   "an untolerated NoExecute taint evicts the pod",
			strategy: maxUnavailable(1),
			edit: func(_ *api.DaemonSet, nodes []api.Node) []api.Node {
				nodes[2].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
				return nodes
			},
			want:  map[string]string{"node-0": "Unchanged", "node-1": "Unchanged", "node-2": "Loses/UntoleratedTaint"},
			steps: 1, done: true,
		},
		{
			name:     "NoSchedule taint",
			reason:   "an untolerated NoSchedule taint lets the pod stay; the node is listed, its decision changes",
			strategy: maxUnavailable(1),
			edit: func(_ *api.DaemonSet, nodes []api.Node) []api.Node {
				nodes[2].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoSchedule}}
				return nodes
			},
			want:  map[string]string{"node-0": "Unchanged", "node-1": "Unchanged", "node-2": "DecisionChanged"},
			steps: 0, done: true,
		},
		{
			name:     "nodes added and removed",
			reason:   "a new node in the pool gains a pod; a removed node's pod is left to pod GC",
			strategy: maxUnavailable(1),
			edit: func(_ *api.DaemonSet, nodes []api.Node) []api.Node {
				return append(nodes[1:], api.Node{Name: "node-9", Labels: map[string]string{"pool": "general"}})
			},
			want:  map[string]string{"node-0": "Loses", "node-1": "Unchanged", "node-2": "Unchanged", "node-9": "Gains"},
			steps: 1, done: true,
		},
		{
			name:     "node removed, new template",
			reason:   "the rolling update also sees the pod bound to a removed node and deletes it as outdated (docs/rolling-update.md, R16): Why names it",
			strategy: maxUnavailable(3),
			edit: func(ds *api.DaemonSet, nodes []api.Node) []api.Node {
				ds.TemplateData = []byte(`{"image":"agent:v2"}`)
				return nodes[1:]
			},
			want:  map[string]string{"node-0": "Loses/Outdated", "node-1": "Replaced", "node-2": "Replaced"},
			steps: 1, done: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := settled(t, 3, tt.strategy)
			ds := before.DaemonSet.DeepCopy()
			nodes := slices.Clone(before.Nodes)
			for i := range nodes {
				nodes[i] = nodes[i].DeepCopy()
			}
			after := daemonplan.Input{DaemonSet: ds, Nodes: tt.edit(ds, nodes)}
			rep, err := whatif.Diff(before, after, whatif.Options{})
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, changes(rep)); diff != "" {
				t.Errorf("Diff() changes mismatch (-want +got):\n%s\nreason: %s\n%s", diff, tt.reason, rep.Table())
			}
			if rep.Steps != tt.steps || rep.Done != tt.done || !rep.Settled {
				t.Errorf("Diff() steps %d, settled %v, done %v; want %d steps, settled, done %v: %s\n%s",
					rep.Steps, rep.Settled, rep.Done, tt.steps, tt.done, tt.reason, rep.Table())
			}
		})
	}
}

// TestDiffBumpsGeneration: an edited template with the original's
// generation and template generation gets both bumped, as the API server
// would; otherwise old pods, labelled with the same template generation,
// would count as updated and nothing would roll.
func TestDiffBumpsGeneration(t *testing.T) {
	before := settled(t, 2, maxUnavailable(2))
	ds := before.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)
	rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds}, whatif.Options{})
	require.NoError(t, err)
	require.Equal(t, whatif.Counts{Replaced: 2}, rep.Counts)
}

// TestDiffDoesNotChangeInputs: Diff reads its inputs only.
func TestDiffDoesNotChangeInputs(t *testing.T) {
	before := settled(t, 3, maxUnavailable(1))
	ds := before.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)
	after := daemonplan.Input{DaemonSet: ds}
	keepBefore := clone(before)
	keepDS := ds.DeepCopy()
	_, err := whatif.Diff(before, after, whatif.Options{})
	require.NoError(t, err)
	if diff := cmp.Diff(keepBefore, before); diff != "" {
		t.Errorf("before changed (-was +is):\n%s", diff)
	}
	if diff := cmp.Diff(keepDS, ds); diff != "" {
		t.Errorf("after.DaemonSet changed (-was +is):\n%s", diff)
	}
}

func clone(in daemonplan.Input) daemonplan.Input {
	out := in
	out.DaemonSet = in.DaemonSet.DeepCopy()
	out.Nodes, out.Pods = nil, nil
	for _, n := range in.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	for _, p := range in.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	out.Revisions = slices.Clone(in.Revisions)
	return out
}

// TestPropertyDiff: for random edits of a settled cluster or one with work
// pending (nodes relabelled, tainted, added or removed; a new template;
// other budgets), the report lists every node once, in name order; its
// counts add up; a node only in the edited input can only gain a pod or
// stay without; no node that should run the pod loses it, and no node
// where pods may not continue ends with one; when the rollout is done,
// every node that should run the pod has one; OnDelete replaces no pod
// that runs.
func TestPropertyDiff(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		strategy := maxUnavailable(rapid.Int32Range(1, 3).Draw(t, "maxUnavailable"))
		if rapid.IntRange(0, 3).Draw(t, "onDelete") == 0 {
			strategy = api.UpdateStrategy{Type: api.OnDelete}
		}
		n := rapid.IntRange(1, 5).Draw(t, "nodes")
		before := settled(t, n, strategy)
		if rapid.Bool().Draw(t, "pending") {
			drop := rapid.SliceOfN(rapid.Bool(), n, n).Draw(t, "dropPod")
			before = pendingCluster(t, n, strategy, rapid.IntRange(0, 3).Draw(t, "syncs"), 0, func(i int) bool { return drop[i] })
		}
		ds := before.DaemonSet.DeepCopy()
		if rapid.Bool().Draw(t, "newTemplate") {
			ds.TemplateData = []byte(`{"image":"agent:v2"}`)
		}
		nodes := slices.Clone(before.Nodes)
		for i := range nodes {
			nodes[i] = nodes[i].DeepCopy()
			switch rapid.IntRange(0, 5).Draw(t, "nodeEdit") {
			case 0:
				nodes[i].Labels = map[string]string{"pool": "gpu"}
			case 1:
				nodes[i].Taints = []api.Taint{{Key: "maintenance", Effect: rapid.SampledFrom([]api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute}).Draw(t, "effect")}}
			}
		}
		if rapid.Bool().Draw(t, "dropNode") {
			nodes = nodes[1:]
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "addNodes") {
			nodes = append(nodes, api.Node{Name: fmt.Sprintf("new-%d", i), Labels: map[string]string{"pool": "general"}})
		}
		rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds, Nodes: nodes}, whatif.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Settled {
			t.Fatalf("did not settle:\n%s", rep.Table())
		}
		var names []string
		var counts whatif.Counts
		for _, n := range rep.Nodes {
			names = append(names, n.Node)
			switch n.Change {
			case whatif.Unchanged:
				counts.Unchanged++
			case whatif.Gains:
				counts.Gains++
			case whatif.Loses:
				counts.Loses++
			case whatif.Replaced:
				counts.Replaced++
			case whatif.Outdated:
				counts.Outdated++
			case whatif.NotYetReplaced:
				counts.NotYetReplaced++
			case whatif.Keeps:
				counts.Keeps++
			case whatif.DecisionChanged:
				counts.DecisionChanged++
			}
			if n.Added && n.Change != whatif.Gains && n.Change != whatif.Unchanged {
				t.Fatalf("added node %s: %v", n.Node, n.Change)
			}
			if n.Change == whatif.Loses && !n.Removed && n.After.ShouldRun {
				t.Fatalf("node %s loses its pod but should run one:\n%s", n.Node, rep.Table())
			}
			if rep.Done && !n.Removed && n.After.ShouldRun && n.WithEdit == "" {
				t.Fatalf("rollout done, node %s should run a pod and has none:\n%s", n.Node, rep.Table())
			}
			if !n.Removed && !n.After.ShouldContinueRunning && n.WithEdit != "" {
				t.Fatalf("node %s may not keep a pod, yet ends with %s (%v):\n%s", n.Node, n.WithEdit, n.Change, rep.Table())
			}
			if strategy.Type == api.OnDelete && n.Pod != "" && n.WithEdit != n.Pod && n.After.ShouldContinueRunning {
				t.Fatalf("OnDelete replaced the pod of %s:\n%s", n.Node, rep.Table())
			}
		}
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Fatalf("nodes not sorted and unique: %v", names)
		}
		if counts != rep.Counts {
			t.Fatalf("counts %+v, nodes say %+v", rep.Counts, counts)
		}
		if len(rep.Nodes) < len(nodes) {
			t.Fatalf("%d nodes reported, %d in the edited input", len(rep.Nodes), len(nodes))
		}
	})
}

// TestDiffTerminating: a pod found being deleted holds its node until it
// goes. With Options.Terminating it goes after that long and the node is
// replaced like the others; with 0 it never goes, as in timeline.
func TestDiffTerminating(t *testing.T) {
	tests := []struct {
		name, reason string
		terminating  time.Duration
		want         map[string]string
		done         bool
	}{
		{"goes after 30s", "the terminating pod goes and node-0 gets a pod of the new template instead of one of the old (a pod being deleted is not the one a node runs, W4): Replaced, and Gains anyway; node-1 is replaced",
			30 * time.Second, map[string]string{"node-0": "Replaced", "node-1": "Replaced"}, true},
		{"never goes", "the terminating pod counts as unavailable for ever: maxUnavailable 1 is used up and nothing rolls; node-1 still runs the old template, which is not unchanged but not yet replaced; node-0 has no pod and waits for one either way",
			0, map[string]string{"node-0": "Unchanged", "node-1": "NotYetReplaced"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := settled(t, 2, maxUnavailable(1))
			for i := range before.Pods {
				if before.Pods[i].NodeName == "node-0" {
					before.Pods[i].Deleting = true
				}
			}
			ds := before.DaemonSet.DeepCopy()
			ds.TemplateData = []byte(`{"image":"agent:v2"}`)
			rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds}, whatif.Options{Terminating: tt.terminating})
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, changes(rep)); diff != "" {
				t.Errorf("changes (-want +got) (%s):\n%s", tt.reason, diff)
			}
			require.Equal(t, tt.done, rep.Done, tt.reason)
		})
	}
}
