package rollout_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/rounds"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
)

// The alphabets the progressive machine draws from.
var (
	pZones    = []string{"a", "b", "c"}
	pPools    = []string{"blue", "green"}
	pImages   = []string{"v1", "v2", "v3"}
	pAdvances = []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}
	gpuTaint  = api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}
)

func pNode(t *rapid.T, name string) api.Node {
	n := api.Node{Name: name, Labels: map[string]string{}}
	if z := rapid.IntRange(0, len(pZones)).Draw(t, "zone"); z < len(pZones) {
		n.Labels[rollout.LabelZone] = pZones[z]
	}
	n.Labels["pool"] = rapid.SampledFrom(pPools).Draw(t, "pool")
	if rapid.IntRange(0, 3).Draw(t, "canary-label") == 0 {
		n.Labels["canary"] = "yes"
	}
	if rapid.IntRange(0, 7).Draw(t, "gpu") == 0 {
		n.Taints = []api.Taint{gpuTaint}
	}
	return n
}

// pStrategy draws budgets; both non-zero only when surge with
// unavailability is on.
func pStrategy(t *rapid.T, both bool) api.UpdateStrategy {
	budget := func(label string) *api.IntOrPercent {
		return rapid.SampledFrom([]*api.IntOrPercent{api.Int(1), api.Int(2), api.Int(3), api.Percent("25%"), api.Percent("50%")}).Draw(t, label)
	}
	mode := rapid.IntRange(0, 2).Draw(t, "mode")
	switch {
	case mode == 2 && both:
		return rollingUpdate(budget("maxUnavailable"), budget("maxSurge"))
	case mode >= 1:
		return maxSurge(budget("maxSurge"))
	}
	return maxUnavailable(budget("maxUnavailable"))
}

// progressiveMachine is a simulated cluster with extensions under random
// template changes, option changes, verdicts, node edits and pod fates.
type progressiveMachine struct {
	c        *sim.Cluster
	t        *rapid.T
	calm     bool
	restarts map[string]int32
	hash     string // the current revision's hash, as the last plan said
	syncs    int
	stats    *progressiveStats
}

func newProgressiveMachine(t *rapid.T) *progressiveMachine {
	n := rapid.IntRange(4, 16).Draw(t, "nodes")
	nodes := make([]api.Node, n)
	for i := range nodes {
		nodes[i] = pNode(t, fmt.Sprintf("node-%02d", i))
	}
	// The switches that stop a rollout (pause, freeze) start off and are
	// toggled by actions.
	opts := plantest.Progressive().Draw(t, "options")
	ds := api.DaemonSet{Namespace: "default", Name: "foo", UID: "uid-foo",
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
		UpdateStrategy: pStrategy(t, opts.SurgeWithUnavailable)}
	ds.MinReadySeconds = rapid.SampledFrom([]int32{0, 5, 15}).Draw(t, "minReadySeconds")
	m := &progressiveMachine{c: sim.New(ds, simTemplate(rapid.SampledFrom(pImages).Draw(t, "image")), nodes, t0), t: t,
		restarts: map[string]int32{}}
	m.c.Options = daemonplan.Options{Progressive: opts}
	m.c.FateOf = func(string, *api.Pod) sim.Fate {
		if m.calm {
			return sim.BecomeReady
		}
		return rapid.SampledFrom([]sim.Fate{sim.BecomeReady, sim.BecomeReady, sim.BecomeReady, sim.Hang, sim.Fail}).Draw(m.t, "fate")
	}
	return m
}

func (m *progressiveMachine) opts() *rollout.Progressive { return &m.c.Options.Progressive }

// sync runs one sync, checks every invariant, and rolls back as an aborted
// canary asks.
func (m *progressiveMachine) sync(t *rapid.T) daemonplan.Plan {
	t.Helper()
	m.t = t
	if c := m.opts().Canary; c != nil {
		c.Restarts = maps.Clone(m.restarts)
	}
	before := &snap{ds: m.c.DaemonSet, nodes: slices.Clone(m.c.Nodes), pods: slices.Clone(m.c.Pods), now: m.c.Now,
		opts: cloneOptions(*m.opts()), restarts: maps.Clone(m.restarts)}
	p, err := m.c.Sync()
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	m.syncs++
	m.hash = p.Hash
	if err := checkProgressive(before, p, m.c.Pods); err != nil {
		t.Fatalf("sync %d at %s with %s: %v\nplan: %s", m.syncs, before.now.Sub(t0), describeOpts(before.opts), err, describePlan(p))
	}
	if m.stats != nil {
		m.stats.count(before, p)
	}
	if cp := p.Progress.Canary; cp != nil && cp.Phase == rollout.PhaseAborted && cp.RollbackTo > 0 {
		m.opts().Canary.Verdicts[p.Hash] = rollout.Abort
		m.opts().Canary.Verdicts[cp.RollbackHash] = rollout.Promote
		if _, err := m.c.Rollback(cp.RollbackTo); err != nil {
			t.Fatalf("rollback to %d: %v", cp.RollbackTo, err)
		}
	}
	return p
}

// cloneOptions copies the maps a later action may change.
func cloneOptions(p rollout.Progressive) rollout.Progressive {
	if p.Canary != nil {
		c := *p.Canary
		c.Verdicts = maps.Clone(c.Verdicts)
		p.Canary = &c
	}
	return p
}

func (m *progressiveMachine) editNode(t *rapid.T, edit func(n *api.Node)) {
	i := rapid.IntRange(0, len(m.c.Nodes)-1).Draw(t, "node")
	nodes := slices.Clone(m.c.Nodes)
	n := nodes[i]
	n.Labels = maps.Clone(n.Labels)
	n.Taints = slices.Clone(n.Taints)
	edit(&n)
	nodes[i] = n
	m.c.Nodes = nodes
}

func (m *progressiveMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"update":  func(t *rapid.T) { m.c.Update(simTemplate(rapid.SampledFrom(pImages).Draw(t, "image")), "") },
		"advance": func(t *rapid.T) { m.c.Advance(rapid.SampledFrom(pAdvances).Draw(t, "by")) },
		"sync":    func(t *rapid.T) { m.sync(t) },
		"rounds": func(t *rapid.T) {
			for range rapid.IntRange(1, 6).Draw(t, "rounds") {
				m.sync(t)
				m.c.Advance(m.c.ReadyAfter)
			}
		},
		"pause":  func(t *rapid.T) { m.opts().Pause = rapid.IntRange(0, 3).Draw(t, "pause") == 0 },
		"freeze": func(t *rapid.T) { m.opts().Freeze = rapid.IntRange(0, 4).Draw(t, "freeze") == 0 },
		"strict": func(t *rapid.T) { m.opts().StrictBudgets = rapid.Bool().Draw(t, "strict") },
		"partition": func(t *rapid.T) {
			m.opts().Partition = rapid.SampledFrom([]*api.IntOrPercent{nil, api.Int(0), api.Int(3), api.Percent("50%")}).Draw(t, "partition")
		},
		"verdict": func(t *rapid.T) {
			if c := m.opts().Canary; c != nil && m.hash != "" {
				c.Verdicts[m.hash] = rapid.SampledFrom([]rollout.Verdict{rollout.Promote, rollout.Promote, rollout.Abort}).Draw(t, "verdict")
			}
		},
		"crash": func(t *rapid.T) {
			if len(m.c.Pods) > 0 {
				m.restarts[rapid.SampledFrom(m.c.Pods).Draw(t, "pod").Name]++
			}
		},
		"taint": func(t *rapid.T) {
			m.editNode(t, func(n *api.Node) {
				if i := slices.Index(n.Taints, gpuTaint); i >= 0 {
					n.Taints = slices.Delete(n.Taints, i, i+1)
				} else {
					n.Taints = append(n.Taints, gpuTaint)
				}
			})
		},
		"relabel": func(t *rapid.T) {
			z := rapid.SampledFrom(pZones).Draw(t, "zone")
			pool := rapid.SampledFrom(pPools).Draw(t, "pool")
			m.editNode(t, func(n *api.Node) { n.Labels[rollout.LabelZone], n.Labels["pool"] = z, pool })
		},
		"strategy": func(t *rapid.T) { m.c.SetStrategy(pStrategy(t, m.opts().SurgeWithUnavailable)) },
	}
}

// settle stops the chaos and lifts the holds: no failures or hangs,
// hanging pods become Ready, no pause, freeze, partition or scope, and the
// current revision is promoted. Zones, strict budgets and surge with
// unavailability stay. It then syncs until the rollout is done and checks
// that it converged.
func (m *progressiveMachine) settle(t *rapid.T, limit int) int {
	m.calm = true
	o := m.opts()
	o.Pause, o.Freeze, o.Partition, o.Scope = false, false, nil, nil
	var last daemonplan.Plan
	for round := 1; round <= limit; round++ {
		for i := range m.c.Pods {
			p := &m.c.Pods[i]
			if p.Phase == api.PodPending && !p.Created.Add(m.c.ReadyAfter).After(m.c.Now) {
				p.Phase, p.Ready, p.ReadySince = api.PodRunning, true, m.c.Now
			}
		}
		if o.Canary != nil && m.hash != "" {
			o.Canary.Verdicts[m.hash] = rollout.Promote
		}
		before := &snap{ds: m.c.DaemonSet, nodes: slices.Clone(m.c.Nodes), pods: slices.Clone(m.c.Pods), now: m.c.Now}
		p := m.sync(t)
		last = p
		if len(p.Create)+len(p.Delete) == 0 && p.Rollout.Done && p.Progress.Held == rollout.NotHeld {
			if err := converged(before, p.Hash); err != nil {
				t.Fatalf("rollout done but not converged: %v", err)
			}
			return round
		}
		m.c.Advance(max(m.c.ReadyAfter, p.RequeueAfter))
	}
	var pods []string
	for _, p := range m.c.Pods {
		pods = append(pods, fmt.Sprintf("%s@%s(%s,ready %v)", p.Name, p.NodeName, p.Labels[api.LabelRevisionHash], p.Ready))
	}
	var nodes []string
	for _, n := range m.c.Nodes {
		nodes = append(nodes, fmt.Sprintf("%s%v%v", n.Name, n.Labels, n.Taints))
	}
	t.Fatalf("no convergence within %d rounds: %+v\nlast plan: %s\noptions: %s\npods: %v\nnodes: %v\nstrategy: %+v",
		limit, m.c.DaemonSet.Status, describePlan(last), describeOpts(*m.opts()), pods, nodes, *m.c.DaemonSet.UpdateStrategy.RollingUpdate)
	return limit
}

// converged: every desired node runs one available pod of the current
// revision.
func converged(s *snap, hash string) error {
	for _, v := range s.visit(hash) {
		if v.desired && (len(v.new_) != 1 || len(v.old) != 0 || !s.available(v.new_[0])) {
			return fmt.Errorf("node %s: %d new and %d old pods", v.name, len(v.new_), len(v.old))
		}
	}
	return nil
}

// TestProgressiveStateMachine drives whole rollouts with random
// extensions through sim and checks, after every sync, that paused means
// no rollout write and frozen no write at all, that the scope is never
// left, the partition never crossed, the canary count never exceeded until
// promoted, the budgets (strict or not, per zone group) never exceeded and
// the zone limit never exceeded; at the end it lifts the holds and checks
// that the rollout converges.
//
// It runs rapid's checks machineRounds() times: by default 20 rounds of
// 100, two thousand rollouts.
func TestProgressiveStateMachine(t *testing.T) {
	var stats progressiveStats
	for r := range machineRounds() {
		t.Run(fmt.Sprintf("round-%d", r), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				m := newProgressiveMachine(rt)
				m.stats = &stats
				rt.Repeat(m.actions())
				minReady := time.Duration(m.c.DaemonSet.MinReadySeconds) * time.Second
				waits := int((minReady + m.c.ReadyAfter - 1) / m.c.ReadyAfter)
				m.settle(rt, len(m.c.Nodes)*(3+waits)+20)
			})
		})
	}
	t.Logf("%+v", stats)
	if testing.Short() {
		return // two rounds may draw no run of some extension
	}
	// Each extension must have been put to the test, so that a change of
	// the generators cannot leave an invariant checking nothing: in 20
	// rounds the rarest (surge with unavailability) writes in about 130
	// syncs; require two per round.
	want := 2 * machineRounds()
	for _, c := range []struct {
		name string
		n    int
	}{
		{"partition", stats.partition}, {"scope", stats.scope}, {"canary gated", stats.canaryGated},
		{"canary aborted", stats.canaryAborted}, {"zones, several groups", stats.zonesMulti},
		{"strict budgets", stats.strict}, {"surge with unavailability", stats.surgeUnavailable},
		{"paused", stats.paused}, {"frozen", stats.frozen},
	} {
		if c.n < want {
			t.Errorf("%s: %d syncs exercised it, want at least %d", c.name, c.n, want)
		}
	}
}

// machineRounds is how many times TestProgressiveStateMachine runs rapid's
// checks: 20, 2 with -short; DAEMONPLAN_ROLLOUT_ROUNDS sets it for a longer
// search.
func machineRounds() int { return rounds.Of("DAEMONPLAN_ROLLOUT_ROUNDS", 20, 2) }

// progressiveStats shows which invariants the runs exercised: syncs in
// which the rollout wrote under each extension.
type progressiveStats struct {
	syncs, partition, scope, canaryGated, canaryAborted, zonesMulti, strict, surgeUnavailable, paused, frozen int
}

func (st *progressiveStats) count(s *snap, p daemonplan.Plan) {
	st.syncs++
	vs := s.visit(p.Hash)
	t := len(touched(vs, p))
	switch {
	case s.opts.Freeze:
		st.frozen++
	case s.opts.Pause:
		st.paused++
	}
	if t == 0 {
		if p.Progress.Held == rollout.CanaryAborted {
			st.canaryAborted++
		}
		return
	}
	if s.opts.Partition != nil {
		st.partition++
	}
	if s.opts.Scope != nil {
		st.scope++
	}
	if s.gating(p.Hash) {
		st.canaryGated++
	}
	if s.opts.Zones != nil && len(s.domains(vs, p.Hash)) > 2 {
		st.zonesMulti++
	}
	if s.opts.StrictBudgets {
		st.strict++
	}
	if s.opts.SurgeWithUnavailable && slices.ContainsFunc(p.Delete, func(d placement.Delete) bool { return d.Reason == placement.Outdated }) &&
		hasSurge(s) {
		st.surgeUnavailable++
	}
}

func hasSurge(s *snap) bool {
	ru := s.ds.UpdateStrategy.RollingUpdate
	return ru != nil && ru.MaxSurge != nil && (ru.MaxSurge.IsString || ru.MaxSurge.IntVal > 0)
}

func describePlan(p daemonplan.Plan) string {
	s := fmt.Sprintf("hash %s, held %v;", p.Hash, p.Progress.Held)
	for _, c := range p.Create {
		s += " +" + c.Node
	}
	for _, d := range p.Delete {
		s += fmt.Sprintf(" -%s(%s,%s)", d.Pod, d.Node, d.Reason)
	}
	if c := p.Progress.Canary; c != nil {
		s += fmt.Sprintf(" canary %v %v", c.Phase, c.Nodes)
	}
	if z := p.Progress.Zones; z != nil {
		s += fmt.Sprintf(" zones %+v", *z)
	}
	return s
}
