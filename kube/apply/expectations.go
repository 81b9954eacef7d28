package apply

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/kube/load"
)

// DefaultExpectationsTTL is how long Expectations waits for the informers
// to show a pod create or delete before it gives up on it (upstream's
// ExpectationsTimeout), should they never show it.
const DefaultExpectationsTTL = 5 * time.Minute

// Expectations remembers the pod creates and deletes that Apply issued
// until a controller's informers show them, so that the plans made in
// between are made with kubesync.State.ExpectationsPending, as upstream's
// ControllerExpectations hold its sync back. Upstream counts writes; this
// keeps them by pod name, so that a snapshot alone tells which are seen.
//
// The zero value is ready to use; a nil *Expectations is not (its methods
// panic). Its methods may be called concurrently, from informer event
// handlers and the sync loop. The caller supplies the time, as everywhere
// in daemonplan.
type Expectations struct {
	// TTL is how long an unseen write is expected; 0 means
	// DefaultExpectationsTTL.
	TTL time.Duration

	mu   sync.Mutex
	pods map[string]expectation // by pod name
}

// expectation is a pod create (gone false) or delete (gone true) issued at
// at.
type expectation struct {
	gone bool
	at   time.Time
}

// Expect records the pods res created and the pods it deleted, at now.
// Failed writes are not expected: nothing will show them.
func (e *Expectations) Expect(res Result, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pods == nil {
		e.pods = map[string]expectation{}
	}
	for _, pod := range res.Created {
		if pod != nil {
			e.pods[pod.Name] = expectation{at: now}
		}
	}
	for _, w := range res.Writes {
		if w.Action == DeletePod && w.Err == nil {
			e.pods[w.Name] = expectation{gone: true, at: now}
		}
	}
}

// Deleted forgets the expectation of the named pod, for an informer's
// delete event: a deleted pod was seen gone, and, if it was expected as a
// create, seen created first.
func (e *Expectations) Deleted(podName string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pods, podName)
}

// Pending reports whether a write is still unseen in the snapshot c at
// now. It forgets, first, every create whose pod c holds (terminating or
// not), every delete whose pod c lacks or holds with a deletionTimestamp,
// and every expectation older than the TTL. A nil c holds no pod.
//
// A delete is seen once the pod is terminating, as upstream's pod update
// handler counts it (DeletionObserved when the deletionTimestamp is set):
// the pod may take its whole grace period to go, and every plan made in
// between would otherwise be held to a status refresh.
func (e *Expectations) Pending(c *load.Snapshot, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pods) == 0 {
		return false
	}
	// One pass over the snapshot, marking the expected writes it shows:
	// nothing allocated per pod, as a controller calls this every sync.
	seen := make(map[string]bool, len(e.pods))
	held := make(map[string]bool, len(e.pods))
	if c != nil {
		for _, p := range c.Pods {
			if p == nil {
				continue
			}
			x, ok := e.pods[p.Name]
			if !ok {
				continue
			}
			held[p.Name] = true
			if !x.gone || p.DeletionTimestamp != nil {
				seen[p.Name] = true // created, or deleted and terminating
			}
		}
	}
	ttl := e.TTL
	if ttl <= 0 {
		ttl = DefaultExpectationsTTL
	}
	for name, x := range e.pods {
		// A create is seen when c holds the pod, a delete when c lacks it
		// or holds it terminating.
		if seen[name] || x.gone && !held[name] || now.Sub(x.at) >= ttl {
			delete(e.pods, name)
		}
	}
	return len(e.pods) > 0
}

// PendingFor is Pending for objects looked up by name: pod returns the pod
// of that name the informers hold (nil for none). It looks up only the
// pods expected, so that it costs the writes not yet seen, not the pods of
// the cluster; it forgets and reports exactly as Pending does on a
// snapshot holding the same pods. A nil pod holds no pod.
func (e *Expectations) PendingFor(pod func(name string) *corev1.Pod, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	ttl := e.TTL
	if ttl <= 0 {
		ttl = DefaultExpectationsTTL
	}
	for name, x := range e.pods {
		var p *corev1.Pod
		if pod != nil {
			p = pod(name)
		}
		// A create is seen when the pod is held, a delete when it is not
		// or is terminating.
		seen := p != nil && !x.gone || x.gone && (p == nil || p.DeletionTimestamp != nil)
		if seen || now.Sub(x.at) >= ttl {
			delete(e.pods, name)
		}
	}
	return len(e.pods) > 0
}
