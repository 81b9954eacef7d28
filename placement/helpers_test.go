package placement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// t0 is the fixed clock of the fixtures.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

const testHash = "h1"

// Labels as upstream's daemon_controller_test.go names them.
var (
	simpleDaemonSetLabel  = map[string]string{"name": "simple-daemon", "type": "production"}
	simpleDaemonSetLabel2 = map[string]string{"name": "simple-daemon", "type": "test"}
	simpleNodeLabel       = map[string]string{"color": "blue", "speed": "fast"}
	simpleNodeLabel2      = map[string]string{"color": "red", "speed": "fast"}
)

// newDS is upstream's newDaemonSet: selector and template labels
// simpleDaemonSetLabel, RollingUpdate with maxUnavailable 1.
func newDS(mods ...func(*api.DaemonSet)) *api.DaemonSet {
	ds := &api.DaemonSet{
		Namespace:  "default",
		Name:       "foo",
		UID:        "foo-uid",
		Generation: 1,
		Selector:   &api.LabelSelector{MatchLabels: copyLabels(simpleDaemonSetLabel)},
		Template:   api.PodTemplate{Labels: copyLabels(simpleDaemonSetLabel)},
		UpdateStrategy: api.UpdateStrategy{
			Type:          api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(1)},
		},
	}
	for _, m := range mods {
		m(ds)
	}
	return ds
}

func onDelete(ds *api.DaemonSet) {
	ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
}

func withSurge(v *api.IntOrPercent) func(*api.DaemonSet) {
	return func(ds *api.DaemonSet) {
		ds.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(0), MaxSurge: v,
		}}
	}
}

func copyLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// fixture is one cluster snapshot under construction.
type fixture struct {
	ds    *api.DaemonSet
	nodes []api.Node
	pods  []api.Pod
}

// addNodes adds nodes "node-from" … "node-(from+n-1)".
func (f *fixture) addNodes(from, n int, labels map[string]string, ts ...api.Taint) {
	for i := from; i < from+n; i++ {
		f.nodes = append(f.nodes, api.Node{Name: fmt.Sprintf("node-%d", i), Labels: copyLabels(labels), Taints: ts})
	}
}

// addPods adds n running pods bound to node, owned by the DaemonSet, with
// labels, created one second apart after t0 in the order added; mods
// adjust each.
func (f *fixture) addPods(node string, labels map[string]string, n int, mods ...func(*api.Pod)) {
	for range n {
		k := len(f.pods)
		p := api.Pod{
			Namespace:  f.ds.Namespace,
			Name:       fmt.Sprintf("%s-pod-%02d", node, k),
			UID:        fmt.Sprintf("uid-%02d", k),
			Labels:     copyLabels(labels),
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: f.ds.Name, UID: f.ds.UID},
			NodeName:   node,
			Phase:      api.PodRunning,
			Created:    t0.Add(time.Duration(k) * time.Second),
		}
		for _, m := range mods {
			m(&p)
		}
		f.pods = append(f.pods, p)
	}
}

func failed(p *api.Pod)   { p.Phase = api.PodFailed }
func deleting(p *api.Pod) { p.Deleting = true }
func orphan(p *api.Pod)   { p.Controller = nil }
func ready(p *api.Pod)    { p.Ready = true }

func readySince(d time.Duration) func(*api.Pod) {
	return func(p *api.Pod) { p.Ready, p.ReadySince = true, t0.Add(-d) }
}

func hashLabel(h string) func(*api.Pod) {
	return func(p *api.Pod) {
		if h == "" {
			delete(p.Labels, api.LabelRevisionHash)
			return
		}
		p.Labels[api.LabelRevisionHash] = h
	}
}

func createdAgo(d time.Duration) func(*api.Pod) {
	return func(p *api.Pod) { p.Created = t0.Add(-d) }
}

// plan runs Compile, Index, Manage and Status at t0 with testHash.
func (f *fixture) plan(t testing.TB, backoff placement.Backoff) (placement.ManagePlan, api.Status) {
	t.Helper()
	return planAt(t, f.ds, f.nodes, f.pods, t0, testHash, backoff)
}

func planAt(t testing.TB, ds *api.DaemonSet, nodes []api.Node, pods []api.Pod, now time.Time, hash string, backoff placement.Backoff) (placement.ManagePlan, api.Status) {
	t.Helper()
	c, err := placement.Compile(ds, placement.Options{})
	require.NoError(t, err)
	ix, err := c.Index(nodes, pods)
	require.NoError(t, err)
	p, err := ix.Manage(now, hash, backoff)
	require.NoError(t, err)
	return p, ix.Status(now, hash)
}

// counts is upstream's expectSyncDaemonSets triple: creates, deletes and
// FailedDaemonPod warning events.
type counts struct {
	Creates, Deletes, Events int
}

func countsOf(p placement.ManagePlan) counts {
	c := counts{Creates: len(p.Create), Deletes: len(p.Delete)}
	for _, d := range p.Delete {
		if d.Reason == placement.Failed {
			c.Events++
		}
	}
	return c
}

func createNodes(p placement.ManagePlan) []string {
	var out []string
	for _, c := range p.Create {
		out = append(out, c.Node)
	}
	return out
}

func deletePods(p placement.ManagePlan) []string {
	var out []string
	for _, d := range p.Delete {
		out = append(out, d.Pod)
	}
	return out
}

// strategies runs a scenario once per update strategy, as upstream's tests
// do: OnDelete and RollingUpdate with maxUnavailable 1.
var strategies = []struct {
	name string
	mod  func(*api.DaemonSet)
}{
	{"OnDelete", onDelete},
	{"RollingUpdate", func(*api.DaemonSet) {}},
}
