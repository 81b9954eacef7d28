package rollout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// pnode is one visited node as the progressive step sees it.
type pnode struct {
	NodeView
	labels map[string]string // nil for a vanished node
	group  int               // rank of the node's zone group; 0 without zones, -1 for a vanished node
}

// compiled are Progressive's selectors, compiled once per step.
type compiled struct {
	scope, canary selector.Selector
}

func (p Progressive) compile() (compiled, error) {
	out := compiled{scope: selector.Everything(), canary: selector.Everything()}
	var err error
	if p.Scope != nil {
		if out.scope, err = selector.Compile(p.Scope); err != nil {
			return out, fmt.Errorf("invalid update scope: %w", err)
		}
	}
	if p.Canary != nil && p.Canary.Selector != nil {
		if out.canary, err = selector.Compile(p.Canary.Selector); err != nil {
			return out, fmt.Errorf("invalid canary selector: %w", err)
		}
	}
	return out, nil
}

// rollingUpdate is RollingUpdate with the extensions of p, which is not
// zero. The rules are those of docs/progressive-delivery.md; in short:
//
//  1. Freeze and Pause: no writes.
//  2. The update set: outdated nodes (one old pod, no new one) within
//     Scope, then within the canary nodes until the revision is promoted,
//     then the first outdated nodes in update order up to the partition,
//     then those of the active zone groups.
//  3. The budgets then apply to the update set (per group with
//     Zones.PerGroupBudgets, within the cluster's),
//     counting the nodes outside it only with StrictBudgets, which also
//     makes unavailable old pods cost budget; with SurgeWithUnavailable
//     maxUnavailable is spent after maxSurge.
func (p Progressive) rollingUpdate(nodes Nodes, now time.Time, hash string) (Step, Progress, error) {
	c := nodes.Compiled()
	ds := c.DaemonSet()
	avail := func(pod *api.Pod) bool { return api.IsAvailable(pod, ds.MinReadySeconds, now) }

	var prog Progress
	var ns []pnode
	presentOutdated, desired := 0, 0
	nodes.Visit(hash, func(v *NodeView, labels map[string]string) bool {
		ns = append(ns, pnode{NodeView: *v, labels: labels})
		n := &ns[len(ns)-1]
		n.Allowed = false
		if !n.Present {
			n.group = -1
		}
		if n.Present && n.Desired {
			desired++
		}
		if n.Outdated() {
			prog.Outdated++
			if n.Present {
				presentOutdated++
			}
		}
		return true
	})
	budgets, err := ResolveBudgets(ds, desired)
	step := Step{Budgets: budgets}
	if err != nil {
		return step, Progress{}, err
	}
	sel, err := p.compile()
	if err != nil {
		return step, Progress{}, err
	}
	if p.Partition != nil {
		prog.Partition, _ = scaleCount(p.Partition, desired, false)
	}
	switch {
	case p.Freeze:
		prog.Held = Frozen
		return step, prog, nil
	case p.Pause:
		prog.Held = Paused
		return step, prog, nil
	}

	// 1. Scope. Vanished nodes have no labels: with any node filter on,
	// the rolling update leaves them to pod GC. A partition that resolves
	// to 0 keeps no node back and filters nothing.
	filtered := p.Scope != nil || prog.Partition > 0 || p.Zones != nil || p.Canary != nil && p.Canary.Verdicts[hash] != Promote
	for i := range ns {
		n := &ns[i]
		switch {
		case !n.Outdated():
		case !n.Present:
			n.Allowed = !filtered
		default:
			n.Allowed = sel.scope.Matches(n.labels)
		}
	}
	if p.Scope != nil && countAllowed(ns) == 0 && prog.Outdated > 0 {
		prog.Held = OutOfScope
	}

	// 2. Canary.
	gating := false
	if p.Canary != nil {
		cp, inSet := p.canary(ns, desired, hash, now, avail, sel)
		prog.Canary = cp
		switch cp.Phase {
		case PhaseAborted:
			prog.Held = CanaryAborted
			return step, prog, nil
		case PhaseRunning, PhaseWaiting:
			gating = true
			for i := range ns {
				ns[i].Allowed = ns[i].Allowed && inSet[i]
			}
			if cp.Phase == PhaseWaiting {
				prog.Held = CanaryWaiting
			}
		}
	}

	// The decision table with the step's switches: the zones' ranks ask
	// it which nodes are in flight, the budgets what each node costs.
	cls := Classifier{MinReadySeconds: ds.MinReadySeconds, Now: now,
		StrictBudgets: p.StrictBudgets, SurgeWithUnavailable: p.SurgeWithUnavailable}

	// 3. Zone ranks, then the partition in update order, then the active
	// groups.
	var groups []*zgroup
	if p.Zones != nil && !gating {
		groups = p.Zones.rank(ns, &cls)
	}
	if p.Partition != nil {
		budget := max(presentOutdated-prog.Partition, 0)
		var order []*pnode
		for i := range ns {
			if n := &ns[i]; n.Allowed && n.Present {
				order = append(order, n)
			}
		}
		// Update order: group rank, then node names in reverse (OpenKruise's
		// order). Nodes already updated are no longer outdated: they have
		// used their share of budget.
		slices.SortFunc(order, func(a, b *pnode) int {
			return cmp.Or(cmp.Compare(a.group, b.group), strings.Compare(b.Name, a.Name))
		})
		for _, n := range order[min(budget, len(order)):] {
			n.Allowed = false
		}
		if budget == 0 && len(order) > 0 && prog.Held == NotHeld {
			prog.Held = PartitionReached
		}
	}
	if groups != nil {
		prog.Zones = activate(groups, p.Zones.concurrent())
	}
	prog.Allowed = countAllowed(ns)

	// 4. Budgets, over the whole cluster, or per active group within the
	// cluster's.
	ps := pass{
		cls:   cls,
		surge: budgets.Surge(),
		burst: c.Options().Burst(),
	}
	run := func(nodes []*pnode, b Budgets) error {
		d := ps.domain()
		for _, n := range nodes {
			if err := d.add(&n.NodeView); err != nil {
				return err
			}
		}
		d.close(b)
		return nil
	}
	if groups == nil || !p.Zones.PerGroupBudgets {
		// The cluster is one budget domain, as upstream's: zone groups
		// only choose the update set (7.4).
		all := make([]*pnode, len(ns))
		for i := range ns {
			all[i] = &ns[i]
		}
		err = run(all, budgets)
	} else {
		// Per group, within the cluster's quota: a group never spends
		// budget the cluster does not have.
		var t Tally
		for i := range ns {
			t.Add(ps.cls.Classify(&ns[i].NodeView), ps.surge)
		}
		limit := budgets.Quota(t, ps.surge, ps.cls.SurgeWithUnavailable)
		ps.limit = &limit
		for _, g := range groups {
			if !g.active || err != nil {
				continue
			}
			// A group of nodes that should not run the pod (holding old
			// pods) still gets a budget of at least one node, of the
			// cluster's quota.
			gb, _ := ResolveBudgets(ds, max(g.desired, 1))
			gb.Desired = g.desired
			err = run(g.nodes, gb)
		}
	}
	if err != nil {
		return Step{Budgets: budgets}, prog, err
	}
	return ps.finish(c, step, hash), prog, nil
}

func countAllowed(ns []pnode) int {
	k := 0
	for i := range ns {
		if ns[i].Allowed {
			k++
		}
	}
	return k
}
