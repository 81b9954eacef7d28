package rollout

import (
	"errors"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/placement"
)

// This file is the rolling update's half of a sync's fold: each node is
// classified alone (Classifier.Classify), and one assembly (AssembleStep)
// turns the classes of one budget domain into the pass's writes, whichever
// source walks the nodes: RollingUpdate over an index, the facade's sync
// over an index or over the incremental tracker's node list.

// PassKind names the nodes of one kind that the pass assembly reads, each
// kind in node-name order.
type PassKind uint8

// The kinds of a pass. A node is of one kind per pass, or of none.
const (
	// ForcedDelete: the old pod goes regardless of the budgets
	// ([DeleteForced]; with surge also [DeleteReplaced]).
	ForcedDelete PassKind = iota + 1
	// ForcedCreate: a new pod regardless of maxSurge ([CreateForced]).
	ForcedCreate
	// PriorityCandidates: budgeted nodes taken before the others
	// ([PriorityCandidate]).
	PriorityCandidates
	// Candidates: budgeted nodes ([Candidate]).
	Candidates
	// Surplus: old pods on nodes that should no longer run the pod
	// ([DeleteSurplus]).
	Surplus
	// Missing: old pods on nodes missing from the snapshot ([MissingNode]).
	Missing
	numPassKinds = iota + 1
)

// Kind returns the kind of a node of class c in the pass with or without
// surge, 0 when the pass does nothing with it.
func (c Class) Kind(surge bool) PassKind {
	a := c.Replace
	if surge {
		a = c.Surge
	}
	switch a {
	case DeleteForced, DeleteReplaced:
		return ForcedDelete
	case CreateForced:
		return ForcedCreate
	case PriorityCandidate:
		return PriorityCandidates
	case Candidate:
		return Candidates
	case DeleteSurplus:
		return Surplus
	case MissingNode:
		return Missing
	}
	return 0
}

// PassSource is the classes of every node of one budget domain, as the
// assembly reads them: their tally, how many nodes are of each kind, and
// the nodes of one kind in name order.
type PassSource interface {
	// PassTally sums the classes for the pass with or without surge.
	PassTally(surge bool) Tally
	// PassCount returns how many nodes are of kind k in the pass.
	PassCount(k PassKind, surge bool) int
	// EachPass calls yield with every node of kind k in the pass, in
	// node-name order, until yield returns false: the node, its old pod
	// and its action.
	EachPass(k PassKind, surge bool, yield func(node, oldPod string, a NodeAction) bool)
}

// AssembleStep builds one pass of the rolling update over one budget
// domain from the classes of src (docs/rolling-update.md, R5–R16): the
// pass with surge when b says so, fails on an old pod of a missing node,
// then issues the forced writes and the budgeted ones ([Budgets.Quota]
// with surgeWithUnavailable), the forced ones first and each kind in
// node-name order, cut to the burst limit of c, and sorted. It reads at
// most the burst limit of nodes of each kind, but for the candidates
// with surgeWithUnavailable, of which it reads as many as the quota takes.
func AssembleStep(c *placement.Compiled, src PassSource, b Budgets, hash string, surgeWithUnavailable bool) (Step, error) {
	step := Step{Budgets: b}
	if c == nil || src == nil {
		return step, errors.New("rollout.AssembleStep: nil Compiled or source")
	}
	surge := b.Surge()
	if surge && src.PassCount(Missing, true) > 0 {
		var err error
		src.EachPass(Missing, true, func(node, _ string, _ NodeAction) bool {
			err = &MissingNodeError{Node: node}
			return false
		})
		return step, err
	}
	burst := c.Options().Burst()
	q := b.Quota(src.PassTally(surge), surge, surgeWithUnavailable)
	forcedD, forcedC := src.PassCount(ForcedDelete, surge), 0
	wantD, wantC := forcedD, 0
	if surge {
		forcedC = src.PassCount(ForcedCreate, true)
		wantD += q.Surplus + q.Down
		wantC = forcedC + q.Candidates
	} else {
		wantD += q.Candidates
	}
	step.SkippedDeletes, step.SkippedCreates = max(wantD-burst, 0), max(wantC-burst, 0)

	// The writes are taken in upstream's order for the burst limit: forced
	// ones first, then the budgeted ones (without surge the candidates'
	// deletes; with surge the surplus deletes and, with
	// SurgeWithUnavailable, the deletes of the candidates after those that
	// get a new pod), each kind in name order. Only then are they sorted.
	t := taker{src: src, surge: surge, burst: burst}
	if n := min(wantD, burst); n > 0 {
		t.deletes = make([]placement.Delete, 0, n)
	}
	if n := min(wantC, burst); n > 0 {
		t.creates = make([]string, 0, n)
	}
	if forcedD > 0 {
		t.takeDeletes(ForcedDelete, burst)
	}
	if forcedC > 0 {
		t.takeCreates(ForcedCreate, burst)
	}
	if surge && q.Surplus > 0 {
		t.takeDeletes(Surplus, q.Surplus)
	}
	// The candidates: priority ones first, then the others, each in name
	// order. The quota takes the first q.Candidates; with surge, the q.Down
	// after them lose their old pod.
	t.takeCandidates(q.Candidates, q.Down)
	creates, deletes := t.creates, t.deletes
	slices.Sort(creates)
	step.Create = c.CreatesFor(creates, hash)
	slices.SortFunc(deletes, func(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	step.Delete = deletes
	return step, nil
}

// taker collects a pass's writes from a source, within the burst limit.
type taker struct {
	src     PassSource
	surge   bool
	burst   int
	deletes []placement.Delete
	creates []string
}

// takeDeletes deletes the old pods of the first n nodes of kind k, within
// the burst limit.
func (t *taker) takeDeletes(k PassKind, n int) {
	if len(t.deletes) >= t.burst || t.src.PassCount(k, t.surge) == 0 {
		return
	}
	i := 0
	t.src.EachPass(k, t.surge, func(node, pod string, a NodeAction) bool {
		t.deletes = append(t.deletes, placement.Delete{Pod: pod, Node: node, Reason: a.DeleteReason()})
		i++
		return i < n && len(t.deletes) < t.burst
	})
}

// takeCreates gives the first n nodes of kind k a new pod, within the
// burst limit.
func (t *taker) takeCreates(k PassKind, n int) {
	if len(t.creates) >= t.burst || t.src.PassCount(k, t.surge) == 0 {
		return
	}
	i := 0
	t.src.EachPass(k, t.surge, func(node, _ string, _ NodeAction) bool {
		t.creates = append(t.creates, node)
		i++
		return i < n && len(t.creates) < t.burst
	})
}

// takeCandidates takes the first taken candidates (priority ones first):
// their old pods are deleted (without surge) or they get a new pod (with
// surge); with surge the down candidates after them lose their old pod
// (reason Outdated).
func (t *taker) takeCandidates(taken, down int) {
	n, take := 0, taken+down
	for _, k := range [...]PassKind{PriorityCandidates, Candidates} {
		if n >= take || t.src.PassCount(k, t.surge) == 0 {
			continue
		}
		t.src.EachPass(k, t.surge, func(node, pod string, _ NodeAction) bool {
			switch {
			case t.surge && n < taken:
				if len(t.creates) < t.burst {
					t.creates = append(t.creates, node)
				}
			case len(t.deletes) < t.burst:
				t.deletes = append(t.deletes, placement.Delete{Pod: pod, Node: node, Reason: placement.Outdated})
			}
			n++
			return n < take && (len(t.deletes) < t.burst || t.surge && n < taken && len(t.creates) < t.burst)
		})
	}
}

// PassLists is a [PassSource] filled by a walk over every node of a domain
// in name order, for both passes: it keeps of each kind the first nodes,
// as many as the assembly reads, and counts the rest. Its zero value is
// empty; Reset empties it and keeps its memory. A nil *PassLists is not
// usable, and its methods panic.
type PassLists struct {
	keep  int
	tally [2]Tally
	count [2][numPassKinds]int
	kept  [2][numPassKinds][]passEntry
}

type passEntry struct {
	node, pod string
	a         NodeAction
}

// Reset empties l for a walk whose assembly reads at most keep nodes of a
// kind (the burst limit, or more with SurgeWithUnavailable).
func (l *PassLists) Reset(keep int) {
	l.keep = keep
	l.tally = [2]Tally{}
	l.count = [2][numPassKinds]int{}
	for s := range l.kept {
		for k := range l.kept[s] {
			l.kept[s][k] = l.kept[s][k][:0]
		}
	}
}

// Add records the class c of the next node in name order, and its old pod
// (empty when it has none).
func (l *PassLists) Add(node, oldPod string, c Class) {
	if c == (Class{}) {
		return // counts nothing, of no kind
	}
	for s, surge := range [2]bool{false, true} {
		l.tally[s].Add(c, surge)
		k := c.Kind(surge)
		if k == 0 {
			continue
		}
		l.count[s][k]++
		if len(l.kept[s][k]) < l.keep {
			a := c.Replace
			if surge {
				a = c.Surge
			}
			l.kept[s][k] = append(l.kept[s][k], passEntry{node, oldPod, a})
		}
	}
}

func b2s(surge bool) int {
	if surge {
		return 1
	}
	return 0
}

// PassTally implements [PassSource].
func (l *PassLists) PassTally(surge bool) Tally { return l.tally[b2s(surge)] }

// PassCount implements [PassSource].
func (l *PassLists) PassCount(k PassKind, surge bool) int {
	if k == 0 || k >= numPassKinds {
		return 0
	}
	return l.count[b2s(surge)][k]
}

// EachPass implements [PassSource].
func (l *PassLists) EachPass(k PassKind, surge bool, yield func(node, oldPod string, a NodeAction) bool) {
	if k == 0 || k >= numPassKinds {
		return
	}
	for _, e := range l.kept[b2s(surge)][k] {
		if !yield(e.node, e.pod, e.a) {
			return
		}
	}
}
