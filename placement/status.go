package placement

import (
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
func (cl *Cluster) Status(now time.Time, hash string) api.Status {
	ds := cl.c.ds
	var s api.Status
	for i := range cl.nodes {
		pods := cl.PodsOn(i)
		if !cl.decisions[i].ShouldRun {
			if len(pods) > 0 {
				s.NumberMisscheduled++
			}
			continue
		}
		s.DesiredNumberScheduled++
		if len(pods) == 0 {
			continue
		}
		s.CurrentNumberScheduled++
		oldest := pods[0]
		if oldest.Ready {
			s.NumberReady++
			if api.IsAvailable(oldest, ds.MinReadySeconds, now) {
				s.NumberAvailable++
			}
		}
		if cl.c.IsUpdated(oldest, hash) {
			s.UpdatedNumberScheduled++
		}
	}
	s.NumberUnavailable = s.DesiredNumberScheduled - s.NumberAvailable
	s.ObservedGeneration = ds.Generation
	if ds.Status.CollisionCount != nil {
		cc := *ds.Status.CollisionCount
		s.CollisionCount = &cc
	}
	return s
}
