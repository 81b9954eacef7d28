package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// This file is the rolling update's decision table, written once. Every
// engine goes through it: the upstream pass (RollingUpdate with the zero
// Progressive), every progressive extension, and the facade's sync, whose
// per-node summary holds one Class per node (the Tracker keeps them between
// changes and sums them as a Tally). The table has two halves:
//
//   - Classify decides each node alone: what it adds to the budget counts
//     and what the pass does with it (docs/rolling-update.md, R5–R16).
//   - Budgets.Quota turns the counts of one budget domain (the cluster, or
//     one zone group) into how many of the budgeted candidates are taken;
//     the candidates are taken in node-name order.

// NodeView is one node as the rolling update sees it: a node of the snapshot
// that should run the pod or holds one, or a node that vanished from the
// snapshot while pods still target it.
type NodeView struct {
	Name string
	// Present is false for a node missing from the snapshot.
	Present bool
	// Desired reports that the node should run the pod
	// (placement.Decision.ShouldRun); false for a vanished node.
	Desired bool
	// Pods are the DaemonSet's pods on the node, those being deleted
	// included.
	Pods []*api.Pod
	// New and Old are the node's one updated and one outdated pod that is
	// not being deleted (docs/rolling-update.md, R6); nil where there is
	// none, and both nil when Crowded.
	New, Old *api.Pod
	// Crowded reports two or more updated, or two or more outdated, pods
	// not being deleted: manage settles the node first.
	Crowded bool
	// Allowed reports that the pass may touch the node's outdated pod: it
	// is in the update set of the progressive extensions. Upstream's pass
	// (the zero Progressive) allows every node. Only outdated nodes read
	// it.
	Allowed bool
}

// SetPods sets Pods, New, Old and Crowded from pods, updated(j) telling
// whether pods[j] carries the current revision (docs/rolling-update.md,
// R2 and R6). A nil updated calls every pod outdated; nil pods are
// skipped; on a nil [NodeView] SetPods does nothing.
func (n *NodeView) SetPods(pods []*api.Pod, updated func(j int) bool) {
	if n == nil {
		return
	}
	n.Pods, n.New, n.Old, n.Crowded = pods, nil, nil, false
	for j, p := range pods {
		if p == nil || p.Deleting {
			continue
		}
		if updated != nil && updated(j) {
			if n.New != nil {
				n.New, n.Old, n.Crowded = nil, nil, true
				return
			}
			n.New = p
		} else {
			if n.Old != nil {
				n.New, n.Old, n.Crowded = nil, nil, true
				return
			}
			n.Old = p
		}
	}
}

// Outdated reports a node the rollout still has to update: one outdated
// pod and no updated one. A nil [NodeView] is not.
func (n *NodeView) Outdated() bool { return n != nil && !n.Crowded && n.New == nil && n.Old != nil }

// NodeAction is what a pass does with one node.
type NodeAction uint8

// The actions. The zero value is no action: manage handles the node, or it
// waits.
const (
	// DeleteForced deletes the old pod regardless of the budget: without
	// surge, an old pod that is not available; with surge, one that is not
	// available on a node that should not run the pod (reason Outdated).
	DeleteForced NodeAction = iota + 1
	// DeleteReplaced deletes the old pod next to an available new one
	// (surge; reason SurgeReplaced).
	DeleteReplaced
	// CreateForced creates a new pod next to an old one that is not
	// available, regardless of maxSurge (surge).
	CreateForced
	// Candidate is a node the budget may take: its old pod is deleted
	// within maxUnavailable (no surge), or it gets a new pod within
	// maxSurge (surge).
	Candidate
	// PriorityCandidate is a Candidate taken before the others: with
	// StrictBudgets, an old pod that is not available costs budget like
	// any other instead of going at once, and goes first.
	PriorityCandidate
	// DeleteSurplus deletes the old pod of a node that should no longer run
	// the pod while more pods are available than nodes desire them (surge;
	// reason Unschedulable).
	DeleteSurplus
	// MissingNode is an old pod on a node missing from the snapshot (surge):
	// the pass fails, as upstream's node lookup does.
	MissingNode
)

// Class is what one node adds to the pass: its counts and its action, for
// each of the two passes (which one runs depends on maxSurge scaled
// against every node of the domain, so incremental callers keep both).
type Class struct {
	// Without surge: the node counts against maxUnavailable.
	Unavailable bool
	// Replace is the action of the pass without surge: DeleteForced,
	// Candidate, PriorityCandidate or none.
	Replace NodeAction

	// With surge: the node counts against maxSurge (Surging), holds an
	// available pod, the old one if any (Available), and, with
	// SurgeWithUnavailable, is a desired node without an available pod
	// (Down).
	Surging, Available, Down bool
	// Surge is the action of the pass with surge.
	Surge NodeAction
}

// Classifier classifies nodes at one moment with one set of switches. The
// zero switches are upstream's table.
type Classifier struct {
	MinReadySeconds int32
	Now             time.Time
	// StrictBudgets and SurgeWithUnavailable are those of Progressive.
	StrictBudgets, SurgeWithUnavailable bool
}

func (c *Classifier) available(p *api.Pod) bool {
	return api.IsAvailable(p, c.MinReadySeconds, c.Now)
}

// Classify is the rolling update's decision for one node
// (docs/rolling-update.md, R5–R16 and R18; the progressive switches,
// docs/progressive-delivery.md). A node counts against the budgets unless
// it is outdated and outside the update set (with StrictBudgets every node
// counts). A nil [NodeView] has no class (the zero [Class]); a nil [Classifier]
// is the zero one.
func (c *Classifier) Classify(n *NodeView) Class {
	var cl Class
	if n == nil {
		return cl
	}
	if c == nil {
		c = &Classifier{}
	}
	outdated := n.Outdated()
	counted := c.StrictBudgets || !outdated || n.Allowed
	var oldAvailable bool
	if n.Old != nil {
		oldAvailable = c.available(n.Old)
	}

	// Without surge: delete old pods while fewer than maxUnavailable
	// counted nodes are unavailable; manage creates the replacements.
	if counted {
		switch {
		case n.Crowded, n.New == nil && n.Old == nil, n.New != nil && n.Old != nil:
			// Manage settles the node; it counts as unavailable.
			cl.Unavailable = true
		case n.New != nil:
			cl.Unavailable = !c.available(n.New)
		case !oldAvailable:
			switch {
			case !n.Allowed:
				// Strict: an unavailable old pod left alone costs nothing.
			case c.StrictBudgets:
				cl.Replace = PriorityCandidate
			default:
				// Replaced regardless of the budget.
				cl.Replace, cl.Unavailable = DeleteForced, true
			}
		case n.Allowed:
			cl.Replace = Candidate
		}
	}

	// With surge: a new pod next to an old one while fewer than maxSurge
	// counted nodes surge; the old pod goes once the new one is available.
	if c.SurgeWithUnavailable && n.Desired && counted && !(c.StrictBudgets && outdated) && !c.anyAvailable(n) {
		cl.Down = true
	}
	if n.Crowded {
		cl.Surging = counted
		return cl
	}
	switch {
	case n.Old != nil:
		cl.Available = oldAvailable
	case n.New != nil:
		cl.Available = c.available(n.New)
	}
	switch {
	case n.Old == nil:
		// Only a new pod, or none: manage handles the node.
	case n.New == nil:
		switch {
		case !n.Allowed:
		case !n.Present:
			cl.Surge = MissingNode
		case !oldAvailable && !n.Desired:
			cl.Surge = DeleteForced
		case !oldAvailable && c.StrictBudgets:
			cl.Surge = PriorityCandidate
		case !oldAvailable:
			cl.Surge = CreateForced
		case !n.Desired:
			cl.Surge = DeleteSurplus
		default:
			cl.Surge = Candidate
		}
	case !c.available(n.New):
		cl.Surging = true
	default:
		cl.Surge = DeleteReplaced
	}
	return cl
}

// anyAvailable reports whether one of n's pods not being deleted is
// available.
func (c *Classifier) anyAvailable(n *NodeView) bool {
	for _, p := range n.Pods {
		if p != nil && !p.Deleting && c.available(p) {
			return true
		}
	}
	return false
}

// Tally sums the classes of one budget domain for the pass that runs.
type Tally struct {
	// Unavailable (without surge), Surging, Available and Down (with
	// surge) count the nodes whose Class says so.
	Unavailable, Surging, Available, Down int
	// Candidates counts the Candidate and PriorityCandidate nodes of the
	// pass; Surplus the DeleteSurplus ones.
	Candidates, Surplus int
}

// Add adds one node's class to the tally of the pass with or without
// surge. On a nil [Tally] it does nothing.
func (t *Tally) Add(c Class, surge bool) { t.add(c, surge, 1) }

// Remove takes back what Add added, for callers that keep a tally as
// nodes change. On a nil [Tally] it does nothing.
func (t *Tally) Remove(c Class, surge bool) { t.add(c, surge, -1) }

func (t *Tally) add(c Class, surge bool, d int) {
	if t == nil {
		return
	}
	if !surge {
		t.Unavailable += d * b2i(c.Unavailable)
		if c.Replace == Candidate || c.Replace == PriorityCandidate {
			t.Candidates += d
		}
		return
	}
	t.Surging += d * b2i(c.Surging)
	t.Available += d * b2i(c.Available)
	t.Down += d * b2i(c.Down)
	switch c.Surge {
	case Candidate, PriorityCandidate:
		t.Candidates += d
	case DeleteSurplus:
		t.Surplus += d
	}
}

// Quota is how many budgeted nodes of a domain the pass takes, each kind
// in candidate order (priority candidates first, then node-name order).
type Quota struct {
	// Candidates: old pods deleted (without surge) or new pods created
	// (with surge), the first candidates.
	Candidates int
	// Surplus: DeleteSurplus old pods deleted.
	Surplus int
	// Down: with SurgeWithUnavailable, old pods deleted from the
	// candidates after the first Candidates ones.
	Down int
}

// Quota applies b to the tally of one domain (docs/rolling-update.md,
// R8 and R13–R15). surge says which pass runs: the Surge of the whole
// cluster's budgets, which a zone group's budgets follow. Without surge, candidates while fewer than
// maxUnavailable nodes are unavailable; with surge, candidates while fewer
// than maxSurge nodes surge, surplus old pods while more pods are
// available than nodes desire them, and, with surgeWithUnavailable and a
// positive maxUnavailable, further candidates lose their old pod while
// fewer than maxUnavailable desired nodes are down.
func (b Budgets) Quota(t Tally, surge, surgeWithUnavailable bool) Quota {
	if !surge {
		return Quota{Candidates: min(max(b.MaxUnavailable-t.Unavailable, 0), t.Candidates)}
	}
	var q Quota
	if deletable := t.Available - b.Desired; deletable > 0 {
		q.Surplus = min(deletable, t.Surplus)
	}
	q.Candidates = min(max(b.MaxSurge-t.Surging, 0), t.Candidates)
	if surgeWithUnavailable && b.MaxUnavailable > 0 {
		q.Down = min(max(b.MaxUnavailable-t.Down, 0), t.Candidates-q.Candidates)
	}
	return q
}

// DeleteReason is the reason a delete of action a gives its old pod.
func (a NodeAction) DeleteReason() placement.DeleteReason {
	switch a {
	case DeleteReplaced:
		return placement.SurgeReplaced
	case DeleteSurplus:
		return placement.Unschedulable
	}
	return placement.Outdated
}

// MissingNodeError is the error of a [MissingNode]: a pod of the
// DaemonSet is bound to a node that is not in the snapshot, during a
// surge rolling update. Upstream's sync fails with it (and with these
// words) before any write of the pass; a plan carries it in its errors.
type MissingNodeError struct {
	Node string // the pod's node name
}

func (e *MissingNodeError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("couldn't get node for nodeName %q: node %q not found", e.Node, e.Node)
}

// pass collects the writes of one rolling-update pass over one or more
// budget domains: forced ones (outside the budgets) first, as upstream
// orders them for the burst limit, then the budgeted ones domain by
// domain. want* count every write the pass decides, kept or not.
type pass struct {
	cls   Classifier
	surge bool
	burst int
	// limit, when set, is what is left of the cluster's quota: each
	// domain's quota is cut to it and spends it (Zones.PerGroupBudgets).
	limit   *Quota
	forcedD []placement.Delete
	forcedC []string
	budgetD []placement.Delete
	budgetC []string
	wantD   int
	wantC   int
}

// candidate is a budgeted node: where a create goes, which pod a delete
// takes.
type candidate struct{ node, pod string }

// domain is one budget domain of a pass.
type domain struct {
	p              *pass
	t              Tally
	priority, rest []candidate
	surplus        []placement.Delete
}

func (p *pass) domain() domain { return domain{p: p} }

// add classifies n and records it.
func (d *domain) add(n *NodeView) error {
	p := d.p
	c := p.cls.Classify(n)
	d.t.Add(c, p.surge)
	a := c.Replace
	if p.surge {
		a = c.Surge
	}
	switch a {
	case 0:
	case DeleteForced, DeleteReplaced:
		p.forcedD = append(p.forcedD, placement.Delete{Pod: n.Old.Name, Node: n.Name, Reason: a.DeleteReason()})
	case CreateForced:
		p.forcedC = append(p.forcedC, n.Name)
	case Candidate:
		d.rest = append(d.rest, candidate{n.Name, n.Old.Name})
	case PriorityCandidate:
		d.priority = append(d.priority, candidate{n.Name, n.Old.Name})
	case DeleteSurplus:
		if len(d.surplus) < p.burst { // beyond, the burst limit cuts
			d.surplus = append(d.surplus, placement.Delete{Pod: n.Old.Name, Node: n.Name, Reason: a.DeleteReason()})
		}
	case MissingNode:
		return &MissingNodeError{Node: n.Name}
	}
	return nil
}

// close takes the domain's quota of candidates under b.
func (d *domain) close(b Budgets) {
	p := d.p
	q := b.Quota(d.t, p.surge, p.cls.SurgeWithUnavailable)
	if l := p.limit; l != nil {
		q.Candidates, q.Surplus, q.Down = min(q.Candidates, l.Candidates), min(q.Surplus, l.Surplus), min(q.Down, l.Down)
		l.Candidates, l.Surplus, l.Down = l.Candidates-q.Candidates, l.Surplus-q.Surplus, l.Down-q.Down
	}
	cands := d.priority
	if len(d.rest) > 0 {
		cands = append(cands[:len(cands):len(cands)], d.rest...)
	}
	if !p.surge {
		taken := cands[:min(q.Candidates, len(cands))]
		p.budgetD = slices.Grow(p.budgetD, len(taken))
		for _, c := range taken {
			p.budgetD = append(p.budgetD, placement.Delete{Pod: c.pod, Node: c.node, Reason: placement.Outdated})
		}
		p.wantD += q.Candidates
		return
	}
	p.budgetD = append(p.budgetD, d.surplus[:min(q.Surplus, len(d.surplus))]...)
	p.wantD += q.Surplus
	taken := cands[:min(q.Candidates, len(cands))]
	p.budgetC = slices.Grow(p.budgetC, len(taken))
	for _, c := range taken {
		p.budgetC = append(p.budgetC, c.node)
	}
	p.wantC += q.Candidates
	if q.Down > 0 {
		rest := cands[len(taken):]
		for _, c := range rest[:min(q.Down, len(rest))] {
			p.budgetD = append(p.budgetD, placement.Delete{Pod: c.pod, Node: c.node, Reason: placement.Outdated})
		}
		p.wantD += q.Down
	}
}

// finish cuts the pass's writes to the burst limit, forced ones first, and
// sorts what is kept: creates by node, deletes by pod.
func (p *pass) finish(c *placement.Compiled, step Step, hash string) Step {
	wantD, wantC := len(p.forcedD)+p.wantD, len(p.forcedC)+p.wantC
	step.SkippedDeletes, step.SkippedCreates = max(wantD-p.burst, 0), max(wantC-p.burst, 0)
	creates := firstOf(p.forcedC, p.budgetC, p.burst)
	slices.Sort(creates)
	step.Create = c.CreatesFor(creates, hash)
	step.Delete = firstOf(p.forcedD, p.budgetD, p.burst)
	slices.SortFunc(step.Delete, func(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	return step
}

// firstOf returns a new slice of the first n elements of a then b, nil
// when there are none.
func firstOf[T any](a, b []T, n int) []T {
	n = min(n, len(a)+len(b))
	if n <= 0 {
		return nil
	}
	out := make([]T, 0, n)
	out = append(out, a[:min(len(a), n)]...)
	return append(out, b[:n-len(out)]...)
}
