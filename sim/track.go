package sim

import (
	"container/heap"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
)

// A cluster is driven in one of two ways. By default every Sync is a whole
// daemonplan.Sync of Input, and Advance and NextEvent look at every pod:
// the cost of a step follows the cluster's size, and the caller may edit
// the exported fields between steps. Once [Cluster.Track] is called, the
// cluster keeps a daemonplan.Tracker beside its fields, an index of its pods and
// a queue of the pod events to come: a step costs what it changes. Both
// ways give the same plans, the same events and the same states (a
// property test holds them side by side), but for the order of Pods, which
// a tracked cluster does not keep.

type podKey struct{ namespace, name string }

func keyOf(p *api.Pod) podKey { return podKey{p.Namespace, p.Name} }

// event is a moment a pod may change without a write: a pending pod
// becoming Ready (or failing), a Ready pod becoming available, a deleted
// pod going. Events are checked when they come due: one that no longer
// applies is dropped.
type event struct {
	at  time.Time
	pod podKey
}

type events []event

func (h events) Len() int           { return len(h) }
func (h events) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h events) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *events) Push(x any)        { *h = append(*h, x.(event)) }
func (h *events) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// tracking is the state of a tracked cluster.
type tracking struct {
	tr *daemonplan.Tracker
	at map[podKey]int // position in Cluster.Pods
	// due are the pod events to come; changed the nodes whose pods changed
	// since Changed was last called.
	due     events
	changed map[string]struct{}
	// on holds the pods by the node touch names.
	on map[string][]podKey
}

// Track makes the cluster incremental from now on: Sync plans with a
// daemonplan.Tracker kept up to date by Apply, Advance and the DaemonSet
// updates (Update, SetStrategy, Rollback), and Advance and NextEvent look
// only at the pods whose time comes. After Track the caller must change
// the cluster only through its methods: an edit of Nodes, Pods, Revisions,
// DaemonSet, Now, Backoff, Options or ReadyAfter made directly is not seen
// by the planner. The order of Pods is not kept (a deleted pod's place
// goes to the last pod). The error is daemonplan.NewTracker's (a name held twice, a
// nil DaemonSet): the cluster then stays as it was.
func (c *Cluster) Track() error {
	tr, err := daemonplan.NewTracker(c.Input(), c.Options)
	if err != nil {
		return err
	}
	t := &tracking{tr: tr, at: make(map[podKey]int, len(c.Pods)), changed: map[string]struct{}{},
		on: make(map[string][]podKey, len(c.Nodes))}
	c.track = t
	for i := range c.Pods {
		k := keyOf(&c.Pods[i])
		t.at[k] = i
		t.on[nodeOf(&c.Pods[i])] = append(t.on[nodeOf(&c.Pods[i])], k)
		c.schedule(&c.Pods[i])
	}
	return nil
}

// Untrack ends what [Cluster.Track] began: the cluster plans with whole
// syncs again, and the caller may edit its fields between steps.
func (c *Cluster) Untrack() { c.track = nil }

// Tracked reports whether [Cluster.Track] was called (and not Untrack).
func (c *Cluster) Tracked() bool { return c.track != nil }

// schedule queues the next event of pod, if it has one.
func (c *Cluster) schedule(p *api.Pod) {
	t := c.track
	if t == nil {
		return
	}
	at, n := c.eventsOf(p)
	for _, when := range at[:n] {
		heap.Push(&t.due, event{at: when, pod: keyOf(p)})
	}
}

func (c *Cluster) minReady() time.Duration {
	return time.Duration(c.DaemonSet.MinReadySeconds) * time.Second
}

// available reports a Ready pod that is not available yet: its
// minReadySeconds run. The controller syncs again minReadySeconds and one
// second after a pod turns Ready (upstream: its pod update handler), since
// no status change marks the moment the pod becomes available.
func (c *Cluster) available(p *api.Pod) bool {
	mr := c.minReady()
	return mr > 0 && p.Ready && !p.Deleting && !api.IsTerminal(p) && p.ReadySince.Add(mr).After(c.Now)
}

// setPod tells the tracker that c.Pods[i] changed.
func (c *Cluster) setPod(i int) {
	if t := c.track; t != nil {
		t.tr.SetPod(c.Pods[i])
		c.touch(&c.Pods[i])
	}
}

func (c *Cluster) touch(p *api.Pod) {
	c.track.changed[nodeOf(p)] = struct{}{}
}

// nodeOf is the node a pod runs on, or targets while unscheduled.
func nodeOf(p *api.Pod) string {
	node, err := api.TargetNodeName(p)
	if err != nil || node == "" {
		node = p.NodeName
	}
	return node
}

// PodsOn returns the pods on node, or that target it while unscheduled,
// in no order: pointers into Pods, valid until the cluster next changes.
// A tracked cluster looks them up; another looks at every pod.
func (c *Cluster) PodsOn(node string) []*api.Pod {
	var out []*api.Pod
	if t := c.track; t != nil {
		for _, k := range t.on[node] {
			out = append(out, &c.Pods[t.at[k]])
		}
		return out
	}
	for i := range c.Pods {
		if nodeOf(&c.Pods[i]) == node {
			out = append(out, &c.Pods[i])
		}
	}
	return out
}

// addPod appends pod to the cluster.
func (c *Cluster) addPod(pod api.Pod) {
	c.Pods = append(c.Pods, pod)
	if t := c.track; t != nil {
		i := len(c.Pods) - 1
		t.at[keyOf(&pod)] = i
		t.on[nodeOf(&pod)] = append(t.on[nodeOf(&pod)], keyOf(&pod))
		c.setPod(i)
		c.schedule(&c.Pods[i])
	}
}

// removePods removes the pods gone reports.
func (c *Cluster) removePods(gone func(*api.Pod) bool) {
	t := c.track
	if t == nil {
		c.Pods = slices.DeleteFunc(c.Pods, func(p api.Pod) bool { return gone(&p) })
		return
	}
	for i := 0; i < len(c.Pods); {
		if !gone(&c.Pods[i]) {
			i++
			continue
		}
		c.removeAt(i)
	}
}

// removeAt removes c.Pods[i] of a tracked cluster: the last pod takes its
// place.
func (c *Cluster) removeAt(i int) {
	t := c.track
	p := c.Pods[i]
	c.touch(&p)
	t.tr.DeletePod(p.Namespace, p.Name)
	delete(t.at, keyOf(&p))
	n := nodeOf(&p)
	t.on[n] = slices.DeleteFunc(t.on[n], func(k podKey) bool { return k == keyOf(&p) })
	if len(t.on[n]) == 0 {
		delete(t.on, n)
	}
	delete(c.gone, p.Name)
	last := len(c.Pods) - 1
	if i != last {
		c.Pods[i] = c.Pods[last]
		t.at[keyOf(&c.Pods[i])] = i
	}
	c.Pods[last] = api.Pod{}
	c.Pods = c.Pods[:last]
}

// Changed returns the names of the nodes whose pods were created, changed
// or removed since the last call, in no order, and whether the cluster is
// tracked at all: an untracked cluster does not know (nil, false).
func (c *Cluster) Changed() ([]string, bool) {
	t := c.track
	if t == nil {
		return nil, false
	}
	out := make([]string, 0, len(t.changed))
	for n := range t.changed {
		out = append(out, n)
	}
	clear(t.changed)
	return out, true
}

// NextEvent returns how long until a pod changes without a write: the next
// pending pod due to become Ready or fail, the next Ready pod due to
// become available (minReadySeconds and one second after it turned Ready:
// the controller's own requeue), or the next deleted pod due to go. Zero
// means none will.
func (c *Cluster) NextEvent() time.Duration {
	if t := c.track; t != nil {
		for len(t.due) > 0 {
			e := t.due[0]
			if i, ok := t.at[e.pod]; ok && c.pending(&c.Pods[i], e.at) && e.at.After(c.Now) {
				return e.at.Sub(c.Now)
			}
			heap.Pop(&t.due)
		}
		return 0
	}
	var next time.Duration
	earliest := func(at time.Time) {
		if d := at.Sub(c.Now); d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	for i := range c.Pods {
		at, n := c.eventsOf(&c.Pods[i])
		for _, when := range at[:n] {
			earliest(when)
		}
	}
	return next
}

// eventsOf is when p changes without a write, at most two instants: it
// goes (a deleted pod's grace period ends), and it becomes Ready or fails
// (a pending pod) or becomes available (a Ready pod, minReadySeconds and
// one second after it turned Ready: the controller's own requeue). The
// tracked queue (schedule), the untracked scan (NextEvent) and the check
// of a queued event (pending) all read this one rule.
func (c *Cluster) eventsOf(p *api.Pod) (at [2]time.Time, n int) {
	if g, ok := c.gone[p.Name]; ok && p.Deleting && p.Namespace == c.DaemonSet.Namespace {
		at[n], n = g, n+1
	}
	switch {
	case p.Phase == api.PodPending:
		at[n], n = p.Created.Add(c.ReadyAfter), n+1
	case c.available(p):
		at[n], n = p.ReadySince.Add(c.minReady()+time.Second), n+1
	}
	return at, n
}

// pending reports that the event of p at still applies.
func (c *Cluster) pending(p *api.Pod, at time.Time) bool {
	due, n := c.eventsOf(p)
	for _, when := range due[:n] {
		if when.Equal(at) {
			return true
		}
	}
	return false
}

// Terminate sets when the pods being deleted that have no time to go yet
// (those found so, as by [FromInput]) go: after d from now. d of 0 or less
// leaves them forever.
func (c *Cluster) Terminate(d time.Duration) {
	if d <= 0 {
		return
	}
	for i := range c.Pods {
		p := &c.Pods[i]
		if _, ok := c.gone[p.Name]; ok || !p.Deleting || p.Namespace != c.DaemonSet.Namespace {
			continue
		}
		if c.gone == nil {
			c.gone = map[string]time.Time{}
		}
		c.gone[p.Name] = c.Now.Add(d)
		c.schedule(p)
	}
}
