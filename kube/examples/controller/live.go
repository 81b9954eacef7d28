package main

import (
	"context"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/apply"
)

// gone reports whether the API server no longer has ds as the informers
// show it: not found, found under another UID (deleted and created
// again), or being deleted. The informers may lag behind a deletion the
// garbage collector has already acted on; a write planned on their view
// would recreate a revision or a pod for a DaemonSet that is gone. The
// read is a quorum read (no resourceVersion): it sees every deletion
// before it.
func (c *Controller) gone(ctx context.Context, ds *appsv1.DaemonSet) (bool, error) {
	live, err := c.Client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return live.UID != ds.UID || live.DeletionTimestamp != nil, nil
}

// changesOwners reports whether applying p changes what the DaemonSet
// owns by adoption or release, or creates a revision: those writes need
// the DaemonSet read first (gone), for a DaemonSet that is gone they
// would leave objects the garbage collector does not remove (created while
// it orphans them), or take one out of its reach. Pod creates need the
// read only after a loss (needsRead). The plan's other writes are held to
// the UID and resourceVersion of what they change (deletes, relabels,
// revision updates, the status), which the garbage collector's work on a
// deleted DaemonSet changes: they fail rather than act on it, and cost no
// read, as upstream's writes read nothing first.
func changesOwners(p daemonplan.Plan) bool {
	r := p.Revisions
	return len(r.Create)+len(r.Adopt)+len(r.Release)+len(p.Adopt)+len(p.Release) > 0
}

// needsRead reports whether the DaemonSet is read from the API server
// before p is applied: for the writes changesOwners names, and for pod
// creates after a loss, a pod of the DaemonSet deleted by someone other
// than this controller since the last read. The garbage collector deletes
// a deleted DaemonSet's pods, and its pod events may reach the informers
// before the DaemonSet's own; the plan made on that view recreates the
// pods. Upstream has the same race (its pods are then deleted again by the
// garbage collector, as their owner is gone); this controller writes
// nothing for a DaemonSet that is gone, at one read after a pod it did not
// delete goes, not one before every sync that creates pods: a rollout's
// creates follow the controller's own deletes, and the read, at the
// client's rate limit, delayed each of its steps.
func needsRead(p daemonplan.Plan, lost bool) bool {
	return changesOwners(p) || lost && len(p.Create) > 0
}

// losses tells the pods of one DaemonSet this controller deletes from the
// pods someone else deletes (the garbage collector, an eviction, a user):
// the second make the next create read the DaemonSet first (needsRead).
// It starts lost, so the first sync after a restart reads it too. Its
// methods are called from the event handlers and the sync.
type losses struct {
	mu       sync.Mutex
	lost     bool
	checked  bool                 // read at least once
	deleting map[string]time.Time // pod name: when this controller deleted it
}

// deleteTTL bounds how long a delete this controller issued is waited for
// (apply.DefaultExpectationsTTL, as the expectations wait).
const deleteTTL = apply.DefaultExpectationsTTL

// willDelete records the pods p deletes, before they are deleted: the
// informers may show a pod terminating before Apply returns.
func (l *losses) willDelete(p daemonplan.Plan, now time.Time) {
	if len(p.Delete) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deleting == nil {
		l.deleting = map[string]time.Time{}
	}
	for name, at := range l.deleting {
		if now.Sub(at) >= deleteTTL {
			delete(l.deleting, name)
		}
	}
	for _, d := range p.Delete {
		l.deleting[d.Pod] = now
	}
}

// settle forgets the deletes of p that res does not show issued without
// an error (failed, not issued, or never reached when Apply stopped
// early): those pods were not deleted by this controller.
func (l *losses) settle(p daemonplan.Plan, res apply.Result) {
	if len(p.Delete) == 0 {
		return
	}
	done := map[string]bool{}
	for _, w := range res.Writes {
		if w.Action == apply.DeletePod && w.Err == nil {
			done[w.Name] = true
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range p.Delete {
		if !done[d.Pod] {
			delete(l.deleting, d.Pod)
		}
	}
}

// gone records that the informers show the named pod terminating or
// deleted (final: the delete event, which ends its record).
func (l *losses) gone(pod string, final bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ours := l.deleting[pod]; !ours {
		l.lost = true
	}
	if final {
		delete(l.deleting, pod)
	}
}

// take reports whether a loss is unread (or nothing was read yet) and
// clears it: the read that follows sees every deletion before it.
func (l *losses) take() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := l.lost || !l.checked
	l.lost, l.checked = false, true
	return lost
}

// keep puts back a loss take cleared when the read did not happen.
func (l *losses) keep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost = true
}
