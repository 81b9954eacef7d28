package rollout

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// Budgets are the limits of one rolling-update step, resolved against the
// number of nodes that should run the pod.
type Budgets struct {
	// Desired is the number of nodes whose decision is ShouldRun.
	Desired int
	// MaxUnavailable and MaxSurge are the scaled budgets (docs/rolling-update.md, R4).
	MaxUnavailable int
	MaxSurge       int
}

// Surge reports whether the rolling update creates new pods before
// deleting old ones: maxSurge is not zero. A negative maxSurge (which
// validation rejects) takes this path too, as upstream's rollingUpdate
// branches on maxSurge == 0, and surges onto no node beyond those whose
// old pod is unavailable. (Manage's test is placement.AllowsSurge:
// positive only.)
func (b Budgets) Surge() bool { return b.MaxSurge != 0 }

// ResolveBudgets scales maxUnavailable and maxSurge of ds against desired
// (upstream: updatedDesiredNodeCounts; docs/rolling-update.md, R4): ints as
// they are, percentages of desired rounded up, a nil
// maxSurge as 0, and both zero (with desired > 0) as maxUnavailable 1. A nil
// maxUnavailable or a malformed string is an error, as upstream, and so is a
// nil DaemonSet.
func ResolveBudgets(ds *api.DaemonSet, desired int) (Budgets, error) {
	b := Budgets{Desired: desired}
	if ds == nil {
		return b, errors.New("rollout.ResolveBudgets: nil DaemonSet")
	}
	var err error
	if b.MaxUnavailable, err = placement.UnavailableCount(ds, desired); err != nil {
		return b, fmt.Errorf("invalid value for MaxUnavailable: %w", err)
	}
	if b.MaxSurge, err = placement.SurgeCount(ds, desired); err != nil {
		return b, fmt.Errorf("invalid value for MaxSurge: %w", err)
	}
	if desired > 0 && b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		b.MaxUnavailable = 1
	}
	return b, nil
}

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

// finish cuts the candidate lists to the burst limit, keeping their
// priority order, and sorts what is kept.
func finish(c *placement.Compiled, step Step, creates []string, deletes []placement.Delete, hash string) Step {
	burst := c.Options().Burst()
	if len(creates) > burst {
		step.SkippedCreates = len(creates) - burst
		creates = creates[:burst]
	}
	if len(deletes) > burst {
		step.SkippedDeletes = len(deletes) - burst
		deletes = deletes[:burst]
	}
	creates = slices.Clone(creates)
	slices.Sort(creates)
	step.Create = c.CreatesFor(creates, hash)
	step.Delete = slices.Clone(deletes)
	slices.SortFunc(step.Delete, func(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	return step
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
// hash is the current revision's hash, for the read-ahead (see warmPods).
func buckets(cl *placement.Cluster, hash string) iter.Seq[bucket] {
	return func(yield func(bucket) bool) {
		vanished := cl.Vanished()
		v, warmed := 0, 0
		for i := 0; i < cl.NumNodes(); i++ {
			if i%readAhead == 0 {
				warmed += warmPods(cl, i, min(i+readAhead, cl.NumNodes()), hash)
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
		runtime.KeepAlive(warmed)
		for ; v < len(vanished); v++ {
			if !yield(bucket{node: vanished[v].Node, index: -1, pods: vanished[v].Pods}) {
				return
			}
		}
	}
}

// readAhead is how many nodes buckets reads ahead.
const readAhead = 16

// warmPods reads, for the nodes lo to hi, the fields of each pod that the
// rolling update reads, and asks the Cluster whether the pod is updated
// (which it remembers for splitPods), in a loop that does nothing else, so
// that the cache misses of several pods overlap: pods listed in lister
// order lie in memory in no order the nodes follow, and the labels of
// decoded pods each in memory of their own. It returns something of what
// it read, which the caller keeps so that the reads are not dropped.
func warmPods(cl *placement.Cluster, lo, hi int, hash string) int {
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
func desiredNodes(cl *placement.Cluster) int {
	desired := 0
	for _, d := range cl.NodeDecisions() {
		if d.ShouldRun {
			desired++
		}
	}
	return desired
}

// splitPods finds the one new and the one old pod in bucket b, ignoring pods
// being deleted (docs/rolling-update.md, R6). ok is false when the node has
// two of either. Pods on a node of the snapshot are asked through the
// Cluster, which remembers the answers for the status.
func splitPods(cl *placement.Cluster, b bucket, hash string) (newPod, oldPod *api.Pod, ok bool) {
	for j, p := range b.pods {
		if p.Deleting {
			continue
		}
		var updated bool
		if b.index >= 0 {
			updated = cl.IsUpdated(b.index, j, hash)
		} else {
			updated = cl.Compiled().IsUpdated(p, hash)
		}
		if updated {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// RollingUpdate plans one pass of the RollingUpdate strategy over cl
// (upstream: rollingUpdate; docs/rolling-update.md), visiting nodes in name
// order where upstream uses map order (docs/determinism.md, D2). hash is the
// current revision's hash.
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
// the snapshot is an error there, as upstream's node lookup fails. A nil
// cl, or a zero one never indexed, is an error.
func RollingUpdate(cl *placement.Cluster, now time.Time, hash string) (Step, error) {
	if cl == nil {
		return Step{}, errors.New("rollout.RollingUpdate: nil Cluster")
	}
	if cl.Compiled() == nil {
		return Step{}, errors.New("rollout.RollingUpdate: Cluster not indexed")
	}
	c := cl.Compiled()
	ds := c.DaemonSet()
	budgets, err := ResolveBudgets(ds, desiredNodes(cl))
	step := Step{Budgets: budgets}
	burst := c.Options().Burst()
	if err != nil {
		return step, err
	}
	available := func(p *api.Pod) bool { return api.IsAvailable(p, ds.MinReadySeconds, now) }
	var deletes []placement.Delete
	del := func(p *api.Pod, node string, why placement.DeleteReason) {
		deletes = append(deletes, placement.Delete{Pod: p.Name, Node: node, Reason: why})
	}

	if !budgets.Surge() {
		numUnavailable := 0
		candidates := capped[placement.Delete]{limit: min(burst, budgets.MaxUnavailable)}
		for b := range buckets(cl, hash) {
			newPod, oldPod, ok := splitPods(cl, b, hash)
			switch {
			case !ok, newPod == nil && oldPod == nil, newPod != nil && oldPod != nil:
				// manage will settle this node; it counts as unavailable.
				numUnavailable++
			case newPod != nil:
				if !available(newPod) {
					numUnavailable++
				}
			case !available(oldPod):
				// Unavailable old pods are replaced regardless of the budget.
				del(oldPod, b.node, placement.Outdated)
				numUnavailable++
			case numUnavailable < budgets.MaxUnavailable:
				candidates.add(placement.Delete{Pod: oldPod.Name, Node: b.node, Reason: placement.Outdated})
			}
		}
		remaining := min(max(budgets.MaxUnavailable-numUnavailable, 0), candidates.n)
		taken, cut := candidates.first(remaining)
		step = finish(c, step, nil, append(deletes, taken...), hash)
		step.SkippedDeletes += cut
		return step, nil
	}

	numSurge, numAvailable := 0, 0
	shouldNotRun := capped[placement.Delete]{limit: burst}
	candidateNew := capped[string]{limit: min(burst, budgets.MaxSurge)}
	var allowedNew []string
	for b := range buckets(cl, hash) {
		newPod, oldPod, ok := splitPods(cl, b, hash)
		if !ok {
			numSurge++
			continue
		}
		switch {
		case oldPod != nil:
			if available(oldPod) {
				numAvailable++
			}
		case newPod != nil:
			if available(newPod) {
				numAvailable++
			}
		}
		switch {
		case oldPod == nil:
			// Only a new pod, or none: manage handles the node.
		case newPod == nil:
			if b.index < 0 {
				return Step{Budgets: budgets}, fmt.Errorf("couldn't get node for nodeName %q: node %q not found", b.node, b.node)
			}
			shouldRun := cl.Decision(b.index).ShouldRun
			switch {
			case !available(oldPod) && !shouldRun:
				del(oldPod, b.node, placement.Outdated)
			case !available(oldPod):
				allowedNew = append(allowedNew, b.node)
			case !shouldRun:
				shouldNotRun.add(placement.Delete{Pod: oldPod.Name, Node: b.node, Reason: placement.Unschedulable})
			case numSurge < budgets.MaxSurge:
				candidateNew.add(b.node)
			}
		case !available(newPod):
			numSurge++
		default:
			del(oldPod, b.node, placement.SurgeReplaced)
		}
	}
	var cutDeletes int
	if deletable := numAvailable - budgets.Desired; deletable > 0 {
		var taken []placement.Delete
		taken, cutDeletes = shouldNotRun.first(min(deletable, shouldNotRun.n))
		deletes = append(deletes, taken...)
	}
	remaining := min(max(budgets.MaxSurge-numSurge, 0), candidateNew.n)
	taken, cutCreates := candidateNew.first(remaining)
	step = finish(c, step, append(allowedNew, taken...), deletes, hash)
	step.SkippedCreates += cutCreates
	step.SkippedDeletes += cutDeletes
	return step, nil
}

// capped collects candidates in priority order, keeping only the first
// limit (at most the burst limit, beyond which finish cuts anyway, and the
// budget) and counting the others.
type capped[T any] struct {
	items []T
	n     int
	limit int
}

func (c *capped[T]) add(x T) {
	if len(c.items) < c.limit {
		c.items = append(c.items, x)
	}
	c.n++
}

// first returns the first k candidates that were kept, and how many of the
// first k were not: they are beyond the burst limit.
func (c *capped[T]) first(k int) ([]T, int) {
	kept := min(k, len(c.items))
	return c.items[:kept], k - kept
}
