package replan

import (
	"math/bits"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
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
	sum   summary
	flags uint32
	chunk *chunk
	// seen is the refresh round that last refreshed the node, so that a
	// round refreshes each node once.
	seen uint64
}

// summary is what one node contributes to a plan: its part of manage, of
// the status counters and of both paths of the rolling update. Manage and
// the rolling update decide each node alone; only the budgets and the
// burst limit, applied when the plan is assembled, look at all of them.
type summary struct {
	// manage (placement.Compiled.ManageNode), before the burst limit
	create     bool
	deletes    []placement.Delete
	backoffSet bool
	backoff    placement.BackoffEntry
	requeue    time.Duration

	// status (placement.Index.Status), 0 or 1 each
	desired, current, ready, available, updated, misscheduled int

	// roll is the node's class in the rolling update (both of its
	// passes: which one runs depends on maxSurge scaled against the
	// desired count of all nodes), and oldPod the old pod it speaks of;
	// the rolling update is assembled from the sum of every node's class.
	roll   rollout.Class
	oldPod *api.Pod

	// clock says that the node's manage depends on the clock and the
	// backoff state: it holds a failed pod.
	clock bool
}

// refresh recomputes the summary and flags of ns.
func (p *Tracker) refresh(ns *nodeState) {
	p.account(ns, -1)
	ns.sum = p.summarize(ns)
	p.account(ns, 1)
	if ns.sum.clock {
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

// summarize computes what ns contributes, by the rules of
// placement.Compiled.ManageNode, placement.Index.Status and
// rollout.Classifier.Classify (docs/manage.md, docs/status.md,
// docs/rolling-update.md).
func (p *Tracker) summarize(ns *nodeState) summary {
	var s summary
	c, hash, now := p.c, p.hash, p.now
	pods := ns.pods
	available := func(pod *api.Pod) bool { return api.IsAvailable(pod, p.dds.MinReadySeconds, now) }
	for _, pod := range pods {
		if pod.Phase == api.PodFailed && !pod.Deleting {
			s.clock = true
		}
	}

	if ns.real {
		d := ns.decision
		m := c.ManageNode(nil, ns.name, d, pods, now, hash, p.backoff)
		s.create, s.deletes = m.Create, m.Delete
		s.backoffSet, s.backoff, s.requeue = m.BackoffSet, m.Backoff, m.RequeueAfter

		switch {
		case !d.ShouldRun:
			if len(pods) > 0 {
				s.misscheduled = 1
			}
		default:
			s.desired = 1
			if len(pods) > 0 {
				s.current = 1
				oldest := pods[0]
				if oldest.Ready {
					s.ready = 1
					if available(oldest) {
						s.available = 1
					}
				}
				if c.IsUpdated(oldest, hash) {
					s.updated = 1
				}
			}
		}
	} else {
		for _, pod := range pods {
			if pod.NodeName == "" {
				s.deletes = append(s.deletes, placement.Delete{Pod: pod.Name, Node: ns.name, Reason: placement.NodeGone})
			}
		}
	}

	// The rolling update visits the nodes that should run the pod or hold
	// one, and decides each alone (rollout.Classifier.Classify).
	if !inRollingUpdate(ns) {
		return s
	}
	n := rollout.NodeView{Name: ns.name, Present: ns.real, Desired: ns.real && ns.decision.ShouldRun, Allowed: true}
	n.SetPods(pods, func(j int) bool { return c.IsUpdated(pods[j], hash) })
	cls := rollout.Classifier{MinReadySeconds: p.dds.MinReadySeconds, Now: now}
	s.roll, s.oldPod = cls.Classify(&n), n.Old
	return s
}

// inRollingUpdate reports whether the rolling update visits ns: a node that
// should run the pod, or any node (vanished ones included) that holds one.
func inRollingUpdate(ns *nodeState) bool {
	return (ns.real && ns.decision.ShouldRun) || len(ns.pods) > 0
}

// flagsOf derives the flags of a node from its summary.
func flagsOf(ns *nodeState) uint32 {
	s := &ns.sum
	f := rollFlags(s.roll)
	if ns.real {
		f |= fReal
		if s.create {
			f |= fCreate
		}
		if len(s.deletes) > 0 {
			f |= fDelete
		}
	} else if len(s.deletes) > 0 {
		f |= fGone
	}
	if s.backoffSet {
		f |= fBackoff
	}
	if s.requeue > 0 {
		f |= fRequeue
	}
	return f
}

// totals are the sums of every node's summary.
type totals struct {
	creates, deletes                                          int
	desired, current, ready, available, updated, misscheduled int
	// roll and rollSurge sum the node classes for each pass of the
	// rolling update.
	roll, rollSurge rollout.Tally
	// per flag: how many nodes carry it
	flagged [numFlags]int
}

// count returns how many nodes carry flag, a single flag.
func (t *totals) count(flag uint32) int { return t.flagged[bits.TrailingZeros32(flag)] }

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
	if ns.flags&fCreate != 0 {
		t.creates += sign
	}
	t.deletes += sign * len(s.deletes)
	t.desired += sign * s.desired
	t.current += sign * s.current
	t.ready += sign * s.ready
	t.available += sign * s.available
	t.updated += sign * s.updated
	t.misscheduled += sign * s.misscheduled
	if sign > 0 {
		t.roll.Add(s.roll, false)
		t.rollSurge.Add(s.roll, true)
	} else {
		t.roll.Remove(s.roll, false)
		t.rollSurge.Remove(s.roll, true)
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

// rollFlags are the flags of a node's rolling-update class: one per action
// of each pass, so that the assembly takes the nodes of an action in name
// order.
func rollFlags(c rollout.Class) uint32 {
	var f uint32
	switch c.Replace {
	case rollout.DeleteForced:
		f |= fForced
	case rollout.Candidate:
		f |= fCand
	}
	switch c.Surge {
	case rollout.DeleteForced, rollout.DeleteReplaced:
		f |= fSDelete
	case rollout.CreateForced:
		f |= fSAllowed
	case rollout.DeleteSurplus:
		f |= fSUnsched
	case rollout.Candidate:
		f |= fSCand
	case rollout.MissingNode:
		f |= fSErr
	}
	return f
}
