package sim_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/taints"
	"pgregory.net/rapid"
)

// The small alphabets the state machine draws nodes and templates from.
var (
	zones     = []string{"a", "b"}
	taintPool = []taints.Taint{
		{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule},
		{Key: "dedicated", Value: "infra", Effect: taints.NoExecute},
		{Key: "gpu", Effect: taints.NoSchedule},
		{Key: "soft", Effect: taints.PreferNoSchedule},
	}
	tolerateInfra = taints.Toleration{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule}
	imageNames    = []string{"v1", "v2", "v3", "v4"}
	advances      = []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}
)

func drawStrategy(t *rapid.T) api.UpdateStrategy {
	budget := rapid.SampledFrom([]*api.IntOrPercent{
		api.Int(1), api.Int(2), api.Int(3), api.Percent("25%"), api.Percent("50%"),
	}).Draw(t, "budget")
	if rapid.Bool().Draw(t, "surge") {
		return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(0), MaxSurge: budget}}
	}
	return api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: budget, MaxSurge: api.Int(0)}}
}

func drawTemplate(t *rapid.T) sim.Template {
	tmpl := template(rapid.SampledFrom(imageNames).Draw(t, "image"))
	if rapid.Bool().Draw(t, "tolerate-infra") {
		tmpl.Tolerations = []taints.Toleration{tolerateInfra}
	}
	if rapid.IntRange(0, 3).Draw(t, "zone-selector") == 0 {
		tmpl.NodeSelector = map[string]string{"zone": "a"}
	}
	return tmpl
}

func drawNode(t *rapid.T, name string) api.Node {
	n := api.Node{Name: name, Labels: map[string]string{}}
	if z := rapid.IntRange(0, len(zones)).Draw(t, "zone"); z < len(zones) {
		n.Labels["zone"] = zones[z]
	}
	for _, taint := range taintPool {
		if rapid.IntRange(0, 5).Draw(t, "taint") == 0 {
			n.Taints = append(n.Taints, taint)
		}
	}
	return n
}

// rolloutMachine is a simulated cluster under random template changes,
// strategy flips, node edits and pod fates.
type rolloutMachine struct {
	c *sim.Cluster
	// t is the rapid.T of the running action, for FateOf's draws.
	t *rapid.T
	// calm stops failures and hangs.
	calm  bool
	syncs int
	stats *machineStats
}

func newRolloutMachine(t *rapid.T) *rolloutMachine {
	n := rapid.IntRange(5, 30).Draw(t, "nodes")
	nodes := make([]api.Node, n)
	for i := range nodes {
		nodes[i] = drawNode(t, fmt.Sprintf("node-%02d", i))
	}
	ds := daemonSet(drawStrategy(t))
	ds.MinReadySeconds = rapid.SampledFrom([]int32{0, 5, 15}).Draw(t, "minReadySeconds")
	m := &rolloutMachine{c: sim.New(ds, drawTemplate(t), nodes, start), t: t}
	m.c.FateOf = func(string, *api.Pod) sim.Fate {
		if m.calm {
			return sim.BecomeReady
		}
		return rapid.SampledFrom([]sim.Fate{sim.BecomeReady, sim.BecomeReady, sim.BecomeReady, sim.Hang, sim.Fail}).Draw(m.t, "fate")
	}
	return m
}

// sync runs one sync and checks every per-sync invariant.
func (m *rolloutMachine) sync(t *rapid.T) daemonplan.Plan {
	t.Helper()
	m.t = t
	before := takeSnapshot(m.c)
	p, err := m.c.Sync()
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	m.syncs++
	if err := checkSync(before, p, m.c.Pods); err != nil {
		t.Fatalf("sync %d at %s: %v\nplan: %s", m.syncs, before.now.Sub(start), err, describe(p))
	}
	if m.stats != nil {
		m.stats.count(before, p)
	}
	return p
}

// editNode replaces node i with a copy changed by edit: nodes are shared
// with earlier snapshots, so never changed in place.
func (m *rolloutMachine) editNode(t *rapid.T, edit func(n *api.Node)) {
	i := rapid.IntRange(0, len(m.c.Nodes)-1).Draw(t, "node")
	nodes := slices.Clone(m.c.Nodes)
	n := nodes[i]
	n.Labels = maps.Clone(n.Labels)
	n.Taints = slices.Clone(n.Taints)
	edit(&n)
	nodes[i] = n
	m.c.Nodes = nodes
}

func (m *rolloutMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"update": func(t *rapid.T) { m.c.Update(drawTemplate(t), "") },
		"strategy": func(t *rapid.T) {
			m.c.SetStrategy(drawStrategy(t))
		},
		"advance": func(t *rapid.T) { m.c.Advance(rapid.SampledFrom(advances).Draw(t, "by")) },
		"sync":    func(t *rapid.T) { m.sync(t) },
		"rounds": func(t *rapid.T) {
			for range rapid.IntRange(1, 6).Draw(t, "rounds") {
				m.sync(t)
				m.c.Advance(m.c.ReadyAfter)
			}
		},
		"taint": func(t *rapid.T) {
			taint := rapid.SampledFrom(taintPool).Draw(t, "taint")
			m.editNode(t, func(n *api.Node) {
				if i := slices.Index(n.Taints, taint); i >= 0 {
					n.Taints = slices.Delete(n.Taints, i, i+1)
				} else {
					n.Taints = append(n.Taints, taint)
				}
			})
		},
		"label": func(t *rapid.T) {
			z := rapid.IntRange(0, len(zones)).Draw(t, "zone")
			m.editNode(t, func(n *api.Node) {
				if z == len(zones) {
					delete(n.Labels, "zone")
				} else {
					n.Labels["zone"] = zones[z]
				}
			})
		},
	}
}

// settle ends the chaos: no more failures or hangs, and pods hanging now
// become Ready (their hang ends). Then it syncs and advances until a sync
// does nothing and reports the rollout done, at most limit rounds, and
// returns the number of rounds.
func (m *rolloutMachine) settle(t *rapid.T, limit int) int {
	m.calm = true
	for round := 1; round <= limit; round++ {
		m.endHangs()
		before := takeSnapshot(m.c)
		p := m.sync(t)
		if len(p.Create)+len(p.Delete) == 0 && p.Rollout.Done {
			if err := checkConverged(before, p.Hash); err != nil {
				t.Fatalf("rollout done but not converged: %v", err)
			}
			return round
		}
		m.c.Advance(max(m.c.ReadyAfter, p.RequeueAfter))
	}
	t.Fatalf("no convergence within %d rounds: %+v\n%v", limit, m.c.DaemonSet.Status, checkConverged(takeSnapshot(m.c), ""))
	return limit
}

// endHangs makes the pods that hang Ready: after Advance, a pod still
// Pending past ReadyAfter is one whose fate was Hang.
func (m *rolloutMachine) endHangs() {
	for i := range m.c.Pods {
		p := &m.c.Pods[i]
		if p.Phase == api.PodPending && !p.Created.Add(m.c.ReadyAfter).After(m.c.Now) {
			p.Phase, p.Ready, p.ReadySince = api.PodRunning, true, m.c.Now
		}
	}
}

// convergenceBound is how many sync+advance rounds (of ReadyAfter each) a
// settled cluster may take. Replacing one batch takes a delete, a create,
// and ceil(minReadySeconds/ReadyAfter) more rounds until the new pod is
// available; batches hold at least one node, so n nodes need at most
// n×(2+ceil) rounds. One more round per node and 20 in all are slack for
// failed pods waiting out their backoff and for duplicates left by
// strategy flips.
func convergenceBound(c *sim.Cluster) int {
	minReady := time.Duration(c.DaemonSet.MinReadySeconds) * time.Second
	waits := int((minReady + c.ReadyAfter - 1) / c.ReadyAfter)
	return len(c.Nodes)*(3+waits) + 20
}

// TestRolloutStateMachine drives whole rollouts through sim with random
// actions and checks, after every sync, the budget, the pods per node and
// the status (invariants_test.go); at the end it stops failures and node
// edits and checks that the rollout converges within convergenceBound.
func TestRolloutStateMachine(t *testing.T) {
	var stats machineStats
	rapid.Check(t, func(rt *rapid.T) {
		m := newRolloutMachine(rt)
		m.stats = &stats
		rt.Repeat(m.actions())
		rounds := m.settle(rt, convergenceBound(m.c))
		stats.maxRounds = max(stats.maxRounds, rounds)
	})
	t.Logf("%+v", stats)
}

// machineStats shows that the properties are exercised: syncs checked,
// syncs whose rolling update used the whole unavailable or surge budget,
// and the most rounds a settled cluster took to converge.
type machineStats struct {
	syncs, tightUnavailable, tightSurge, outdatedDeletes, maxRounds int
}

// describe renders a plan's pod writes for failure messages.
func describe(p daemonplan.Plan) string {
	s := fmt.Sprintf("hash %s, %s;", p.Hash, syncCount(p))
	for _, c := range p.Create {
		s += " +" + c.Node
	}
	for _, d := range p.Delete {
		s += fmt.Sprintf(" -%s(%s,%s)", d.Pod, d.Node, d.Reason)
	}
	return s
}

func (st *machineStats) count(s snapshot, p daemonplan.Plan) {
	st.syncs++
	for _, d := range p.Delete {
		if d.Reason == placement.Outdated {
			st.outdatedDeletes++
		}
	}
	if len(p.Create)+len(p.Delete) == 0 {
		return
	}
	// A budget is tight when the same plan with one more write of that
	// kind would break it.
	if b := s.budgets(); b.maxSurge == 0 && len(p.Delete) > 0 {
		name := availableOld(s, p)
		if name == "" {
			return
		}
		extra := p
		extra.Delete = append(slices.Clone(p.Delete), placement.Delete{Pod: name, Reason: placement.Outdated})
		if checkUnavailableBudget(s, extra) != nil {
			st.tightUnavailable++
		}
	} else if b.maxSurge > 0 && len(p.Create) > 0 {
		if node := availableOldNode(s, p); node != "" {
			extra := p
			extra.Create = append(slices.Clone(p.Create), placement.Create{Node: node})
			if checkSurgeBudget(s, extra) != nil {
				st.tightSurge++
			}
		}
	}
}

// availableOld names an available old pod that p does not delete, or "".
func availableOld(s snapshot, p daemonplan.Plan) string {
	for _, st := range s.visited(p.Hash) {
		if len(st.old) == 1 && len(st.new_) == 0 && s.available(st.old[0]) &&
			!slices.ContainsFunc(p.Delete, func(d placement.Delete) bool { return d.Pod == st.old[0].Name }) {
			return st.old[0].Name
		}
	}
	return ""
}

// availableOldNode names a node holding only an available old pod that p
// creates nothing on, or "".
func availableOldNode(s snapshot, p daemonplan.Plan) string {
	for _, st := range s.visited(p.Hash) {
		if st.desired && len(st.old) == 1 && len(st.new_) == 0 && s.available(st.old[0]) &&
			!slices.ContainsFunc(p.Create, func(c placement.Create) bool { return c.Node == st.name }) {
			return st.name
		}
	}
	return ""
}
