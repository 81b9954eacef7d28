package daemonplan

import (
	"maps"
	"math/bits"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// nodeState is one node name the plan can mention: a node of the list, or
// a vanished node that pods still target.
type nodeState struct {
	name     string
	node     api.Node // when real
	real     bool
	decision placement.Decision // when real
	// pods is the bucket: the claimed pods targeting the node, except those
	// terminal and being deleted, oldest first (placement.OlderPod).
	pods  []*api.Pod
	one   [1]*api.Pod // the bucket's array while it holds one pod
	sum   heldSummary
	flags uint32
	chunk *chunk
	// seen is the refresh round that last refreshed the node, so that a
	// round refreshes each node once.
	seen uint64
}

// heldSummary is a node's summary (nodeSummary) as the Tracker keeps it
// between events, in less room: a Tracker holds one per node, and a
// controller one Tracker per DaemonSet (20 DaemonSets over 5,000 nodes are
// 100,000 summaries). The manage decision is held only when there is one
// (most nodes need nothing: manage is nil), and the status counters, each
// 0 or 1 for one node (placement.CountNode), as bits.
type heldSummary struct {
	manage *placement.NodeManage
	oldPod string
	class  rollout.Class
	count  countBits
}

// countBits is one node's placement.NodeCount, a bit per counter.
type countBits uint8

const (
	countDesired countBits = 1 << iota
	countCurrent
	countReady
	countAvailable
	countUpdated
	countMisscheduled
)

// hold returns s as held. It panics on a counter other than 0 or 1,
// which placement.CountNode never returns for one node.
func hold(s nodeSummary) heldSummary {
	h := heldSummary{oldPod: s.oldPod, class: s.class}
	if m := &s.manage; m.Create || len(m.Delete) > 0 || m.BackoffSet || m.Backoff != (placement.BackoffEntry{}) || m.RequeueAfter != 0 {
		// A copy made here, not one declared above: the compiler would
		// put that on the heap for every node, held or not.
		h.manage = new(placement.NodeManage)
		*h.manage = *m
	}
	c := s.count
	h.count = countBit(c.Desired, countDesired) | countBit(c.Current, countCurrent) | countBit(c.Ready, countReady) |
		countBit(c.Available, countAvailable) | countBit(c.Updated, countUpdated) | countBit(c.Misscheduled, countMisscheduled)
	return h
}

// countBit is bit for a counter n of 1, nothing for 0.
func countBit(n int, bit countBits) countBits {
	switch n {
	case 0:
		return 0
	case 1:
		return bit
	}
	panic("daemonplan: a node's status counter is neither 0 nor 1")
}

// nodeCount returns the counters b holds.
func (b countBits) nodeCount() placement.NodeCount {
	one := func(bit countBits) int {
		if b&bit != 0 {
			return 1
		}
		return 0
	}
	return placement.NodeCount{Desired: one(countDesired), Current: one(countCurrent), Ready: one(countReady),
		Available: one(countAvailable), Updated: one(countUpdated), Misscheduled: one(countMisscheduled)}
}

// manageOf returns the manage decision h holds, the zero one when none.
func (h *heldSummary) manageOf() *placement.NodeManage {
	if h.manage == nil {
		return &noManage
	}
	return h.manage
}

// noManage is the zero manage decision; never written.
var noManage placement.NodeManage

// refresh recomputes the summary and flags of ns.
func (p *Tracker) refresh(ns *nodeState) {
	p.account(ns, -1)
	c, hash, pods := p.c, p.hash, ns.pods
	cls := rollout.Classifier{MinReadySeconds: p.dds.MinReadySeconds, Now: p.now}
	ns.sum = hold(summarize(c, &cls, ns.name, ns.real, ns.decision, pods,
		func(j int) bool { return c.IsUpdated(pods[j], hash) }, hash, p.backoff, nil, true))
	p.account(ns, 1)
	// A node holding a failed pod depends on the clock and the backoff
	// state: its manage is decided again when they move.
	if slices.ContainsFunc(pods, func(pod *api.Pod) bool { return pod.Phase == api.PodFailed && !pod.Deleting }) {
		p.clocked[ns] = struct{}{}
	} else {
		delete(p.clocked, ns)
	}
	for _, pod := range ns.pods {
		if at, ok := p.becomesAvailable(pod); ok {
			p.timers.push(at, ns)
		}
	}
}

// becomesAvailable returns when a Ready pod that is not yet available
// becomes so, if it will.
func (p *Tracker) becomesAvailable(pod *api.Pod) (time.Time, bool) {
	minReady := p.dds.MinReadySeconds
	if !pod.Ready || minReady == 0 || pod.ReadySince.IsZero() {
		return time.Time{}, false
	}
	at := pod.ReadySince.Add(time.Duration(minReady) * time.Second)
	return at, at.After(p.now)
}

// flagsOf derives the flags of a node from its summary.
func flagsOf(ns *nodeState) uint32 {
	s := &ns.sum
	f := placement.KindsOf(s.manage, ns.real) |
		passBit(s.class.Kind(false), false) | passBit(s.class.Kind(true), true)
	if ns.real {
		f |= fReal
	}
	return f
}

// totals are the sums of every node's summary.
type totals struct {
	deletes int
	count   placement.NodeCount
	// roll and rollSurge sum the node classes for each pass of the
	// rolling update.
	roll, rollSurge rollout.Tally
	// per flag: how many nodes carry it
	flagged [numFlags]int
}

// number returns how many nodes carry flag, a single flag.
func (t *totals) number(flag uint32) int { return t.flagged[bits.TrailingZeros32(flag)] }

// account adds (sign 1) or removes (sign -1) the contributions of ns; when
// adding it also sets the node's flags from its summary.
func (p *Tracker) account(ns *nodeState, sign int) {
	s := &ns.sum
	t := &p.tot
	if sign > 0 {
		f := flagsOf(ns)
		if ns.chunk != nil {
			p.nodes.setFlags(ns, f)
		} else {
			ns.flags = f
		}
	}
	t.deletes += sign * len(s.manageOf().Delete)
	t.count.Add(s.count.nodeCount(), sign)
	if sign > 0 {
		t.roll.Add(s.class, false)
		t.rollSurge.Add(s.class, true)
	} else {
		t.roll.Remove(s.class, false)
		t.rollSurge.Remove(s.class, true)
	}
	for f := ns.flags; f != 0; f &= f - 1 {
		t.flagged[bits.TrailingZeros32(f)] += sign
	}
}

// insertPod puts pod into the bucket of ns, keeping OlderPod order.
func (ns *nodeState) insertPod(pod *api.Pod) {
	if ns.pods == nil {
		ns.pods = ns.one[:0]
	}
	i, _ := slices.BinarySearchFunc(ns.pods, pod, placement.OlderPod)
	ns.pods = slices.Insert(ns.pods, i, pod)
}

// removePod takes pod out of the bucket of ns.
func (ns *nodeState) removePod(pod *api.Pod) {
	if i := slices.Index(ns.pods, pod); i >= 0 {
		ns.pods = slices.Delete(ns.pods, i, i+1)
	}
}

// trackerSource is a Tracker as the fold's source: its node list read by
// kind. (The source's methods are not the Tracker's own API.)
type trackerSource struct{ *Tracker }

// ManageCount implements placement.ManageSource.
func (p trackerSource) ManageCount(k placement.ManageKind) int { return p.tot.number(manageBit(k)) }

// ManageDeletes implements placement.ManageSource.
func (p trackerSource) ManageDeletes() int { return p.tot.deletes }

// EachManage implements placement.ManageSource.
func (p trackerSource) EachManage(k placement.ManageKind, yield func(string, *placement.NodeManage) bool) {
	p.nodes.each(manageBit(k), func(ns *nodeState) bool { return yield(ns.name, ns.sum.manageOf()) })
}

// PassTally implements rollout.PassSource.
func (p trackerSource) PassTally(surge bool) rollout.Tally {
	if surge {
		return p.tot.rollSurge
	}
	return p.tot.roll
}

// PassCount implements rollout.PassSource.
func (p trackerSource) PassCount(k rollout.PassKind, surge bool) int {
	if b := passBit(k, surge); b != 0 {
		return p.tot.number(b)
	}
	return 0
}

// EachPass implements rollout.PassSource.
func (p trackerSource) EachPass(k rollout.PassKind, surge bool, yield func(node, oldPod string, a rollout.NodeAction) bool) {
	b := passBit(k, surge)
	if b == 0 {
		return
	}
	p.nodes.each(b, func(ns *nodeState) bool {
		a := ns.sum.class.Replace
		if surge {
			a = ns.sum.class.Surge
		}
		return yield(ns.name, ns.sum.oldPod, a)
	})
}

func (s trackerSource) counts() placement.NodeCount { return s.tot.count }

func (s trackerSource) adoptRelease() (adopt, release []string) {
	return s.adopt.list(), s.release.list()
}

// live stands each revision hash the claimed pods with a target node carry
// for them all: history cleanup reads nothing else of them.
func (s trackerSource) live() []*api.Pod {
	live := make([]*api.Pod, 0, len(s.hashes))
	for h := range s.hashes {
		live = append(live, &api.Pod{Labels: map[string]string{api.LabelRevisionHash: h}})
	}
	return live
}

// keep lists, sorted, the bucketed pods deletes does not name.
func (s trackerSource) keep(deletes []placement.Delete) []string {
	gone := make(map[string]bool, len(deletes))
	for _, d := range deletes {
		gone[d.Pod] = true
	}
	out := []string{}
	s.nodes.all(func(ns *nodeState) {
		for _, pod := range ns.pods {
			if !gone[pod.Name] {
				out = append(out, pod.Name)
			}
		}
	})
	slices.Sort(out)
	return out
}

func (s trackerSource) view() rollout.Nodes { return s }

// Compiled implements rollout.Nodes.
func (s trackerSource) Compiled() *placement.Compiled { return s.c }

// Visit implements rollout.Nodes: the node list in name order.
func (s trackerSource) Visit(hash string, yield func(*rollout.NodeView, map[string]string) bool) {
	c, more := s.c, true
	s.nodes.all(func(ns *nodeState) {
		if !more || !(ns.real && ns.decision.ShouldRun) && len(ns.pods) == 0 {
			return
		}
		pods := ns.pods
		v := rollout.NodeView{Name: ns.name, Present: ns.real, Desired: ns.real && ns.decision.ShouldRun, Allowed: true}
		v.SetPods(pods, func(j int) bool { return c.IsUpdated(pods[j], hash) })
		var labels map[string]string
		if ns.real {
			labels = ns.node.Labels
		}
		more = yield(&v, labels)
	})
}

// Plan returns the plan a Sync of the [Tracker]'s state returns, without
// the two lists that name every node or pod (Plan.Nodes and Plan.Keep are
// nil): its cost depends on the writes of the plan, not on the size of
// the cluster. The error is Sync's.
func (p *Tracker) Plan() (Plan, error) { return p.plan(false) }

// FullPlan returns exactly the plan Sync(p.Input(), opts) returns, Nodes
// and Keep included. It costs O(n log n).
func (p *Tracker) FullPlan() (Plan, error) { return p.plan(true) }

func (p *Tracker) plan(full bool) (Plan, error) {
	if errs := p.opts.Progressive.Validate(); len(errs) > 0 {
		return Plan{}, errs.Prefix("progressive")
	}
	if p.invalid() || p.c == nil {
		// Planned by a whole sync: see the Tracker's documentation.
		plan, err := Sync(p.Input(), p.opts)
		if !full {
			plan.Nodes, plan.Keep = nil, nil
		}
		return plan, err
	}
	if p.opts.Strict && len(p.warnings) > 0 {
		return Plan{}, slices.Clone(p.warnings)
	}
	plan := Plan{
		Namespace: p.dds.Namespace,
		Name:      p.dds.Name,
		Status:    p.ds.Status.DeepCopy(),
		Backoff:   maps.Clone(p.backoff),
		Warnings:  slices.Clone(p.warnings),
	}
	if full {
		plan.Nodes = make([]placement.NodeDecision, 0, p.nodes.n)
		p.nodes.each(fReal, func(ns *nodeState) bool {
			plan.Nodes = append(plan.Nodes, placement.NodeDecision{Node: ns.name, Decision: ns.decision})
			return true
		})
	}
	// The plan's revision writes are the caller's: copies of the history
	// the Tracker keeps.
	h := p.hist
	h.Create, h.Update = deepCopies(h.Create), deepCopies(h.Update)
	h.DeleteDuplicates, h.Adopt, h.Release = slices.Clone(h.DeleteDuplicates), slices.Clone(h.Adopt), slices.Clone(h.Release)
	h.RelabelPods = slices.Clone(h.RelabelPods)
	h.CollisionCount = copyCount(h.CollisionCount)
	f := foldIn{ds: &p.dds, given: p.ds, c: p.c, opts: p.opts, now: p.now, backoff: p.backoff,
		pending: p.pending, hist: h, histErr: p.histErr, full: full}
	fold(f, func() source { return trackerSource{p} }, &plan)
	plan.Rollout = rollout.StatusMessage(&p.dds, plan.Status)
	return plan, nil
}

func deepCopies(rs []revision.Revision) []revision.Revision {
	if rs == nil {
		return nil
	}
	out := make([]revision.Revision, len(rs))
	for i := range rs {
		out[i] = rs[i].DeepCopy()
	}
	return out
}

func copyCount(c *int32) *int32 {
	if c == nil {
		return nil
	}
	n := *c
	return &n
}
