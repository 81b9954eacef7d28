package rollout

import (
	"errors"
	"iter"
	"runtime"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// Step is what one rolling-update pass decides, final and ready to merge
// into a plan: each list is cut to the burst limit (placement.Options.Burst)
// and sorted.
//
// The cut keeps upstream's priorities: deletes and creates forced by
// unavailable old pods come before the budgeted candidates, each group in
// node-name order, and the burst limit keeps the first of that order. Only
// then are the kept entries sorted.
type Step struct {
	Budgets Budgets
	// Create are the new pods, sorted by node, with the labels and
	// tolerations of the current revision.
	Create []placement.Create
	// Delete are the pods to delete, sorted by pod name.
	Delete []placement.Delete
	// SkippedCreates and SkippedDeletes count what the burst limit cut; a
	// later pass issues them.
	SkippedCreates, SkippedDeletes int
}

// bucket is one node's pods as the rolling update sees them.
type bucket struct {
	node    string
	index   int // index in the cluster's node list; -1 for a vanished node
	pods    []*api.Pod
	desired bool
}

// buckets yields, in node-name order, every node that holds pods of the
// DaemonSet (vanished nodes included) and every node that should run the
// pod, as upstream's rolling update visits them (in map order there).
// hash is the current revision's hash, for the read-ahead (see prefetchPods).
func buckets(cl *placement.Index, hash string) iter.Seq[bucket] {
	return func(yield func(bucket) bool) {
		vanished := cl.Vanished()
		v, prefetched := 0, 0
		for i := 0; i < cl.NumNodes(); i++ {
			if i%readAhead == 0 {
				prefetched += prefetchPods(cl, i, min(i+readAhead, cl.NumNodes()), hash)
			}
			name := cl.Node(i).Name
			for v < len(vanished) && vanished[v].Node < name {
				if !yield(bucket{node: vanished[v].Node, index: -1, pods: vanished[v].Pods}) {
					return
				}
				v++
			}
			pods := cl.PodsOn(i)
			run := cl.Decision(i).ShouldRun
			if (run || len(pods) > 0) && !yield(bucket{node: name, index: i, pods: pods, desired: run}) {
				return
			}
		}
		runtime.KeepAlive(prefetched)
		for ; v < len(vanished); v++ {
			if !yield(bucket{node: vanished[v].Node, index: -1, pods: vanished[v].Pods}) {
				return
			}
		}
	}
}

// readAhead is how many nodes buckets reads ahead.
const readAhead = 16

// prefetchPods reads, for the nodes lo to hi, the fields of each pod that the
// rolling update reads, and asks the Index whether the pod is updated
// (which it remembers for nodeOf), in a loop that does nothing else, so
// that the cache misses of several pods overlap: pods listed in lister
// order lie in memory in no order the nodes follow, and the labels of
// decoded pods each in memory of their own. It returns something of what
// it read, which the caller keeps so that the reads are not dropped.
func prefetchPods(cl *placement.Index, lo, hi int, hash string) int {
	n := 0
	for i := lo; i < hi; i++ {
		for j, p := range cl.PodsOn(i) {
			if p.Ready {
				n++
			}
			if !p.Deleting && cl.IsUpdated(i, j, hash) {
				n++
			}
		}
	}
	return n
}

// desiredNodes counts the nodes that should run the pod.
func desiredNodes(cl *placement.Index) int {
	desired := 0
	for _, d := range cl.NodeDecisions() {
		if d.ShouldRun {
			desired++
		}
	}
	return desired
}

// nodeOf is bucket b as the rolling update sees it, every node allowed.
// Pods on a node of the snapshot are asked through the Index, which
// remembers the answers for the status.
func nodeOf(cl *placement.Index, b bucket, hash string) Node {
	n := Node{Name: b.node, Present: b.index >= 0, Desired: b.desired, Allowed: true}
	if b.index >= 0 {
		n.SetPods(b.pods, func(j int) bool { return cl.IsUpdated(b.index, j, hash) })
	} else {
		c := cl.Compiled()
		n.SetPods(b.pods, func(j int) bool { return c.IsUpdated(b.pods[j], hash) })
	}
	return n
}

// RollingUpdate plans one pass of the RollingUpdate strategy over cl
// (upstream: rollingUpdate; docs/rolling-update.md) with the progressive
// extensions of p, and reports what they decided. hash is the current
// revision's hash. With the zero Progressive it is upstream's pass, and
// the Progress is zero. Nodes are visited in name order where upstream
// uses map order (docs/determinism.md, D2).
//
// Without surge (maxSurge 0), old pods that are not available are always
// deleted; available ones are deleted while the count of unavailable nodes
// stays below maxUnavailable. Replacements are created by a later manage.
//
// With surge, a node whose old pod is not available gets a new pod at once;
// other nodes get one while fewer than maxSurge nodes hold an unavailable
// new pod; an old pod goes once the new pod on its node is available; old
// pods on nodes that should no longer run the pod go only while more pods
// are available than nodes desire them. An old pod on a node missing from
// the snapshot is an error there, as upstream's node lookup fails.
//
// Classifier.Classify decides each node and Budgets.Quota how many
// candidates a budget domain takes; Progressive's rules
// (docs/progressive-delivery.md) choose the update set and the domains.
// p should be valid (Progressive.Validate); a selector of p that does not
// compile is an error. A nil cl, or a zero one never indexed, is an
// error.
func RollingUpdate(cl *placement.Index, now time.Time, hash string, p Progressive) (Step, Progress, error) {
	if cl == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: nil Index")
	}
	if cl.Compiled() == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: zero Index, never built")
	}
	if !p.IsZero() {
		return p.rollingUpdate(cl, now, hash)
	}
	c := cl.Compiled()
	ds := c.DaemonSet()
	budgets, err := ResolveBudgets(ds, desiredNodes(cl))
	step := Step{Budgets: budgets}
	if err != nil {
		return step, Progress{}, err
	}
	ps := pass{
		cls:   Classifier{MinReadySeconds: ds.MinReadySeconds, Now: now},
		surge: budgets.Surge(),
		burst: c.Options().Burst(),
	}
	// Without surge at most maxUnavailable candidates are taken, with it at
	// most maxSurge.
	budget := budgets.MaxUnavailable
	if ps.surge {
		budget = budgets.MaxSurge
	}
	ps.keep = max(min(ps.burst, budget), 0)
	d := ps.domain()
	for b := range buckets(cl, hash) {
		n := nodeOf(cl, b, hash)
		if err := d.add(&n); err != nil {
			return step, Progress{}, err
		}
	}
	d.close(budgets)
	return ps.finish(c, step, hash), Progress{}, nil
}
