package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// benchCluster indexes n nodes in 3 zones with 20 labels each, half of
// them running an available old pod, half a new one.
func benchCluster(b *testing.B, n int) *placement.Index {
	b.Helper()
	ds := newDS(maxUnavailable(api.Percent("10%")))
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "foo", UID: "uid-foo"}
	nodes := make([]api.Node, n)
	pods := make([]api.Pod, n)
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		labels := make(map[string]string, 20)
		for j := range 17 {
			labels[fmt.Sprintf("example.com/label-%02d", j)] = "v"
		}
		labels[rollout.LabelZone] = string(rune('a' + i%3))
		labels["pool"] = []string{"blue", "green"}[i%2]
		labels["kubernetes.io/hostname"] = name
		nodes[i] = api.Node{Name: name, Labels: labels}
		hash, gen := hashOld, genOld
		if i%2 == 0 {
			hash, gen = hashNew, genNew
		}
		pods[i] = api.Pod{Namespace: "default", Name: name + "-pod", UID: "uid-" + name, Controller: owner, NodeName: name,
			Labels: map[string]string{"app": "foo", api.LabelRevisionHash: hash, api.LabelTemplateGeneration: gen},
			Phase:  api.PodRunning, Ready: true, ReadySince: t0.Add(-time.Hour), Created: t0.Add(-2 * time.Hour)}
	}
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ix, err := c.Index(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkProgressiveRollingUpdate compares one rolling-update step of
// upstream (RollingUpdate) with the step under each extension, on an
// indexed cluster (indexing is not timed).
func BenchmarkProgressiveRollingUpdate(b *testing.B) {
	options := []struct {
		name string
		p    rollout.Progressive
	}{
		{"upstream", rollout.Progressive{}},
		{"partition", rollout.Progressive{Partition: api.Percent("20%")}},
		{"scope", rollout.Progressive{Scope: &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}}},
		{"strict", rollout.Progressive{StrictBudgets: true}},
		{"zones", rollout.Progressive{Zones: &rollout.Zones{}}},
		{"canary", rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Percent("5%"), SpreadKeys: []string{rollout.LabelZone}}}},
		{"all", rollout.Progressive{Partition: api.Percent("20%"), StrictBudgets: true, Zones: &rollout.Zones{MaxConcurrent: 2},
			Scope:  &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}},
			Canary: &rollout.Canary{Nodes: api.Int(3), Verdicts: map[string]rollout.Verdict{hashNew: rollout.Promote}}}},
	}
	for _, n := range []int{1000, 5000, 15000} {
		ix := benchCluster(b, n)
		for _, o := range options {
			b.Run(fmt.Sprintf("nodes=%d/%s", n, o.name), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if _, _, err := rollout.RollingUpdate(ix, t0, hashNew, o.p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
