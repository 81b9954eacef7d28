package rollout

import (
	"errors"
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

// Nodes is a snapshot as a rolling-update pass reads it: an index
// ([IndexNodes]), or the node list an incremental planner keeps.
type Nodes interface {
	// Compiled is the DaemonSet, compiled.
	Compiled() *placement.Compiled
	// Visit calls yield, in node-name order, with every node that holds
	// pods of the DaemonSet (vanished nodes included) and every node that
	// should run the pod, as upstream's rolling update visits them (in map
	// order there): the node as the pass sees it, every node allowed, and
	// its labels (nil for a vanished node), until yield returns false. The
	// view is yield's only while it runs. hash is the current revision's
	// hash.
	Visit(hash string, yield func(n *NodeView, labels map[string]string) bool)
}

// IndexNodes is ix as [Nodes]. ix must not be nil.
func IndexNodes(ix *placement.Index) Nodes { return indexNodes{ix} }

type indexNodes struct{ ix *placement.Index }

func (n indexNodes) Compiled() *placement.Compiled { return n.ix.Compiled() }

func (n indexNodes) Visit(hash string, yield func(*NodeView, map[string]string) bool) {
	for b := range n.ix.Buckets(hash) {
		if !b.ShouldRun && len(b.Pods) == 0 {
			continue
		}
		v := nodeOf(&b)
		if !yield(&v, b.Labels()) {
			return
		}
	}
}

// nodeOf is bucket b as the rolling update sees it, every node allowed.
func nodeOf(b *placement.Bucket) NodeView {
	n := NodeView{Name: b.Node, Present: b.Present, Desired: b.ShouldRun, Allowed: true}
	n.SetPods(b.Pods, b.Updated)
	return n
}

// RollingUpdate plans one pass of the RollingUpdate strategy over ix
// (upstream: rollingUpdate; docs/rolling-update.md) with the progressive
// extensions of p, and reports what they decided: [RollingUpdateOf] over
// [IndexNodes](ix). A nil ix, or a zero one never indexed, is an error.
func RollingUpdate(ix *placement.Index, now time.Time, hash string, p Progressive) (Step, Progress, error) {
	if ix == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: nil Index")
	}
	if ix.Compiled() == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdate: zero Index, never built")
	}
	return RollingUpdateOf(IndexNodes(ix), now, hash, p)
}

// RollingUpdateOf plans one pass of the RollingUpdate strategy over nodes
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
// [Classifier.Classify] decides each node, [Budgets.Quota] how many
// candidates a budget domain takes and [AssembleStep] the writes;
// [Progressive]'s rules (docs/progressive-delivery.md) choose the update
// set and the domains. p should be valid ([Progressive.Validate]); a
// selector of p that does not compile is an error, and so are nil nodes
// and nodes without a Compiled.
func RollingUpdateOf(nodes Nodes, now time.Time, hash string, p Progressive) (Step, Progress, error) {
	if nodes == nil || nodes.Compiled() == nil {
		return Step{}, Progress{}, errors.New("rollout.RollingUpdateOf: no nodes, or no Compiled")
	}
	if !p.IsZero() {
		return p.rollingUpdate(nodes, now, hash)
	}
	c := nodes.Compiled()
	ds := c.DaemonSet()
	cls := Classifier{MinReadySeconds: ds.MinReadySeconds, Now: now}
	var l PassLists
	l.Reset(c.Options().Burst())
	desired := 0
	nodes.Visit(hash, func(n *NodeView, _ map[string]string) bool {
		if n.Present && n.Desired {
			desired++
		}
		var old string
		if n.Old != nil {
			old = n.Old.Name
		}
		l.Add(n.Name, old, cls.Classify(n))
		return true
	})
	budgets, err := ResolveBudgets(ds, desired)
	if err != nil {
		return Step{Budgets: budgets}, Progress{}, err
	}
	step, err := AssembleStep(c, &l, budgets, hash, false)
	return step, Progress{}, err
}
