package placement_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/placement"
)

// buckets renders a cluster's buckets as node → pod names, vanished nodes
// included.
func buckets(ix *placement.Index) map[string][]string {
	out := map[string][]string{}
	for b := range ix.Buckets("") {
		for _, p := range b.Pods {
			out[b.Node] = append(out[b.Node], p.Name)
		}
	}
	return out
}

func podNames(ps []*api.Pod) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// TestGetNodesToDaemonPods: buckets hold matching owned pods, matching
// orphans and terminal pods not being deleted; not non-matching pods,
// pods of another owner, or terminal pods being deleted (those still count
// as claimed and targeted, for revision cleanup).
func TestGetNodesToDaemonPods(t *testing.T) {
	f := &fixture{ds: newDS()}
	f.addNodes(0, 2, nil)
	f.addPods("node-0", simpleDaemonSetLabel, 1)                    // 00 matching
	f.addPods("node-1", simpleDaemonSetLabel, 1, orphan)            // 01 matching orphan
	f.addPods("node-0", simpleDaemonSetLabel2, 1)                   // 02 non-matching owned: released
	f.addPods("node-1", simpleDaemonSetLabel2, 1, orphan)           // 03 non-matching orphan
	f.addPods("node-0", simpleDaemonSetLabel, 1, func(p *api.Pod) { // 04 other owner
		p.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "bar", UID: "bar-uid"}
	})
	f.addPods("node-0", simpleDaemonSetLabel, 1, failed)                                     // 05 terminal
	f.addPods("node-1", simpleDaemonSetLabel, 1, failed, deleting)                           // 06 terminal and deleting
	f.addPods("node-1", simpleDaemonSetLabel, 1, deleting)                                   // 07 deleting, not terminal
	f.addPods("node-1", simpleDaemonSetLabel, 1, orphan, deleting)                           // 08 deleting orphan: not adopted
	f.addPods("node-0", simpleDaemonSetLabel, 1, func(p *api.Pod) { p.Namespace = "other" }) // 09 other namespace
	f.addPods("", simpleDaemonSetLabel, 1)                                                   // 10 no target

	c, err := placement.Compile(f.ds, placement.Options{})
	require.NoError(t, err)
	ix, err := c.Index(f.nodes, f.pods)
	require.NoError(t, err)

	type result struct {
		Buckets           map[string][]string
		Adopt, Release    []string
		Claimed, Targeted []string
	}
	want := result{
		Buckets:  map[string][]string{"node-0": {"node-0-pod-00", "node-0-pod-05"}, "node-1": {"node-1-pod-01", "node-1-pod-07"}},
		Adopt:    []string{"node-1-pod-01"},
		Release:  []string{"node-0-pod-02"},
		Claimed:  []string{"node-0-pod-00", "node-1-pod-01", "node-0-pod-05", "node-1-pod-06", "node-1-pod-07", "-pod-10"},
		Targeted: []string{"node-0-pod-00", "node-1-pod-01", "node-0-pod-05", "node-1-pod-06", "node-1-pod-07"},
	}
	got := result{buckets(ix), ix.Adopt(), ix.Release(), podNames(ix.Claimed()), podNames(ix.Targeted())}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Index() mismatch (-want +got):\n%s", diff)
	}
}

func TestIndexClaimsWhileDeleting(t *testing.T) {
	f := &fixture{ds: newDS(func(ds *api.DaemonSet) { ds.Deleting = true })}
	f.addNodes(0, 1, nil)
	f.addPods("node-0", simpleDaemonSetLabel, 1)         // kept
	f.addPods("node-0", simpleDaemonSetLabel, 1, orphan) // not adopted
	f.addPods("node-0", simpleDaemonSetLabel2, 1)        // not released
	c, err := placement.Compile(f.ds, placement.Options{})
	require.NoError(t, err)
	ix, err := c.Index(f.nodes, f.pods)
	require.NoError(t, err)
	type result struct {
		Buckets        map[string][]string
		Adopt, Release []string
	}
	want := result{Buckets: map[string][]string{"node-0": {"node-0-pod-00"}}}
	got := result{buckets(ix), ix.Adopt(), ix.Release()}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Index() of a deleting DaemonSet mismatch (-want +got):\n%s", diff)
	}
}

func TestIndexErrors(t *testing.T) {
	ds := newDS()
	c, err := placement.Compile(ds, placement.Options{})
	require.NoError(t, err)
	_, err = c.Index([]api.Node{{Name: "node-0"}, {Name: "node-1"}, {Name: "node-0"}}, nil)
	require.Error(t, err, "a repeated node name is an error")

	_, err = placement.Compile(nil, placement.Options{})
	require.Error(t, err, "a nil DaemonSet is an error")

	bad := newDS(func(ds *api.DaemonSet) {
		ds.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.SelectorOpIn}}}
	})
	_, err = placement.Compile(bad, placement.Options{})
	require.Error(t, err, "an invalid selector is an error")

	// A nil selector selects nothing: every owned pod is released.
	none := newDS(func(ds *api.DaemonSet) { ds.Selector = nil })
	c, err = placement.Compile(none, placement.Options{})
	require.NoError(t, err)
	f := &fixture{ds: none}
	f.addNodes(0, 1, nil)
	f.addPods("node-0", simpleDaemonSetLabel, 1)
	ix, err := c.Index(f.nodes, f.pods)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"node-0-pod-00"}, ix.Release()); diff != "" {
		t.Errorf("Index() with nil selector: Release() mismatch (-want +got):\n%s", diff)
	}
}

// TestBucketOrder is podByCreationTimestampAndPhase: scheduled pods first,
// then older, then smaller name.
func TestBucketOrder(t *testing.T) {
	ds := newDS()
	pin := placement.PodNodeAffinity("node-0")
	mk := func(name, node string, created time.Duration) api.Pod {
		p := api.Pod{Namespace: ds.Namespace, Name: name, Labels: simpleDaemonSetLabel, Controller: &api.OwnerRef{UID: ds.UID},
			NodeName: node, Phase: api.PodRunning, Created: t0.Add(created)}
		if node == "" {
			p.RequiredNodeAffinity = pin
		}
		return p
	}
	pods := []api.Pod{
		mk("unbound-old", "", -time.Hour),
		mk("b-bound", "node-0", 0),
		mk("a-bound", "node-0", 0),
		mk("bound-young", "node-0", time.Minute),
		mk("bound-old", "node-0", -time.Minute),
		mk("unbound-young", "", time.Hour),
	}
	c, err := placement.Compile(ds, placement.Options{})
	require.NoError(t, err)
	ix, err := c.Index([]api.Node{{Name: "node-0"}}, pods)
	require.NoError(t, err)
	want := []string{"bound-old", "a-bound", "b-bound", "bound-young", "unbound-old", "unbound-young"}
	var got []*api.Pod
	for b := range ix.Buckets("") {
		got = b.Pods
	}
	if diff := cmp.Diff(want, podNames(got)); diff != "" {
		t.Errorf("Buckets() pod order mismatch (-want +got):\n%s", diff)
	}
}

func TestTargetNodeName(t *testing.T) {
	field := func(op api.SelectorOperator, values ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: api.NodeNameField, Operator: op, Values: values}
	}
	cases := []struct {
		name    string
		reason  string
		pod     api.Pod
		want    string
		wantErr bool
	}{
		{name: "nodeName", reason: "spec.nodeName wins", pod: api.Pod{NodeName: "node-1", RequiredNodeAffinity: placement.PodNodeAffinity("node-2")}, want: "node-1"},
		{name: "single-value matchFields", reason: "the injected term", pod: api.Pod{RequiredNodeAffinity: placement.PodNodeAffinity("node-2")}, want: "node-2"},
		{name: "two values", reason: "more than one value is an error", pod: api.Pod{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{field(api.SelectorOpIn, "a", "b")}}}}}, wantErr: true},
		{name: "nothing", reason: "no nodeName, no affinity", pod: api.Pod{}, wantErr: true},
		{name: "no terms", reason: "an empty term list names nothing", pod: api.Pod{RequiredNodeAffinity: &api.NodeSelector{}}, wantErr: true},
		{name: "NotIn skipped", reason: "only In counts; a later term decides", pod: api.Pod{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
			{MatchFields: []api.NodeSelectorRequirement{field(api.SelectorOpNotIn, "a")}},
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "x", Operator: api.SelectorOpExists}}, MatchFields: []api.NodeSelectorRequirement{field(api.SelectorOpIn, "node-3")}},
		}}}, want: "node-3"},
		{name: "label expressions only", reason: "matchExpressions never name a node", pod: api.Pod{RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.SelectorOpIn, Values: []string{"node-1"}}}},
		}}}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := api.TargetNodeName(&tc.pod)
			if tc.wantErr {
				require.Error(t, err, tc.reason)
				return
			}
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nTargetNodeName() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPodPredicates(t *testing.T) {
	gen := int64(4)
	cases := []struct {
		name          string
		reason        string
		pod           api.Pod
		minReady      int32
		hash          string
		gen           *int64
		wantAvailable bool
		wantUpdated   bool
	}{
		{name: "not ready", reason: "never available", pod: api.Pod{}, wantAvailable: false},
		{name: "ready, no minReady", reason: "available at once", pod: api.Pod{Ready: true}, wantAvailable: true},
		{name: "ready, unknown since", reason: "minReady with a zero transition time: not available", pod: api.Pod{Ready: true}, minReady: 5, wantAvailable: false},
		{name: "ready exactly minReady", reason: "inclusive since v1.34", pod: api.Pod{Ready: true, ReadySince: t0.Add(-5 * time.Second)}, minReady: 5, wantAvailable: true},
		{name: "ready just under minReady", reason: "not yet", pod: api.Pod{Ready: true, ReadySince: t0.Add(-5*time.Second + time.Nanosecond)}, minReady: 5, wantAvailable: false},
		{name: "hash match", reason: "updated by hash", pod: api.Pod{Labels: map[string]string{api.LabelRevisionHash: "h"}}, hash: "h", wantUpdated: true},
		{name: "empty hash never matches", reason: "an empty hash is not compared", pod: api.Pod{Labels: map[string]string{api.LabelRevisionHash: ""}}, hash: "", wantUpdated: false},
		{name: "generation match", reason: "updated by generation", pod: api.Pod{Labels: map[string]string{api.LabelTemplateGeneration: "4"}}, hash: "h", gen: &gen, wantUpdated: true},
		{name: "nil labels", reason: "not updated", pod: api.Pod{}, hash: "h", gen: &gen, wantUpdated: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := [2]bool{api.IsAvailable(&tc.pod, tc.minReady, t0), api.IsUpdated(&tc.pod, tc.hash, tc.gen)}
			if diff := cmp.Diff([2]bool{tc.wantAvailable, tc.wantUpdated}, got); diff != "" {
				t.Errorf("%s\n[IsAvailable, IsUpdated] mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestIndexRefusesRepeats: Index is an entry point of its own, and gives
// its callers the protection Sync gives: a node or pod listed twice is a
// field.ErrorList naming the input's indexes, never a pod planned twice.
func TestIndexRefusesRepeats(t *testing.T) {
	f := &fixture{ds: newDS()}
	f.addNodes(0, 2, nil)
	f.addPods("node-0", simpleDaemonSetLabel, 1)
	c, err := placement.Compile(f.ds, placement.Options{})
	require.NoError(t, err)
	tests := []struct {
		name, reason string
		nodes        []api.Node
		pods         []api.Pod
		want         []string
	}{
		{"pod twice", "the second copy would be deleted as a duplicate", f.nodes, append(f.pods, f.pods[0]),
			[]string{`pods[1].name: Duplicate value: "node-0-pod-00": also pods[0]`, `pods[1].uid: Duplicate value: "uid-00": also pods[0]`}},
		{"node twice", "the error names both input indexes, not sorted ones", append([]api.Node{f.nodes[1]}, f.nodes...), f.pods,
			[]string{`nodes[2].name: Duplicate value: "node-1": also nodes[0]`}},
		{"invalid UTF-8", "node-\\xfe and node-\\xff must not be confused", append(f.nodes, api.Node{Name: "node-\xfe"}), f.pods,
			[]string{`nodes[2].name: Invalid value: "node-\xfe": must be valid UTF-8`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Index(tt.nodes, tt.pods)
			list, ok := err.(field.ErrorList)
			if !ok {
				t.Fatalf("%s: Index() error = %v, want a field.ErrorList", tt.reason, err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s: Index() errors mismatch (-want +got):\n%s", tt.reason, d)
			}
		})
	}
}

// TestIndexEmptyUID: an owner reference without UID is nobody's, and a
// DaemonSet without UID owns and adopts nothing (issue 15, item 2).
func TestIndexEmptyUID(t *testing.T) {
	for _, dsUID := range []string{"", "foo-uid"} {
		f := &fixture{ds: newDS(func(ds *api.DaemonSet) { ds.UID = dsUID })}
		f.addNodes(0, 1, nil)
		f.addPods("node-0", simpleDaemonSetLabel, 1, func(p *api.Pod) { p.Controller = &api.OwnerRef{Kind: "ReplicaSet", Name: "rs"} })
		f.addPods("node-0", simpleDaemonSetLabel2, 1, func(p *api.Pod) { p.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "foo"} })
		f.addPods("node-0", simpleDaemonSetLabel, 1, orphan)
		c, err := placement.Compile(f.ds, placement.Options{})
		require.NoError(t, err)
		ix, err := c.Index(f.nodes, f.pods)
		require.NoError(t, err)
		var wantAdopt []string
		if dsUID != "" {
			wantAdopt = []string{"node-0-pod-02"}
		}
		if d := cmp.Diff(wantAdopt, ix.Adopt()); d != "" {
			t.Errorf("ds UID %q: Adopt() mismatch (-want +got):\n%s", dsUID, d)
		}
		if len(ix.Release()) != 0 || len(ix.Claimed()) != len(wantAdopt) {
			t.Errorf("ds UID %q: released %v, claimed %v; want only the adopted orphan claimed", dsUID, ix.Release(), podNames(ix.Claimed()))
		}
	}
}
