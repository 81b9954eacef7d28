package sim_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/sim"
)

// fuzzBytes hands out the fuzzer's bytes, then zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next() int {
	if len(*b) == 0 {
		return 0
	}
	c := (*b)[0]
	*b = (*b)[1:]
	return int(c)
}

// bystanders are pods a DaemonSet never owns, though they carry its labels
// and sit on its nodes: a ReplicaSet's pod, one whose owner reference has
// no UID, an orphan being deleted, and an orphan of another namespace.
func bystanders(nodes []api.Node) []api.Pod {
	labels := map[string]string{"app": "foo"}
	return []api.Pod{
		{Namespace: "default", Name: "web-1", UID: "web-1", Labels: labels, NodeName: nodes[0].Name, Phase: api.PodRunning, Ready: true,
			Controller: &api.OwnerRef{Kind: "ReplicaSet", Name: "web", UID: "rs-uid"}, Created: start},
		{Namespace: "default", Name: "web-2", UID: "web-2", Labels: labels, NodeName: nodes[len(nodes)-1].Name, Phase: api.PodRunning,
			Controller: &api.OwnerRef{Kind: "ReplicaSet", Name: "web"}, Created: start},
		{Namespace: "default", Name: "leaving", UID: "leaving", Labels: labels, NodeName: nodes[0].Name, Phase: api.PodRunning,
			Deleting: true, Created: start},
		{Namespace: "other", Name: "foo-x", UID: "foo-x", Labels: labels, NodeName: nodes[0].Name, Phase: api.PodRunning, Created: start},
	}
}

// FuzzSim drives a simulated cluster with actions decoded from the
// fuzzer's bytes (template updates, rollbacks, strategy changes, taints,
// labels, clock moves, pod fates, syncs) and checks, after every sync:
//
//  1. the plan passes plantest's checkers against the state it read
//     (ownership, budgets, pods per node, status recount, stop);
//  2. Apply carried it out: deleted pods are gone, one new pod per create;
//  3. pods the DaemonSet does not own are never changed or removed.
//
// At the end, with failures stopped, the rollout must converge.
func FuzzSim(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 1, 0, 0, 4, 4, 0, 4, 3, 4, 0, 1, 4, 2, 4, 4, 4})
	f.Add([]byte{9, 3, 2, 1, 1, 4, 5, 6, 4, 4, 7, 1, 4, 4, 4, 9, 4, 0, 2, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fuzzBytes(data)
		nodes := make([]api.Node, 2+b.next()%10)
		for i := range nodes {
			nodes[i] = api.Node{Name: fmt.Sprintf("node-%02d", i), Labels: map[string]string{"zone": zones[i%2]}}
		}
		strategies := []api.UpdateStrategy{unavailableStrategy(1), unavailableStrategy(3), surgeStrategy(1), surgeStrategy(2),
			{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Percent("9223372036854775807%"), MaxSurge: api.Int(0)}},
			{Type: api.OnDelete}}
		ds := daemonSet(strategies[b.next()%len(strategies)])
		ds.MinReadySeconds = int32([]int{0, 5, 15}[b.next()%3])
		c := sim.New(ds, template("v1"), nodes, start)
		guests := bystanders(nodes)
		c.Pods = append(c.Pods, guests...)
		calm := false
		c.FateOf = func(string, *api.Pod) sim.Fate {
			if calm {
				return sim.BecomeReady
			}
			return []sim.Fate{sim.BecomeReady, sim.BecomeReady, sim.Hang, sim.Fail}[b.next()%4]
		}

		// checkGuests: the pods the DaemonSet does not own are all there,
		// unchanged.
		checkGuests := func() {
			for _, g := range guests {
				i := slices.IndexFunc(c.Pods, func(q api.Pod) bool { return q.Namespace == g.Namespace && q.Name == g.Name })
				if i < 0 {
					t.Fatalf("pod %s/%s, which the DaemonSet does not own, is gone", g.Namespace, g.Name)
				}
				if d := cmp.Diff(g, c.Pods[i]); d != "" {
					t.Fatalf("pod %s/%s, which the DaemonSet does not own, changed:\n%s", g.Namespace, g.Name, d)
				}
			}
		}
		syncOnce := func() daemonplan.Plan {
			before := len(c.Pods)
			s := plantest.Sync(t, c) // every plantest invariant
			p := s.Plan
			if want := before - len(p.Delete) + len(p.Create); len(c.Pods) != want {
				t.Fatalf("Apply left %d pods, want %d", len(c.Pods), want)
			}
			for _, d := range p.Delete {
				if slices.ContainsFunc(c.Pods, func(q api.Pod) bool { return q.Namespace == "default" && q.Name == d.Pod }) {
					t.Fatalf("delete of %s not carried out", d.Pod)
				}
			}
			checkGuests()
			return p
		}
		editNode := func(edit func(n *api.Node)) {
			nodes := slices.Clone(c.Nodes)
			i := b.next() % len(nodes)
			n := nodes[i]
			n.Labels, n.Taints = maps.Clone(n.Labels), slices.Clone(n.Taints)
			edit(&n)
			nodes[i] = n
			c.Nodes = nodes
		}

		for steps := 0; len(b) > 0 && steps < 64; steps++ {
			switch b.next() % 8 {
			case 0:
				c.Update(template(imageNames[b.next()%len(imageNames)]), "")
			case 1:
				if _, err := c.Rollback(int64(b.next() % 4)); err != nil {
					t.Fatalf("Rollback: %v", err)
				}
			case 2:
				c.SetStrategy(strategies[b.next()%len(strategies)])
			case 3:
				taint := taintPool[b.next()%len(taintPool)]
				editNode(func(n *api.Node) {
					if i := slices.Index(n.Taints, taint); i >= 0 {
						n.Taints = slices.Delete(n.Taints, i, i+1)
					} else {
						n.Taints = append(n.Taints, taint)
					}
				})
			case 4, 5:
				syncOnce()
				c.Advance(advances[b.next()%len(advances)])
			case 6:
				editNode(func(n *api.Node) { n.Labels["zone"] = zones[b.next()%2] })
			case 7:
				c.Advance(time.Duration(b.next()) * time.Second)
			}
		}

		// Settle: no more failures, hangs end, and the rollout converges
		// (OnDelete never replaces outdated pods: only the checks above).
		if c.DaemonSet.UpdateStrategy.Type == api.OnDelete {
			return
		}
		calm = true
		c.Nodes = slices.Clone(c.Nodes)
		for i := range c.Nodes {
			c.Nodes[i].Taints = slices.DeleteFunc(slices.Clone(c.Nodes[i].Taints), func(tt api.Taint) bool { return tt.Effect == api.TaintEffectNoExecute })
		}
		plantest.Rollout(t, c, plantest.RolloutOptions{BeforeSync: endHangs, AfterSync: func(plantest.SyncStep) { checkGuests() }})
	})
}
