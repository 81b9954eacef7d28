package rollout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
)

// pnode is one visited node as the progressive step sees it.
type pnode struct {
	bucket
	labels         map[string]string // nil for a vanished node
	newPod, oldPod *api.Pod
	ok             bool
	group          int  // rank of the node's zone group; 0 without zones, -1 for a vanished node
	allowed        bool // an outdated node the rolling update may touch
}

// outdated reports a node holding one old pod and no new one: the nodes a
// rollout still has to update.
func (n *pnode) outdated() bool { return n.ok && n.newPod == nil && n.oldPod != nil }

// present reports a node of the snapshot (not a vanished one).
func (n *pnode) present() bool { return n.index >= 0 }

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

// RollingUpdate plans one pass of the RollingUpdate strategy over cl with
// the extensions of p, and reports what they decided. With the zero value
// it returns RollingUpdate's step and a zero Progress. The rules are those
// of docs/progressive-delivery.md; in short:
//
//  1. Freeze and Pause: no writes.
//  2. The update set: outdated nodes (one old pod, no new one) within
//     Scope, then within the canary nodes until the revision is promoted,
//     then the first outdated nodes in update order up to the partition,
//     then those of the active zone groups.
//  3. The budgets of RollingUpdate then apply to the update set (per group
//     with Zones), counting the nodes outside it only with StrictBudgets,
//     which also makes unavailable old pods cost budget; with
//     SurgeWithUnavailable maxUnavailable is spent after maxSurge.
//
// p should be valid (Validate); a selector that does not compile is an
// error, and so is a nil or never indexed cl, as for RollingUpdate.
func (p Progressive) RollingUpdate(cl *placement.Cluster, now time.Time, hash string) (Step, Progress, error) {
	if p.IsZero() || cl == nil || cl.Compiled() == nil {
		step, err := RollingUpdate(cl, now, hash)
		return step, Progress{}, err
	}
	c := cl.Compiled()
	ds := c.DaemonSet()
	desired := desiredNodes(cl)
	budgets, err := ResolveBudgets(ds, desired)
	step := Step{Budgets: budgets}
	if err != nil {
		return step, Progress{}, err
	}
	sel, err := p.compile()
	if err != nil {
		return step, Progress{}, err
	}
	avail := func(pod *api.Pod) bool { return api.IsAvailable(pod, ds.MinReadySeconds, now) }

	var prog Progress
	// Every node that holds pods or should run one is a bucket: at most
	// the nodes and the vanished ones.
	ns := make([]pnode, 0, cl.NumNodes()+len(cl.Vanished()))
	presentOutdated := 0
	for b := range buckets(cl, hash) {
		ns = append(ns, pnode{bucket: b})
		n := &ns[len(ns)-1]
		if n.present() {
			n.labels = cl.Node(b.index).Labels
		} else {
			n.group = -1
		}
		n.newPod, n.oldPod, n.ok = splitPods(cl, b, hash)
		if n.outdated() {
			prog.Outdated++
			if n.present() {
				presentOutdated++
			}
		}
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
		case !n.outdated():
		case !n.present():
			n.allowed = !filtered
		default:
			n.allowed = sel.scope.Matches(n.labels)
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
				ns[i].allowed = ns[i].allowed && inSet[i]
			}
			if cp.Phase == PhaseWaiting {
				prog.Held = CanaryWaiting
			}
		}
	}

	// 3. Zone ranks, then the partition in update order, then the active
	// groups.
	var groups []*zgroup
	if p.Zones != nil && !gating {
		groups = p.Zones.rank(ns, avail)
	}
	if p.Partition != nil {
		budget := max(presentOutdated-prog.Partition, 0)
		var order []*pnode
		for i := range ns {
			if n := &ns[i]; n.allowed && n.present() {
				order = append(order, n)
			}
		}
		// Update order: group rank, then node names in reverse (OpenKruise's
		// order). Nodes already updated are no longer outdated: they have
		// used their share of budget.
		slices.SortFunc(order, func(a, b *pnode) int {
			return cmp.Or(cmp.Compare(a.group, b.group), strings.Compare(b.node, a.node))
		})
		for _, n := range order[min(budget, len(order)):] {
			n.allowed = false
		}
		if budget == 0 && len(order) > 0 && prog.Held == NotHeld {
			prog.Held = PartitionReached
		}
	}
	if groups != nil {
		prog.Zones = activate(groups, p.Zones.concurrent())
	}
	prog.Allowed = countAllowed(ns)

	// 4. Budgets, over the whole cluster or per active group.
	e := engine{avail: avail, strict: p.StrictBudgets, combined: p.SurgeWithUnavailable, surge: budgets.Surge()}
	if groups == nil {
		all := make([]*pnode, len(ns))
		for i := range ns {
			all[i] = &ns[i]
		}
		err = e.run(all, budgets)
	} else {
		for _, g := range groups {
			if !g.active || err != nil {
				continue
			}
			// A group of nodes that should not run the pod (holding old
			// pods) still gets a budget of at least one node.
			gb, _ := ResolveBudgets(ds, max(g.desired, 1))
			gb.Desired = g.desired
			err = e.run(g.nodes, gb)
		}
	}
	if err != nil {
		return Step{Budgets: budgets}, prog, err
	}
	deletes := append(e.forcedDel, e.budgetDel...)
	creates := append(e.forcedNew, e.budgetNew...)
	return finish(c, step, creates, deletes, hash), prog, nil
}

func countAllowed(ns []pnode) int {
	k := 0
	for i := range ns {
		if ns[i].allowed {
			k++
		}
	}
	return k
}

// engine applies RollingUpdate's budgets to one domain of nodes at a time
// and collects the writes, forced ones (outside the budgets) first as
// upstream orders them for the burst limit.
type engine struct {
	avail                   func(*api.Pod) bool
	strict, combined, surge bool
	forcedDel, budgetDel    []placement.Delete
	forcedNew, budgetNew    []string
}

// counted reports whether n counts against the budgets: every node with
// StrictBudgets, else every node but the outdated ones outside the update
// set.
func (e *engine) counted(n *pnode) bool { return e.strict || !n.outdated() || n.allowed }

func outdatedDelete(n *pnode) placement.Delete {
	return placement.Delete{Pod: n.oldPod.Name, Node: n.node, Reason: placement.Outdated}
}

func (e *engine) run(nodes []*pnode, b Budgets) error {
	if !e.surge {
		e.replace(nodes, b)
		return nil
	}
	return e.surgeStep(nodes, b)
}

// replace is the pass without surge: delete old pods while fewer than
// maxUnavailable counted nodes are unavailable; manage creates the
// replacements.
func (e *engine) replace(nodes []*pnode, b Budgets) {
	numUnavailable := 0
	var unready, cands []placement.Delete
	for _, n := range nodes {
		if !e.counted(n) {
			continue
		}
		switch {
		case !n.ok, n.newPod == nil && n.oldPod == nil, n.newPod != nil && n.oldPod != nil:
			// Manage settles the node; it counts as unavailable.
			numUnavailable++
		case n.newPod != nil:
			if !e.avail(n.newPod) {
				numUnavailable++
			}
		case !e.avail(n.oldPod):
			switch {
			case !n.allowed:
				// Strict: an unavailable old pod left alone costs nothing.
			case e.strict:
				unready = append(unready, outdatedDelete(n))
			default:
				e.forcedDel = append(e.forcedDel, outdatedDelete(n))
				numUnavailable++
			}
		case n.allowed:
			cands = append(cands, outdatedDelete(n))
		}
	}
	cands = append(unready, cands...)
	remaining := min(max(b.MaxUnavailable-numUnavailable, 0), len(cands))
	e.budgetDel = append(e.budgetDel, cands[:remaining]...)
}

// surgeStep is the pass with surge: a new pod next to an old one while
// fewer than maxSurge counted nodes surge; the old pod goes once the new
// one is available. With SurgeWithUnavailable, outdated nodes beyond the
// surge budget lose their old pod while fewer than maxUnavailable desired
// nodes lack an available pod.
func (e *engine) surgeStep(nodes []*pnode, b Budgets) error {
	numSurge, numAvailable, numUnavailable := 0, 0, 0
	var shouldNotRun []placement.Delete
	var unready, cands []*pnode
	for _, n := range nodes {
		if e.combined && n.desired && e.counted(n) && !(e.strict && n.outdated()) && !e.anyAvailable(n) {
			numUnavailable++
		}
		if !n.ok {
			if e.counted(n) {
				numSurge++
			}
			continue
		}
		switch {
		case n.oldPod != nil:
			if e.avail(n.oldPod) {
				numAvailable++
			}
		case n.newPod != nil:
			if e.avail(n.newPod) {
				numAvailable++
			}
		}
		switch {
		case n.oldPod == nil:
			// Only a new pod, or none: manage handles the node.
		case n.newPod == nil:
			if !n.allowed {
				continue
			}
			if !n.present() {
				return fmt.Errorf("couldn't get node for nodeName %q: node %q not found", n.node, n.node)
			}
			switch {
			case !e.avail(n.oldPod) && !n.desired:
				e.forcedDel = append(e.forcedDel, outdatedDelete(n))
			case !e.avail(n.oldPod) && e.strict:
				unready = append(unready, n)
			case !e.avail(n.oldPod):
				e.forcedNew = append(e.forcedNew, n.node)
			case !n.desired:
				shouldNotRun = append(shouldNotRun, placement.Delete{Pod: n.oldPod.Name, Node: n.node, Reason: placement.Unschedulable})
			default:
				cands = append(cands, n)
			}
		case !e.avail(n.newPod):
			numSurge++
		default:
			e.forcedDel = append(e.forcedDel, placement.Delete{Pod: n.oldPod.Name, Node: n.node, Reason: placement.SurgeReplaced})
		}
	}
	if deletable := numAvailable - b.Desired; deletable > 0 {
		e.budgetDel = append(e.budgetDel, shouldNotRun[:min(deletable, len(shouldNotRun))]...)
	}
	cands = append(unready, cands...)
	k := min(max(b.MaxSurge-numSurge, 0), len(cands))
	for _, n := range cands[:k] {
		e.budgetNew = append(e.budgetNew, n.node)
	}
	if e.combined && b.MaxUnavailable > 0 {
		rest := cands[k:]
		for _, n := range rest[:min(max(b.MaxUnavailable-numUnavailable, 0), len(rest))] {
			e.budgetDel = append(e.budgetDel, outdatedDelete(n))
		}
	}
	return nil
}

// anyAvailable reports whether one of n's live pods is available.
func (e *engine) anyAvailable(n *pnode) bool {
	for _, p := range n.pods {
		if !p.Deleting && e.avail(p) {
			return true
		}
	}
	return false
}
