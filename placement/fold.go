package placement

import (
	"maps"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan/api"
)

// This file is manage's half of a sync's fold: each node is decided alone
// (Compiled.ManageNode, Compiled.ManageVanished, Compiled.CountNode), and one
// assembly turns those per-node results into the manage plan and the
// status (AssembleManage, NodeCount.Status), whichever source walks the
// nodes: Index.Manage and Index.Status over an index, the facade's sync
// over an index or over the incremental tracker's node list.

// ManageKind names the nodes of one kind that the manage assembly reads,
// each kind in node-name order.
type ManageKind uint8

// The kinds. A node may be of several.
const (
	// ManageCreate: a node of the list that gets a pod.
	ManageCreate ManageKind = iota + 1
	// ManageDelete: a node of the list with pods to delete.
	ManageDelete
	// ManageGone: a vanished node (missing from the list) with unbound pods
	// to delete.
	ManageGone
	// ManageBackoff: a node whose failed-pod backoff window is set.
	ManageBackoff
	// ManageRequeue: a node holding a failed pod that waits out its
	// backoff window.
	ManageRequeue
	numManageKinds = iota + 1
)

// KindsOf returns the kinds of a node whose manage decision is m; present
// is false for a vanished node. The result has bit 1<<k set for each kind
// k.
func KindsOf(m *NodeManage, present bool) uint32 {
	var k uint32
	if m == nil {
		return 0
	}
	if present {
		if m.Create {
			k |= 1 << ManageCreate
		}
		if len(m.Delete) > 0 {
			k |= 1 << ManageDelete
		}
	} else if len(m.Delete) > 0 {
		k |= 1 << ManageGone
	}
	if m.BackoffSet {
		k |= 1 << ManageBackoff
	}
	if m.RequeueAfter > 0 {
		k |= 1 << ManageRequeue
	}
	return k
}

// ManageSource is the manage decisions of every node of one sync, as the
// assembly reads them: totals, and the nodes of one kind in name order.
type ManageSource interface {
	// ManageCount returns how many nodes are of kind k.
	ManageCount(k ManageKind) int
	// ManageDeletes returns how many pods the nodes delete in all, before
	// the burst limit.
	ManageDeletes() int
	// EachManage calls yield with every node of kind k, in node-name
	// order, until yield returns false.
	EachManage(k ManageKind, yield func(node string, m *NodeManage) bool)
}

// AssembleManage builds manage's plan from the per-node decisions of src
// (docs/manage.md, M6–M14), as upstream's manage issues them:
//
//  1. creates on the first nodes by name, at most the burst limit, none
//     when the pods would have no label ([ErrNoLabels]);
//  2. deletes in visiting order, the nodes of the list by name and then
//     the vanished ones, cut to the burst limit, then sorted by pod;
//  3. the backoff state: backoff with the windows the nodes set, less the
//     windows idle for longer than twice [BackoffMax];
//  4. RequeueAfter: the shortest wait of a failed pod.
//
// Nodes, Adopt, Release and Keep are left empty: they are the source's.
// backoff is read, not changed.
func (c *Compiled) AssembleManage(src ManageSource, now time.Time, hash string, backoff Backoff) (ManagePlan, error) {
	var p ManagePlan
	burst := c.opts.Burst()
	creates, deletes := src.ManageCount(ManageCreate), src.ManageDeletes()

	var err error
	switch {
	case creates > 0 && c.unlabelled(hash):
		err = ErrNoLabels
		p.SkippedCreates = creates
	case creates > 0:
		p.Create = c.CreatesFor(firstCreates(src, min(creates, burst)), hash)
		p.SkippedCreates = max(creates-burst, 0)
	}
	if deletes > 0 {
		p.Delete = firstDeletes(src, min(deletes, burst))
		slices.SortFunc(p.Delete, byPod)
		p.SkippedDeletes = max(deletes-burst, 0)
	}
	p.Backoff = maps.Clone(backoff)
	if p.Backoff == nil {
		p.Backoff = Backoff{}
	}
	if src.ManageCount(ManageBackoff) > 0 {
		c.setBackoff(src, p.Backoff)
	}
	gcBackoff(p.Backoff, now)
	if src.ManageCount(ManageRequeue) > 0 {
		p.RequeueAfter = shortestWait(src)
	}
	return p, err
}

// The walks of AssembleManage, each in a function of its own: what a
// walk's callback captures escapes to the heap (the source is an
// interface), and only when the walk runs.

// firstCreates lists the first n nodes that get a create.
func firstCreates(src ManageSource, n int) []string {
	out := make([]string, 0, n)
	src.EachManage(ManageCreate, func(node string, _ *NodeManage) bool {
		out = append(out, node)
		return len(out) < n
	})
	return out
}

// firstDeletes lists the first n deletes in visiting order: the nodes of
// the list by name, then the vanished ones.
func firstDeletes(src ManageSource, n int) []Delete {
	out := make([]Delete, 0, n)
	for _, k := range [...]ManageKind{ManageDelete, ManageGone} {
		src.EachManage(k, func(_ string, m *NodeManage) bool {
			out = append(out, m.Delete[:min(len(m.Delete), n-len(out))]...)
			return len(out) < n
		})
		if len(out) == n {
			break
		}
	}
	return out
}

// setBackoff records in b the windows the nodes set.
func (c *Compiled) setBackoff(src ManageSource, b Backoff) {
	src.EachManage(ManageBackoff, func(node string, m *NodeManage) bool {
		b[c.BackoffKey(node)] = m.Backoff
		return true
	})
}

// shortestWait is the shortest wait of a failed pod.
func shortestWait(src ManageSource) time.Duration {
	var d time.Duration
	src.EachManage(ManageRequeue, func(_ string, m *NodeManage) bool {
		if d == 0 || m.RequeueAfter < d {
			d = m.RequeueAfter
		}
		return true
	})
	return d
}

// ManageVanished decides a vanished node of Manage: the pods that target
// it but are not bound yet are deleted ([NodeGone]); bound ones are left to
// pod GC. The deletes are appended to dst.
func (c *Compiled) ManageVanished(dst []Delete, node string, pods []*api.Pod) NodeManage {
	m := NodeManage{Delete: dst}
	for _, pod := range pods {
		if pod.NodeName == "" {
			m.Delete = append(m.Delete, Delete{Pod: pod.Name, Node: node, Reason: NodeGone})
		}
	}
	return m
}

// ManageLists is a [ManageSource] filled by a walk over every node in
// name order: it keeps of each kind the nodes the assembly can read (the
// creates and deletes within the burst limit, every backoff window and
// requeue) and counts the rest. Its zero value is empty; Reset empties it
// and keeps its memory. A nil *ManageLists is not usable, and its methods
// panic.
type ManageLists struct {
	burst       int
	deletes     int
	count       [numManageKinds]int
	kept        [numManageKinds][]manageEntry
	kindDeletes [numManageKinds]int // deletes kept per kind
	buf         []Delete
}

type manageEntry struct {
	node string
	m    NodeManage
}

// Reset empties l for a walk whose assembly has the burst limit burst.
func (l *ManageLists) Reset(burst int) {
	l.burst, l.deletes, l.count = burst, 0, [numManageKinds]int{}
	for k := range l.kept {
		clear(l.kept[k])
		l.kept[k] = l.kept[k][:0]
	}
	l.kindDeletes = [numManageKinds]int{}
	clear(l.buf)
	l.buf = l.buf[:0]
}

// Add records the decision m of the next node in name order; present is
// false for a vanished node. m.Delete is copied when kept.
func (l *ManageLists) Add(node string, present bool, m *NodeManage) {
	kinds := KindsOf(m, present)
	if kinds == 0 {
		return
	}
	l.deletes += len(m.Delete)
	var e *manageEntry
	for k := ManageKind(1); k < numManageKinds; k++ {
		if kinds&(1<<k) == 0 {
			continue
		}
		l.count[k]++
		switch k {
		case ManageCreate:
			if len(l.kept[k]) >= l.burst {
				continue
			}
		case ManageDelete, ManageGone:
			if l.kindDeletes[k] >= l.burst {
				continue
			}
			l.kindDeletes[k] += len(m.Delete)
		}
		if e == nil {
			e = &manageEntry{node: node, m: *m}
			if len(m.Delete) > 0 {
				start := len(l.buf)
				l.buf = append(l.buf, m.Delete...)
				e.m.Delete = l.buf[start:len(l.buf):len(l.buf)]
			}
		}
		l.kept[k] = append(l.kept[k], *e)
	}
}

// ManageCount implements [ManageSource].
func (l *ManageLists) ManageCount(k ManageKind) int {
	if k == 0 || k >= numManageKinds {
		return 0
	}
	return l.count[k]
}

// ManageDeletes implements [ManageSource].
func (l *ManageLists) ManageDeletes() int { return l.deletes }

// EachManage implements [ManageSource].
func (l *ManageLists) EachManage(k ManageKind, yield func(string, *NodeManage) bool) {
	if k == 0 || k >= numManageKinds {
		return
	}
	for i := range l.kept[k] {
		if !yield(l.kept[k][i].node, &l.kept[k][i].m) {
			return
		}
	}
}

// NodeCount is one node's share of the status counters, or the sum of
// several nodes' (docs/status.md, S1–S6).
type NodeCount struct {
	Desired, Current, Ready, Available, Updated, Misscheduled int
}

// CountNode counts one node of the list for the status, as upstream's
// status update does, from the snapshot as it is (before the plan
// applies):
//
//  1. a node that should run the pod counts as desired; if it holds any
//     pod of the DaemonSet (failed, succeeded and terminating ones
//     included) it counts as current, and only its oldest pod, pods[0],
//     decides ready, available and updated (oldestUpdated: it carries the
//     current revision);
//  2. a node that should not run the pod but holds one counts as
//     misscheduled, even when the pod may continue running.
func (c *Compiled) CountNode(d Decision, pods []*api.Pod, oldestUpdated bool, now time.Time) NodeCount {
	var n NodeCount
	if !d.ShouldRun {
		if len(pods) > 0 {
			n.Misscheduled = 1
		}
		return n
	}
	n.Desired = 1
	if len(pods) == 0 {
		return n
	}
	n.Current = 1
	if oldest := pods[0]; oldest.Ready {
		n.Ready = 1
		if api.IsAvailable(oldest, c.ds.MinReadySeconds, now) {
			n.Available = 1
		}
	}
	if oldestUpdated {
		n.Updated = 1
	}
	return n
}

// Add adds m to n (sign 1), or takes it back (sign -1). On a nil
// [NodeCount] it does nothing.
func (n *NodeCount) Add(m NodeCount, sign int) {
	if n == nil {
		return
	}
	n.Desired += sign * m.Desired
	n.Current += sign * m.Current
	n.Ready += sign * m.Ready
	n.Available += sign * m.Available
	n.Updated += sign * m.Updated
	n.Misscheduled += sign * m.Misscheduled
}

// Status is the DaemonSet status counted n (docs/status.md, S1–S6):
// unavailable = desired − available, ObservedGeneration the DaemonSet's
// generation and CollisionCount copied from its status; the one-sync facade
// adjusts both when upstream would.
func (c *Compiled) Status(n NodeCount) api.Status {
	s := api.Status{
		CurrentNumberScheduled: int32(n.Current),
		NumberMisscheduled:     int32(n.Misscheduled),
		DesiredNumberScheduled: int32(n.Desired),
		NumberReady:            int32(n.Ready),
		UpdatedNumberScheduled: int32(n.Updated),
		NumberAvailable:        int32(n.Available),
		NumberUnavailable:      int32(n.Desired - n.Available),
		ObservedGeneration:     c.ds.Generation,
	}
	if c.ds.Status.CollisionCount != nil {
		cc := *c.ds.Status.CollisionCount
		s.CollisionCount = &cc
	}
	return s
}
