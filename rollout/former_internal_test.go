package rollout

// This file keeps the rolling update as it was written before its
// decision table moved into one place (engine.go): the upstream pass and
// the progressive engine, each with its own copy of the table. It is the
// differential oracle of TestEngineMatchesFormer; it runs only in tests.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// finish cuts the candidate lists to the burst limit, keeping their
// priority order, and sorts what is kept.
func formerFinish(c *placement.Compiled, step Step, creates []string, deletes []placement.Delete, hash string) Step {
	burst := c.Options().Burst()
	if len(creates) > burst {
		step.SkippedCreates = len(creates) - burst
		creates = creates[:burst]
	}
	if len(deletes) > burst {
		step.SkippedDeletes = len(deletes) - burst
		deletes = deletes[:burst]
	}
	creates = slices.Clone(creates)
	slices.Sort(creates)
	step.Create = c.CreatesFor(creates, hash)
	step.Delete = slices.Clone(deletes)
	slices.SortFunc(step.Delete, func(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	return step
}

// formerSplitPods finds the one new and the one old pod in bucket b, ignoring pods
// being deleted (docs/rolling-update.md, R6). ok is false when the node has
// two of either. Pods on a node of the snapshot are asked through the
// Cluster, which remembers the answers for the status.
func formerSplitPods(b placement.Bucket) (newPod, oldPod *api.Pod, ok bool) {
	for j, p := range b.Pods {
		if p.Deleting {
			continue
		}
		if b.Updated(j) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// formerRollingUpdate plans one pass of the RollingUpdate strategy over cl
// (upstream: rollingUpdate; docs/rolling-update.md), visiting nodes in name
// order where upstream uses map order (docs/determinism.md, D2). hash is the
// current revision's hash.
//
// Without surge (maxSurge 0), old pods that are not available are always
// deleted; available ones are deleted while the count of unavailable nodes
// stays below maxUnavailable. Replacements are created by a later manage.
//
// With surge, a node whose old pod is not available gets a new pod at once;
// other nodes get one while fewer than maxSurge nodes hold an unavailable
// new pod; an old pod goes once the new pod on its node is available; old
// pods on nodes that should no longer run the pod go only while more pods
// are available than nodes desire them. An old pod on a node missing from
// the snapshot is an error there, as upstream's node lookup fails. A nil
// cl, or a zero one never indexed, is an error.
func formerRollingUpdate(cl *placement.Index, now time.Time, hash string) (Step, error) {
	if cl == nil {
		return Step{}, errors.New("rollout.RollingUpdate: nil Cluster")
	}
	if cl.Compiled() == nil {
		return Step{}, errors.New("rollout.RollingUpdate: Cluster not indexed")
	}
	c := cl.Compiled()
	ds := c.DaemonSet()
	budgets, err := ResolveBudgets(ds, desiredNodes(cl))
	step := Step{Budgets: budgets}
	burst := c.Options().Burst()
	if err != nil {
		return step, err
	}
	available := func(p *api.Pod) bool { return api.IsAvailable(p, ds.MinReadySeconds, now) }
	var deletes []placement.Delete
	del := func(p *api.Pod, node string, why placement.DeleteReason) {
		deletes = append(deletes, placement.Delete{Pod: p.Name, Node: node, Reason: why})
	}

	if !budgets.Surge() {
		numUnavailable := 0
		candidates := formerCapped[placement.Delete]{limit: min(burst, budgets.MaxUnavailable)}
		for b := range visited(cl, hash) {
			newPod, oldPod, ok := formerSplitPods(b)
			switch {
			case !ok, newPod == nil && oldPod == nil, newPod != nil && oldPod != nil:
				// manage will settle this node; it counts as unavailable.
				numUnavailable++
			case newPod != nil:
				if !available(newPod) {
					numUnavailable++
				}
			case !available(oldPod):
				// Unavailable old pods are replaced regardless of the budget.
				del(oldPod, b.Node, placement.Outdated)
				numUnavailable++
			case numUnavailable < budgets.MaxUnavailable:
				candidates.add(placement.Delete{Pod: oldPod.Name, Node: b.Node, Reason: placement.Outdated})
			}
		}
		remaining := min(max(budgets.MaxUnavailable-numUnavailable, 0), candidates.n)
		taken, cut := candidates.first(remaining)
		step = formerFinish(c, step, nil, append(deletes, taken...), hash)
		step.SkippedDeletes += cut
		return step, nil
	}

	numSurge, numAvailable := 0, 0
	shouldNotRun := formerCapped[placement.Delete]{limit: burst}
	candidateNew := formerCapped[string]{limit: min(burst, budgets.MaxSurge)}
	var allowedNew []string
	for b := range visited(cl, hash) {
		newPod, oldPod, ok := formerSplitPods(b)
		if !ok {
			numSurge++
			continue
		}
		switch {
		case oldPod != nil:
			if available(oldPod) {
				numAvailable++
			}
		case newPod != nil:
			if available(newPod) {
				numAvailable++
			}
		}
		switch {
		case oldPod == nil:
			// Only a new pod, or none: manage handles the node.
		case newPod == nil:
			if !b.Present {
				return Step{Budgets: budgets}, fmt.Errorf("couldn't get node for nodeName %q: node %q not found", b.Node, b.Node)
			}
			shouldRun := b.ShouldRun
			switch {
			case !available(oldPod) && !shouldRun:
				del(oldPod, b.Node, placement.Outdated)
			case !available(oldPod):
				allowedNew = append(allowedNew, b.Node)
			case !shouldRun:
				shouldNotRun.add(placement.Delete{Pod: oldPod.Name, Node: b.Node, Reason: placement.Unschedulable})
			case numSurge < budgets.MaxSurge:
				candidateNew.add(b.Node)
			}
		case !available(newPod):
			numSurge++
		default:
			del(oldPod, b.Node, placement.SurgeReplaced)
		}
	}
	var cutDeletes int
	if deletable := numAvailable - budgets.Desired; deletable > 0 {
		var taken []placement.Delete
		taken, cutDeletes = shouldNotRun.first(min(deletable, shouldNotRun.n))
		deletes = append(deletes, taken...)
	}
	remaining := min(max(budgets.MaxSurge-numSurge, 0), candidateNew.n)
	taken, cutCreates := candidateNew.first(remaining)
	step = formerFinish(c, step, append(allowedNew, taken...), deletes, hash)
	step.SkippedCreates += cutCreates
	step.SkippedDeletes += cutDeletes
	return step, nil
}

// formerCapped collects candidates in priority order, keeping only the first
// limit (at most the burst limit, beyond which finish cuts anyway, and the
// budget) and counting the others.
type formerCapped[T any] struct {
	items []T
	n     int
	limit int
}

func (c *formerCapped[T]) add(x T) {
	if len(c.items) < c.limit {
		c.items = append(c.items, x)
	}
	c.n++
}

// first returns the first k candidates that were kept, and how many of the
// first k were not: they are beyond the burst limit.
func (c *formerCapped[T]) first(k int) ([]T, int) {
	kept := min(k, len(c.items))
	return c.items[:kept], k - kept
}

// formerProgressive plans one pass of the RollingUpdate strategy over cl with
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
func formerProgressive(p Progressive, cl *placement.Index, now time.Time, hash string) (Step, Progress, error) {
	if p.IsZero() || cl == nil || cl.Compiled() == nil {
		step, err := formerRollingUpdate(cl, now, hash)
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
	ns := make([]pnode, 0, len(cl.NodeDecisions())+len(cl.Vanished()))
	presentOutdated := 0
	for b := range visited(cl, hash) {
		ns = append(ns, pnode{Node: Node{Name: b.Node, Present: b.Present, Desired: b.ShouldRun, Pods: b.Pods}, labels: b.Labels()})
		n := &ns[len(ns)-1]
		if !n.Present {
			n.group = -1
		}
		var ok bool
		n.New, n.Old, ok = formerSplitPods(b)
		n.Crowded = !ok
		if n.Outdated() {
			prog.Outdated++
			if n.Present {
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
		case !n.Outdated():
		case !n.Present:
			n.Allowed = !filtered
		default:
			n.Allowed = sel.scope.Matches(n.labels)
		}
	}
	if p.Scope != nil && formerCountAllowed(ns) == 0 && prog.Outdated > 0 {
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
	prog.Allowed = formerCountAllowed(ns)

	// 4. Budgets, over the whole cluster or per active group.
	e := formerEngine{avail: avail, strict: p.StrictBudgets, combined: p.SurgeWithUnavailable, surge: budgets.Surge()}
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
	return formerFinish(c, step, creates, deletes, hash), prog, nil
}

func formerCountAllowed(ns []pnode) int {
	k := 0
	for i := range ns {
		if ns[i].Allowed {
			k++
		}
	}
	return k
}

// formerEngine applies RollingUpdate's budgets to one domain of nodes at a time
// and collects the writes, forced ones (outside the budgets) first as
// upstream orders them for the burst limit.
type formerEngine struct {
	avail                   func(*api.Pod) bool
	strict, combined, surge bool
	forcedDel, budgetDel    []placement.Delete
	forcedNew, budgetNew    []string
}

// counted reports whether n counts against the budgets: every node with
// StrictBudgets, else every node but the outdated ones outside the update
// set.
func (e *formerEngine) counted(n *pnode) bool { return e.strict || !n.Outdated() || n.Allowed }

func formerOutdatedDelete(n *pnode) placement.Delete {
	return placement.Delete{Pod: n.Old.Name, Node: n.Name, Reason: placement.Outdated}
}

func (e *formerEngine) run(nodes []*pnode, b Budgets) error {
	if !e.surge {
		e.replace(nodes, b)
		return nil
	}
	return e.surgeStep(nodes, b)
}

// replace is the pass without surge: delete old pods while fewer than
// maxUnavailable counted nodes are unavailable; manage creates the
// replacements.
func (e *formerEngine) replace(nodes []*pnode, b Budgets) {
	numUnavailable := 0
	var unready, cands []placement.Delete
	for _, n := range nodes {
		if !e.counted(n) {
			continue
		}
		switch {
		case n.Crowded, n.New == nil && n.Old == nil, n.New != nil && n.Old != nil:
			// Manage settles the node; it counts as unavailable.
			numUnavailable++
		case n.New != nil:
			if !e.avail(n.New) {
				numUnavailable++
			}
		case !e.avail(n.Old):
			switch {
			case !n.Allowed:
				// Strict: an unavailable old pod left alone costs nothing.
			case e.strict:
				unready = append(unready, formerOutdatedDelete(n))
			default:
				e.forcedDel = append(e.forcedDel, formerOutdatedDelete(n))
				numUnavailable++
			}
		case n.Allowed:
			cands = append(cands, formerOutdatedDelete(n))
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
func (e *formerEngine) surgeStep(nodes []*pnode, b Budgets) error {
	numSurge, numAvailable, numUnavailable := 0, 0, 0
	var shouldNotRun []placement.Delete
	var unready, cands []*pnode
	for _, n := range nodes {
		if e.combined && n.Desired && e.counted(n) && !(e.strict && n.Outdated()) && !e.anyAvailable(n) {
			numUnavailable++
		}
		if n.Crowded {
			if e.counted(n) {
				numSurge++
			}
			continue
		}
		switch {
		case n.Old != nil:
			if e.avail(n.Old) {
				numAvailable++
			}
		case n.New != nil:
			if e.avail(n.New) {
				numAvailable++
			}
		}
		switch {
		case n.Old == nil:
			// Only a new pod, or none: manage handles the node.
		case n.New == nil:
			if !n.Allowed {
				continue
			}
			if !n.Present {
				return fmt.Errorf("couldn't get node for nodeName %q: node %q not found", n.Name, n.Name)
			}
			switch {
			case !e.avail(n.Old) && !n.Desired:
				e.forcedDel = append(e.forcedDel, formerOutdatedDelete(n))
			case !e.avail(n.Old) && e.strict:
				unready = append(unready, n)
			case !e.avail(n.Old):
				e.forcedNew = append(e.forcedNew, n.Name)
			case !n.Desired:
				shouldNotRun = append(shouldNotRun, placement.Delete{Pod: n.Old.Name, Node: n.Name, Reason: placement.Unschedulable})
			default:
				cands = append(cands, n)
			}
		case !e.avail(n.New):
			numSurge++
		default:
			e.forcedDel = append(e.forcedDel, placement.Delete{Pod: n.Old.Name, Node: n.Name, Reason: placement.SurgeReplaced})
		}
	}
	if deletable := numAvailable - b.Desired; deletable > 0 {
		e.budgetDel = append(e.budgetDel, shouldNotRun[:min(deletable, len(shouldNotRun))]...)
	}
	cands = append(unready, cands...)
	k := min(max(b.MaxSurge-numSurge, 0), len(cands))
	for _, n := range cands[:k] {
		e.budgetNew = append(e.budgetNew, n.Name)
	}
	if e.combined && b.MaxUnavailable > 0 {
		rest := cands[k:]
		for _, n := range rest[:min(max(b.MaxUnavailable-numUnavailable, 0), len(rest))] {
			e.budgetDel = append(e.budgetDel, formerOutdatedDelete(n))
		}
	}
	return nil
}

// anyAvailable reports whether one of n's live pods is available.
func (e *formerEngine) anyAvailable(n *pnode) bool {
	for _, p := range n.Pods {
		if !p.Deleting && e.avail(p) {
			return true
		}
	}
	return false
}
