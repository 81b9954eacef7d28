package placement_test

import (
	"fmt"
	"math"
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
			cl, err := c.Index(nodes, pods)
			require.NoError(t, err)
			p, err := cl.Manage(t0, testHash, nil)
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

func TestScaledValue(t *testing.T) {
	cases := []struct {
		name    string
		reason  string
		v       *api.IntOrPercent
		total   int
		roundUp bool
		want    int
		wantErr bool
	}{
		{name: "int", reason: "ints are taken as they are", v: api.Int(3), total: 10, roundUp: true, want: 3},
		{name: "50% of 2", reason: "TestGetUnavailableNumbers", v: api.Percent("50%"), total: 2, roundUp: true, want: 1},
		{name: "50% of 3 up", reason: "TestGetUnavailableNumbers: rounded up", v: api.Percent("50%"), total: 3, roundUp: true, want: 2},
		{name: "50% of 3 down", reason: "rounded down", v: api.Percent("50%"), total: 3, roundUp: false, want: 1},
		{name: "100% of 2", reason: "TestGetUnavailableNumbers: surge", v: api.Percent("100%"), total: 2, roundUp: true, want: 2},
		{name: "1% of 1", reason: "any positive percent of one node rounds up to 1", v: api.Percent("1%"), total: 1, roundUp: true, want: 1},
		{name: "0%", reason: "zero", v: api.Percent("0%"), total: 5, roundUp: true, want: 0},
		{name: "nil", reason: "a nil value is an error", v: nil, total: 5, roundUp: true, wantErr: true},
		{name: "no percent sign", reason: "a string must end in %", v: api.Percent("5"), total: 5, roundUp: true, wantErr: true},
		{name: "fraction", reason: "a non-integer percentage is an error", v: api.Percent("1.5%"), total: 5, roundUp: true, wantErr: true},
		{name: "word", reason: "garbage is an error", v: api.Percent("abc%"), total: 5, roundUp: true, wantErr: true},
		// Issue 15, item 7: upstream's float-to-int conversion overflows,
		// with a result that depends on the platform (on amd64 the smallest
		// int: no pod would ever be updated). The product saturates.
		{name: "max int64 percent", reason: "saturates at the largest budget", v: api.Percent("9223372036854775807%"), total: 3, roundUp: true, want: math.MaxInt32},
		{name: "max int64 percent down", reason: "rounding down saturates too", v: api.Percent("9223372036854775807%"), total: 3, roundUp: false, want: math.MaxInt32},
		{name: "min int64 percent", reason: "saturates at the smallest budget", v: api.Percent("-9223372036854775808%"), total: 3, roundUp: true, want: math.MinInt32},
		{name: "beyond int32", reason: "a product above the int32 range saturates on 32-bit platforms alike", v: api.Percent("4294967296%"), total: 100, roundUp: true, want: math.MaxInt32},
		{name: "just below int32", reason: "exact within the range", v: api.Percent("2147483647%"), total: 99, roundUp: true, want: 2126008811},
		{name: "zero nodes", reason: "any percentage of nothing is nothing", v: api.Percent("9223372036854775807%"), total: 0, roundUp: true, want: 0},
		{name: "beyond int64", reason: "an error on every platform, as upstream on 64-bit ones", v: api.Percent("9223372036854775808%"), total: 3, roundUp: true, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := placement.ScaledValue(tc.v, tc.total, tc.roundUp)
			if tc.wantErr {
				require.Error(t, err, tc.reason)
				return
			}
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nScaledValue() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestBudgetsAndAllowsSurge(t *testing.T) {
	ru := func(maxUnavailable, maxSurge *api.IntOrPercent) api.UpdateStrategy {
		return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge}}
	}
	cases := []struct {
		name            string
		reason          string
		strategy        api.UpdateStrategy
		desired         int
		wantSurge       int
		wantUnavailable int
		wantUnavErr     bool
		wantAllows      bool
	}{
		{name: "OnDelete", reason: "no budgets at all", strategy: api.UpdateStrategy{Type: api.OnDelete, RollingUpdate: &api.RollingUpdateParams{MaxSurge: api.Int(1)}}, desired: 5},
		{name: "nil rollingUpdate", reason: "0 and 0", strategy: api.UpdateStrategy{Type: api.RollingUpdate}, desired: 5},
		{name: "maxSurge nil", reason: "nil maxSurge is 0", strategy: ru(api.Int(1), nil), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 0", reason: "no surge", strategy: ru(api.Int(1), api.Int(0)), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 0%", reason: "no surge", strategy: ru(api.Int(1), api.Percent("0%")), desired: 5, wantUnavailable: 1},
		{name: "maxSurge 1", reason: "surge", strategy: ru(api.Int(0), api.Int(1)), desired: 5, wantSurge: 1, wantAllows: true},
		{name: "maxSurge 1%", reason: "rounded up against one node: surge", strategy: ru(api.Int(0), api.Percent("1%")), desired: 5, wantSurge: 1, wantAllows: true},
		{name: "maxSurge 100% of 2", reason: "TestGetUnavailableNumbers", strategy: ru(api.Int(0), api.Percent("100%")), desired: 2, wantSurge: 2, wantAllows: true},
		{name: "maxUnavailable 50% of 3", reason: "rounded up", strategy: ru(api.Percent("50%"), nil), desired: 3, wantUnavailable: 2},
		{name: "maxUnavailable nil", reason: "a nil maxUnavailable is an error", strategy: ru(nil, nil), desired: 3, wantUnavErr: true},
		{name: "malformed maxSurge", reason: "an error: no surge", strategy: ru(api.Int(1), api.Percent("x")), desired: 3, wantUnavailable: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDS(func(ds *api.DaemonSet) { ds.UpdateStrategy = tc.strategy })
			unav, err := placement.UnavailableCount(ds, tc.desired)
			if tc.wantUnavErr {
				require.Error(t, err, tc.reason)
			} else {
				require.NoError(t, err, tc.reason)
			}
			surge, _ := placement.SurgeCount(ds, tc.desired)
			type got struct {
				Surge, Unavailable int
				Allows             bool
			}
			want := got{tc.wantSurge, tc.wantUnavailable, tc.wantAllows}
			if diff := cmp.Diff(want, got{surge, unav, placement.AllowsSurge(ds)}); diff != "" {
				t.Errorf("%s\nbudgets mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
