package placement

import (
	"runtime"
	"time"

	"github.com/daemonplan/daemonplan/api"
)

// Status counts the DaemonSet's pods per node as upstream's status update
// does (docs/status.md, S1–S6), from the snapshot as it is (before the plan
// applies):
//
//  1. a node that should run the pod counts as desired; if it holds any pod
//     of the DaemonSet (failed, succeeded and terminating ones included) it
//     counts as current, and only its oldest pod decides ready, available
//     and updated;
//  2. a node that should not run the pod but holds one counts as
//     misscheduled, even when the pod may continue running;
//  3. unavailable = desired − available.
//
// ObservedGeneration is the DaemonSet's generation and CollisionCount is
// copied from its status; the one-sync facade adjusts both when upstream
// would.
func (ix *Index) Status(now time.Time, hash string) api.Status {
	if ix.c == nil {
		return api.Status{} // a zero Index, never indexed: no snapshot
	}
	var n NodeCount
	prefetched := 0
	for i := range ix.nodes {
		if i%prefetchBatch == 0 {
			prefetched += ix.prefetchOldest(i, min(i+prefetchBatch, len(ix.nodes)))
		}
		pods := ix.podsOn(i)
		n.Add(ix.c.CountNode(ix.decisions[i].Decision, pods, len(pods) > 0 && ix.isUpdated(i, 0, hash), now), 1)
	}
	runtime.KeepAlive(prefetched)
	return ix.c.Status(n)
}

// prefetchOldest reads, for the nodes lo to hi, the oldest pod's fields that
// Status and Manage read, its labels' header included, in a loop that only
// reads, so that their cache misses overlap: pods listed in lister order
// lie in memory in no order the nodes follow. It returns something of what
// it read, which the caller keeps (runtime.KeepAlive) so that the reads
// are not dropped.
func (ix *Index) prefetchOldest(lo, hi int) int {
	n := 0
	for i := lo; i < hi; i++ {
		if start := ix.start[i]; start < ix.start[i+1] {
			p := ix.pods[start]
			n += len(p.Phase) + len(p.Labels)
		}
	}
	return n
}
