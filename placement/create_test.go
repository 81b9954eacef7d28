package placement_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/taints"
)

// TestCreatedPods checks what a create carries (docs/manage.md, M13): the
// template's labels with the generation and hash labels, the tolerations
// merged with the daemon defaults, and one metadata.name term replacing
// the template's required affinity.
func TestCreatedPods(t *testing.T) {
	secs := int64(300)
	defaults := taints.DaemonDefaults(false)
	cases := []struct {
		name   string
		reason string
		ds     func(*api.DaemonSet)
		hash   string
		want   placement.Create
	}{
		{
			name:   "generation and hash",
			reason: "both labels are added to the template's",
			ds: func(ds *api.DaemonSet) {
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "7"}
			},
			hash: "abc",
			want: placement.Create{
				Node:         "node-0",
				Labels:       map[string]string{"name": "simple-daemon", "type": "production", api.LabelTemplateGeneration: "7", api.LabelRevisionHash: "abc"},
				Tolerations:  defaults,
				NodeAffinity: placement.PodNodeAffinity("node-0"),
			},
		},
		{
			name:   "no generation annotation",
			reason: "without a template generation no generation label",
			hash:   "abc",
			want: placement.Create{
				Node:         "node-0",
				Labels:       map[string]string{"name": "simple-daemon", "type": "production", api.LabelRevisionHash: "abc"},
				Tolerations:  defaults,
				NodeAffinity: placement.PodNodeAffinity("node-0"),
			},
		},
		{
			name:   "unparsable generation and empty hash",
			reason: "an unparsable generation is nil; an empty hash adds no hash label",
			ds: func(ds *api.DaemonSet) {
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "seven"}
			},
			want: placement.Create{
				Node:         "node-0",
				Labels:       map[string]string{"name": "simple-daemon", "type": "production"},
				Tolerations:  defaults,
				NodeAffinity: placement.PodNodeAffinity("node-0"),
			},
		},
		{
			name:   "user tolerations merged",
			reason: "an identical not-ready toleration is replaced in place and loses tolerationSeconds; others are kept; hostNetwork adds network-unavailable",
			ds: func(ds *api.DaemonSet) {
				ds.Template.HostNetwork = true
				ds.Template.Tolerations = []api.Toleration{
					{Key: "dedicated", Operator: api.TolerationOpExists},
					{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
				}
			},
			hash: "abc",
			want: placement.Create{
				Node:   "node-0",
				Labels: map[string]string{"name": "simple-daemon", "type": "production", api.LabelRevisionHash: "abc"},
				Tolerations: []api.Toleration{
					{Key: "dedicated", Operator: api.TolerationOpExists},
					{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
					{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
					{Key: api.TaintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
					{Key: api.TaintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
					{Key: api.TaintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
					{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
					{Key: api.TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
				},
				NodeAffinity: placement.PodNodeAffinity("node-0"),
			},
		},
		{
			name:   "template affinity replaced",
			reason: "all required terms, matchFields and NotIn included, give way to one metadata.name In term",
			ds: func(ds *api.DaemonSet) {
				ds.Template.RequiredNodeAffinity = &api.NodeSelector{Terms: []api.NodeSelectorTerm{
					{MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: api.SelectorOpIn, Values: []string{"blue"}}}},
					{MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpNotIn, Values: []string{"node-9"}}}},
				}}
			},
			hash: "abc",
			want: placement.Create{
				Node:         "node-0",
				Labels:       map[string]string{"name": "simple-daemon", "type": "production", api.LabelRevisionHash: "abc"},
				Tolerations:  defaults,
				NodeAffinity: placement.PodNodeAffinity("node-0"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS()
			if tc.ds != nil {
				tc.ds(ds)
			}
			template := ds.Template.Tolerations
			nodes := []api.Node{{Name: "node-0", Labels: simpleNodeLabel}}
			p, _ := planAt(t, ds, nodes, nil, t0, tc.hash, nil)
			require.Len(t, p.Create, 1)
			if diff := cmp.Diff(tc.want, p.Create[0]); diff != "" {
				t.Errorf("%s\nManage() create mismatch (-want +got):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(template, ds.Template.Tolerations); diff != "" {
				t.Errorf("template tolerations changed (-want +got):\n%s", diff)
			}
		})
	}

	// The one term of the injected affinity, as upstream builds it.
	want := &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: api.SelectorOpIn, Values: []string{"node-3"}},
	}}}}
	if diff := cmp.Diff(want, placement.PodNodeAffinity("node-3")); diff != "" {
		t.Errorf("PodNodeAffinity() mismatch (-want +got):\n%s", diff)
	}
}

// TestSimpleDaemonSetScheduleDaemonSetPodsLaunchesPods: created pods are
// unbound and pinned to their node, one per node.
func TestSimpleDaemonSetScheduleDaemonSetPodsLaunchesPods(t *testing.T) {
	f := &fixture{ds: newDS()}
	f.addNodes(0, 5, nil)
	p, _ := f.plan(t, nil)
	var got []string
	for _, c := range p.Create {
		require.Len(t, c.NodeAffinity.Terms, 1)
		term := c.NodeAffinity.Terms[0]
		require.Empty(t, term.MatchExpressions)
		require.Len(t, term.MatchFields, 1)
		got = append(got, term.MatchFields[0].Values...)
	}
	want := []string{"node-0", "node-1", "node-2", "node-3", "node-4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Manage() pinned nodes mismatch (-want +got):\n%s", diff)
	}
}

// TestBurstReplicas: at most 250 creates and 250 deletes per plan, the
// first in node-name order; the rest wait for a later plan.
func TestBurstReplicas(t *testing.T) {
	cases := []struct {
		name               string
		reason             string
		opts               placement.Options
		nodes, dupes       int
		wantCreates        int
		wantDeletes        int
		wantSkippedCreates int
		wantSkippedDeletes int
		wantLastCreate     string
	}{
		{name: "300 creates", reason: "capped at 250, the first nodes by name", nodes: 300, wantCreates: 250, wantSkippedCreates: 50, wantLastCreate: "node-249"},
		{name: "exactly 250", reason: "no cut", nodes: 250, wantCreates: 250, wantLastCreate: "node-249"},
		{name: "300 deletes", reason: "300 duplicates: 250 deleted, 50 kept", nodes: 300, dupes: 300, wantDeletes: 250, wantSkippedDeletes: 50},
		{name: "custom burst", reason: "Options.BurstReplicas overrides 250", opts: placement.Options{BurstReplicas: 10}, nodes: 20, dupes: 15,
			wantCreates: 5, wantDeletes: 10, wantSkippedDeletes: 5, wantLastCreate: "node-019"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS()
			var nodes []api.Node
			var pods []api.Pod
			for i := range tc.nodes {
				name := fmt.Sprintf("node-%03d", i)
				nodes = append(nodes, api.Node{Name: name})
				if i < tc.dupes {
					for k := range 2 {
						pods = append(pods, api.Pod{Namespace: ds.Namespace, Name: fmt.Sprintf("%s-pod-%d", name, k), Labels: simpleDaemonSetLabel,
							Controller: &api.OwnerRef{UID: ds.UID}, NodeName: name, Phase: api.PodRunning, Created: t0})
					}
				}
			}
			c, err := placement.Compile(ds, tc.opts)
			require.NoError(t, err)
			ix, err := c.Index(nodes, pods)
			require.NoError(t, err)
			p, err := ix.Manage(t0, testHash, nil)
			require.NoError(t, err)
			type got struct{ Creates, Deletes, SkippedCreates, SkippedDeletes, Keep int }
			want := got{tc.wantCreates, tc.wantDeletes, tc.wantSkippedCreates, tc.wantSkippedDeletes, len(pods) - tc.wantDeletes}
			if diff := cmp.Diff(want, got{len(p.Create), len(p.Delete), p.SkippedCreates, p.SkippedDeletes, len(p.Keep)}); diff != "" {
				t.Errorf("%s\nManage() mismatch (-want +got):\n%s", tc.reason, diff)
			}
			if tc.wantLastCreate != "" {
				require.NotEmpty(t, p.Create)
				if diff := cmp.Diff(tc.wantLastCreate, p.Create[len(p.Create)-1].Node); diff != "" {
					t.Errorf("%s\nManage() last create mismatch (-want +got):\n%s", tc.reason, diff)
				}
			}
		})
	}
}

// TestBurstCutsInNodeOrder: the 250 creates are the first 250 nodes by
// name, and the 250 deletes those of the first 250 nodes visited.
func TestBurstCutsInNodeOrder(t *testing.T) {
	ds := newDS()
	var nodes []api.Node
	var pods []api.Pod
	for i := range 600 {
		name := fmt.Sprintf("node-%03d", i)
		nodes = append(nodes, api.Node{Name: name})
		if i >= 300 {
			for k := range 2 {
				pods = append(pods, api.Pod{Namespace: ds.Namespace, Name: fmt.Sprintf("pod-%03d-%d", i, k), Labels: simpleDaemonSetLabel,
					Controller: &api.OwnerRef{UID: ds.UID}, NodeName: name, Phase: api.PodRunning, Created: t0})
			}
		}
	}
	p, _ := planAt(t, ds, nodes, pods, t0, testHash, nil)
	require.Len(t, p.Create, 250)
	require.Len(t, p.Delete, 250)
	if diff := cmp.Diff([]string{"node-000", "node-249"}, []string{p.Create[0].Node, p.Create[249].Node}); diff != "" {
		t.Errorf("Manage() create range mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pod-300-1", "pod-549-1"}, []string{p.Delete[0].Pod, p.Delete[249].Pod}); diff != "" {
		t.Errorf("Manage() delete range mismatch (-want +got):\n%s", diff)
	}
}

func TestSlowStartBatches(t *testing.T) {
	cases := []struct {
		name   string
		reason string
		n      int
		want   []int
	}{
		{name: "0", reason: "no creates, no batch", n: 0, want: nil},
		{name: "1", reason: "one batch of one", n: 1, want: []int{1}},
		{name: "10", reason: "syncNodes slow start", n: 10, want: []int{1, 2, 4, 3}},
		{name: "100", reason: "syncNodes slow start", n: 100, want: []int{1, 2, 4, 8, 16, 32, 37}},
		{name: "250", reason: "syncNodes slow start, one full burst", n: 250, want: []int{1, 2, 4, 8, 16, 32, 64, 123}},
		{name: "15", reason: "powers of two fill exactly", n: 15, want: []int{1, 2, 4, 8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := placement.SlowStartBatches(tc.n)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nSlowStartBatches(%d) mismatch (-want +got):\n%s", tc.reason, tc.n, diff)
			}
		})
	}
}
