package sim_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/sim"
)

// The small alphabets the state machine draws nodes and templates from.
var (
	zones     = []string{"a", "b"}
	taintPool = []api.Taint{
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoExecute},
		{Key: "gpu", Effect: api.TaintEffectNoSchedule},
		{Key: "soft", Effect: api.TaintEffectPreferNoSchedule},
	}
	tolerateInfra = api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}
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
		tmpl.Tolerations = []api.Toleration{tolerateInfra}
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

// sync runs one sync and checks every per-sync invariant
// (plantest.Sync).
func (m *rolloutMachine) sync(t *rapid.T) daemonplan.Plan {
	t.Helper()
	m.t = t
	step := plantest.Sync(t, m.c)
	if m.stats != nil {
		m.stats.count(step)
	}
	return step.Plan
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

// settle ends the chaos: no more failures or hangs, and pods hanging
// now become Ready (their hang ends). Then plantest.Rollout syncs and
// advances until the rollout is done and converged, within its default
// bound, and checks every sync; settle returns the number of syncs.
func (m *rolloutMachine) settle(t *rapid.T) int {
	m.calm = true
	m.t = t
	opts := plantest.RolloutOptions{BeforeSync: endHangs}
	if m.stats != nil {
		opts.AfterSync = m.stats.count
	}
	return len(plantest.Rollout(t, m.c, opts))
}

// endHangs makes the pods that hang Ready: after Advance, a pod still
// Pending past ReadyAfter is one whose fate was Hang.
func endHangs(c *sim.Cluster) {
	for i := range c.Pods {
		p := &c.Pods[i]
		if p.Phase == api.PodPending && !p.Created.Add(c.ReadyAfter).After(c.Now) {
			p.Phase, p.Ready, p.ReadySince = api.PodRunning, true, c.Now
		}
	}
}

// TestRolloutStateMachine drives whole rollouts through sim with random
// actions and checks, after every sync, every invariant of plantest
// (budgets, pods per node, status recount, ownership); at the end it stops
// failures and node edits and checks that the rollout converges. It also
// requires that the budgets were put to the test: enough syncs used the
// whole maxUnavailable or maxSurge budget, so that a generator change
// cannot leave the budget checks checking nothing.
func TestRolloutStateMachine(t *testing.T) {
	var stats machineStats
	rapid.Check(t, func(rt *rapid.T) {
		m := newRolloutMachine(rt)
		m.stats = &stats
		rt.Repeat(m.actions())
		stats.maxRounds = max(stats.maxRounds, m.settle(rt))
	})
	t.Logf("%+v", stats)
	// A run of the default 100 checks saw 56 to 187 of each over 200 runs
	// (go test -run 'TestRolloutStateMachine$' -count 200 -v). -short runs
	// a fifth of the checks and saw 0 to 51, a tight maxUnavailable none in
	// one run of 200: it checks every invariant but requires nothing of
	// the counts.
	const want = 20
	if testing.Short() {
		return
	}
	if stats.tightUnavailable < want || stats.tightSurge < want {
		t.Errorf("budgets barely exercised: %d syncs used the whole maxUnavailable budget and %d the whole maxSurge budget, want at least %d each",
			stats.tightUnavailable, stats.tightSurge, want)
	}
}

// machineStats shows that the properties are exercised: syncs checked,
// syncs whose rolling update used the whole unavailable or surge budget,
// and the most syncs a settled cluster took to converge.
type machineStats struct {
	syncs, tightUnavailable, tightSurge, outdatedDeletes, maxRounds int
}

// count records one checked sync. A budget is tight when the same plan
// with one more write of that kind (deleting one more available old pod,
// creating beside one more) would break it, as plantest.CheckBudgets
// judges.
func (st *machineStats) count(s plantest.SyncStep) {
	st.syncs++
	p := s.Plan
	for _, d := range p.Delete {
		if d.Reason == placement.Outdated {
			st.outdatedDeletes++
		}
	}
	if len(p.Create)+len(p.Delete) == 0 {
		return
	}
	pod := availableOld(s)
	if pod == nil {
		return
	}
	if len(p.Delete) > 0 {
		extra := p
		extra.Delete = append(slices.Clone(p.Delete), placement.Delete{Pod: pod.Name, Node: pod.NodeName, Reason: placement.Outdated})
		if plantest.Violated(plantest.CheckBudgets(s.Input, extra), plantest.MaxUnavailable) {
			st.tightUnavailable++
		}
	}
	if len(p.Create) > 0 {
		extra := p
		extra.Create = append(slices.Clone(p.Create), placement.Create{Node: pod.NodeName})
		if plantest.Violated(plantest.CheckBudgets(s.Input, extra), plantest.MaxSurge) {
			st.tightSurge++
		}
	}
}

// availableOld finds an available pod of an old revision, alone on its
// node, that the step neither deletes nor creates beside; nil if none.
func availableOld(s plantest.SyncStep) *api.Pod {
	in, p := s.Input, s.Plan
	perNode := map[string]int{}
	for _, pod := range in.Pods {
		perNode[pod.NodeName]++
	}
	for i := range in.Pods {
		pod := &in.Pods[i]
		if perNode[pod.NodeName] != 1 || pod.Labels[api.LabelRevisionHash] == p.Hash ||
			!api.IsAvailable(pod, in.DaemonSet.MinReadySeconds, in.Now) ||
			slices.ContainsFunc(p.Delete, func(d placement.Delete) bool { return d.Pod == pod.Name }) ||
			slices.ContainsFunc(p.Create, func(c placement.Create) bool { return c.Node == pod.NodeName }) {
			continue
		}
		return pod
	}
	return nil
}
