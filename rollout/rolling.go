package rollout

import (
	"errors"
	"iter"
	"time"

	"github.com/daemonplan/daemonplan/placement"
)

// Step is what one rolling-update pass decides, final and ready to merge
// into a plan: each list is cut to the burst limit ([placement.Options.Burst])
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

// visited yields, in node-name order, every node that holds pods of the
// DaemonSet (vanished nodes included) and every node that should run the
// pod, as upstream's rolling update visits them (in map order there).
// hash is the current revision's hash.
func visited(ix *placement.Index, hash string) iter.Seq[placement.Bucket] {
	return func(yield func(placement.Bucket) bool) {
		for b := range ix.Buckets(hash) {
			if (b.ShouldRun || len(b.Pods) > 0) && !yield(b) {
				return
			}
		}
	}
}

// desiredNodes counts the nodes that should run the pod.
func desiredNodes(ix *placement.Index) int {
	desired := 0
	for _, d := range ix.NodeDecisions() {
		if d.ShouldRun {
			desired++
		}
	}
	return desired
}

// nodeOf is bucket b as the rolling update sees it, every node allowed.
func nodeOf(b *placement.Bucket) NodeView {
	n := NodeView{Name: b.Node, Present: b.Present, Desired: b.ShouldRun, Allowed: true}
	n.SetPods(b.Pods, b.Updated)
	return n
}

// RollingUpdate plans one pass of the RollingUpdate strategy over ix
// (upstream: rollingUpdate; docs/rolling-update.md) with the progressive
// extensions of p, and reports what they decided. hash is the current
// revision's hash. With the zero [Progressive] it is upstream's pass, and
// the [Progress] is zero. Nodes are visited in name order where upstream
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
// [Classifier.Classify] decides each node and [Budgets.Quota] how many
// candidates a budget domain takes; [Progressive]'s rules
// (docs/progressive-delivery.md) choose the update set and the domains.
// p should be valid ([Progressive.Validate]); a selector of p that does not
// compile is an error. A nil ix, or a zero one never indexed, is an
// error.
func RollingUpdate(ix *placement.Index, now time.Time, hash string, p Progressive) (Step, Progress, error) {
	if ix == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: nil Index")
	}
	if ix.Compiled() == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: zero Index, never built")
	}
	if !p.IsZero() {
		return p.rollingUpdate(ix, now, hash)
	}
	c := ix.Compiled()
	ds := c.DaemonSet()
	budgets, err := ResolveBudgets(ds, desiredNodes(ix))
	if err != nil {
		return Step{Budgets: budgets}, Progress{}, err
	}
	cls := Classifier{MinReadySeconds: ds.MinReadySeconds, Now: now}
	var l PassLists
	l.Reset(c.Options().Burst())
	for b := range visited(ix, hash) {
		n := nodeOf(&b)
		var old string
		if n.Old != nil {
			old = n.Old.Name
		}
		l.Add(n.Name, old, cls.Classify(&n))
	}
	step, err := AssembleStep(c, &l, budgets, hash, false)
	return step, Progress{}, err
}
