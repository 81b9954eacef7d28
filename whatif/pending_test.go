package whatif_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/whatif"
)

// pendingCluster returns a cluster of n nodes with work pending: settled
// on agent:v1, its template then changed to agent:v2 and synced syncs
// times (0: the rollout not begun; deleted pods take grace to go), and the
// pods of the nodes drop names gone (nodes about to get their pod back).
func pendingCluster(t require.TestingT, n int, strategy api.UpdateStrategy, syncs int, grace time.Duration, drop func(i int) bool) daemonplan.Input {
	in := settled(t, n, strategy)
	ds := in.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)
	edited, err := whatif.Edit(in, daemonplan.Input{DaemonSet: ds})
	require.NoError(t, err)
	c := sim.FromInput(edited)
	c.GracePeriod = grace
	for range syncs {
		_, err := c.Sync()
		require.NoError(t, err)
		c.Advance(5 * time.Second)
	}
	out := c.Input()
	out.DaemonSet = c.DaemonSet.DeepCopy()
	out.Nodes = slices.Clone(out.Nodes)
	dropped := map[string]bool{}
	for i := range out.Nodes {
		dropped[out.Nodes[i].Name] = drop(i)
	}
	out.Pods = slices.DeleteFunc(slices.Clone(out.Pods), func(p api.Pod) bool { return dropped[p.NodeName] })
	out.Revisions = slices.Clone(out.Revisions)
	return out
}

// cloneNodes returns a deep copy of nodes, to edit.
func cloneNodes(nodes []api.Node) []api.Node {
	out := make([]api.Node, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].DeepCopy()
	}
	return out
}

// pendings renders a report's pending changes as node → change.
func pendings(r whatif.Report) map[string]string {
	out := map[string]string{}
	for _, n := range r.Nodes {
		s := n.Pending.Change.String()
		if n.Pending.Why != 0 {
			s += "/" + n.Pending.Why.String()
		}
		out[n.Node] = s
	}
	return out
}

// withTemplate sets ds's template to image, tolerating the maintenance
// taint when tolerate is set (a new revision either way).
func withTemplate(ds *api.DaemonSet, image string, tolerate bool) {
	ds.TemplateData = []byte(`{"image":"` + image + `"}`)
	if tolerate {
		ds.Template.Tolerations = append(slices.Clone(ds.Template.Tolerations), api.Toleration{Key: "maintenance", Operator: api.TolerationOpExists})
		ds.TemplateData = []byte(`{"image":"` + image + `","tolerates":"maintenance"}`)
	}
}

// TestDiffComparesWithoutTheEdit is issue 39's reproducer: five nodes, a
// rollout to agent:v2 pending (every pod of agent:v1) and node-3 without
// its pod, about to get one. A NoExecute taint on node-3 changes node-3
// alone: it no longer gets the pod it would get. The other nodes are
// replaced with or without the edit: that is pending anyway, reported
// apart, not the edit's doing. The other cases are the same cluster under
// a spec edit, and under both kinds at once.
func TestDiffComparesWithoutTheEdit(t *testing.T) {
	pendingAnyway := map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced", "node-3": "Gains", "node-4": "Replaced"}
	tests := []struct {
		name, reason string
		edit         func(ds *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node)
		want         map[string]string
	}{{
		name:   "NoExecute taint on the node about to get a pod",
		reason: "node-3 no longer gets the pod it would get; the others are replaced either way",
		edit: func(_ *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			nodes[3].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
			return nil, nodes
		},
		want: map[string]string{"node-0": "Unchanged", "node-1": "Unchanged", "node-2": "Unchanged", "node-3": "Loses", "node-4": "Unchanged"},
	}, {
		name:   "label moves a node out of the pool",
		reason: "node-1 loses its pod instead of having it replaced; no other node changes",
		edit: func(_ *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			nodes[1].Labels = map[string]string{"pool": "gpu"}
			return nil, nodes
		},
		want: map[string]string{"node-0": "Unchanged", "node-1": "Loses/NotEligible", "node-2": "Unchanged", "node-3": "Unchanged", "node-4": "Unchanged"},
	}, {
		name:   "NoSchedule taint",
		reason: "node-2's pod is replaced either way (the rolling update creates on nodes that should run the pod, and NoSchedule says it should not: the replacement does not come); node-0 keeps its decision",
		edit: func(_ *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			nodes[2].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoSchedule}}
			return nil, nodes
		},
		want: map[string]string{"node-0": "Unchanged", "node-1": "Unchanged", "node-2": "Loses/Outdated", "node-3": "Unchanged", "node-4": "Unchanged"},
	}, {
		name:   "another template",
		reason: "every node ends on agent:v3 instead of agent:v2: node-3 too, which gets a pod either way",
		edit: func(ds *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			withTemplate(ds, "agent:v3", false)
			return ds, nil
		},
		want: map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced", "node-3": "Replaced", "node-4": "Replaced"},
	}, {
		name:   "rollback to the pods' template",
		reason: "the nodes keep their agent:v1 pods, which would be replaced; node-3 gets one of agent:v1 instead of agent:v2",
		edit: func(ds *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			ds.TemplateData = slices.Clone(settled(t, 1, maxUnavailable(1)).DaemonSet.TemplateData)
			return ds, nil
		},
		want: map[string]string{"node-0": "Keeps", "node-1": "Keeps", "node-2": "Keeps", "node-3": "Replaced", "node-4": "Keeps"},
	}, {
		name:   "both: another template and the taint",
		reason: "node-3 no longer gets a pod; the others end on agent:v3",
		edit: func(ds *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			withTemplate(ds, "agent:v3", false)
			nodes[3].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
			return ds, nodes
		},
		want: map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced", "node-3": "Loses", "node-4": "Replaced"},
	}, {
		name:   "both: the taint and a template that tolerates it",
		reason: "the new toleration outweighs the taint: node-3 gets its pod either way, of the new template with the edit",
		edit: func(ds *api.DaemonSet, nodes []api.Node) (*api.DaemonSet, []api.Node) {
			withTemplate(ds, "agent:v2", true)
			nodes[3].Taints = []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}
			return ds, nodes
		},
		want: map[string]string{"node-0": "Replaced", "node-1": "Replaced", "node-2": "Replaced", "node-3": "Replaced", "node-4": "Replaced"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := pendingCluster(t, 5, maxUnavailable(1), 0, 0, func(i int) bool { return i == 3 })
			keep := clone(before)
			ds, nodes := tt.edit(before.DaemonSet.DeepCopy(), cloneNodes(before.Nodes))
			rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds, Nodes: nodes}, whatif.Options{})
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, changes(rep)); diff != "" {
				t.Errorf("Diff() changes mismatch (-want +got) (%s):\n%s\n%s", tt.reason, diff, rep.Table())
			}
			if diff := cmp.Diff(pendingAnyway, pendings(rep)); diff != "" {
				t.Errorf("Diff() pending mismatch (-want +got): what the cluster does without the edit does not depend on it:\n%s\n%s", diff, rep.Table())
			}
			want := whatif.Counts{Replaced: 4, Gains: 1}
			if diff := cmp.Diff(want, rep.Pending.Counts); diff != "" {
				t.Errorf("Diff() pending counts mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(keep, before); diff != "" {
				t.Errorf("before changed (-was +is):\n%s", diff)
			}
		})
	}
}
