package placement

import (
	"time"
)

// Failed-pod backoff as upstream's kube-controller-manager wires it: 1 s
// doubling to 15 min, no jitter (upstream: startDaemonSetController's
// flowcontrol.NewBackOff, used in podsShouldBeOnNode; docs/manage.md, M10).
const (
	BackoffInitial = time.Second
	BackoffMax     = 15 * time.Minute
)

// BackoffKey names one backoff window: per DaemonSet UID, observed
// generation and node, so that a new generation starts afresh.
type BackoffKey struct {
	DaemonSetUID       string
	ObservedGeneration int64
	Node               string
}

// BackoffEntry is the state of one window.
type BackoffEntry struct {
	Delay      time.Duration
	LastUpdate time.Time
}

// Backoff is the failed-pod backoff state a caller keeps between plans: a
// plan reads one and returns the next. A nil Backoff is empty.
type Backoff map[BackoffKey]BackoffEntry

// expired reports an entry idle for more than twice the maximum delay;
// upstream then starts over at the initial delay.
func (e BackoffEntry) expired(now time.Time) bool {
	return now.Sub(e.LastUpdate) > 2*BackoffMax
}

// InBackoff reports whether key is still waiting at now: an entry exists,
// has not expired, and less than its delay has passed since its update.
func (b Backoff) InBackoff(key BackoffKey, now time.Time) (bool, time.Duration) {
	e, ok := b[key]
	if !ok || e.expired(now) {
		return false, 0
	}
	since := now.Sub(e.LastUpdate)
	if since < e.Delay {
		return true, e.Delay - since
	}
	return false, 0
}

// next returns the entry after one more failure at now.
func (b Backoff) next(key BackoffKey, now time.Time) BackoffEntry {
	e, ok := b[key]
	if !ok || e.expired(now) {
		return BackoffEntry{Delay: BackoffInitial, LastUpdate: now}
	}
	d := 2 * e.Delay
	if d > BackoffMax {
		d = BackoffMax
	}
	return BackoffEntry{Delay: d, LastUpdate: now}
}
