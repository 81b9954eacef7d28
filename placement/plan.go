package placement

import (
	"errors"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/taints"
)

// DeleteReason says why a plan deletes a pod.
type DeleteReason uint8

// The delete reasons.
const (
	// Duplicate: another pod of the DaemonSet on the same node is kept.
	Duplicate DeleteReason = iota + 1
	// Failed: the pod's phase is Failed (subject to per-node backoff).
	Failed
	// Succeeded: the pod's phase is Succeeded.
	Succeeded
	// NotEligible: the node no longer matches the DaemonSet's nodeName,
	// nodeSelector or node affinity.
	NotEligible
	// UntoleratedTaint: the node has a NoExecute taint the pod does not
	// tolerate.
	UntoleratedTaint
	// NodeGone: the pod is not yet bound and its target node no longer
	// exists. Bound pods on vanished nodes are left to pod GC.
	NodeGone
	// SurgeReplaced: in surge mode, an old pod whose node already has a new
	// pod that is available, or that is not ready itself.
	SurgeReplaced
	// Outdated: the rolling update replaces an old pod.
	Outdated
	// Unschedulable: the rolling update removes an old pod from a node that
	// should no longer run it, once enough pods are available elsewhere.
	Unschedulable
)

var deleteReasonNames = [...]string{
	Duplicate:        "Duplicate",
	Failed:           "Failed",
	Succeeded:        "Succeeded",
	NotEligible:      "NotEligible",
	UntoleratedTaint: "UntoleratedTaint",
	NodeGone:         "NodeGone",
	SurgeReplaced:    "SurgeReplaced",
	Outdated:         "Outdated",
	Unschedulable:    "Unschedulable",
}

// String returns the reason's stable name.
func (r DeleteReason) String() string {
	return enum.Name(deleteReasonNames[:], int(r), "DeleteReason")
}

// NodeDecision is the decision about one node, for the plan's report.
type NodeDecision struct {
	Node string
	Decision
}

// Create is one pod to create. Labels and Tolerations are shared by every
// Create of a plan: treat them as read-only.
type Create struct {
	Node string
	// Labels are the template labels plus pod-template-generation (when the
	// DaemonSet has a template generation) and controller-revision-hash
	// (when the hash is known) (docs/manage.md, M13).
	Labels map[string]string
	// Tolerations are the template's merged with the daemon defaults
	// (docs/eligibility.md, E10).
	Tolerations []api.Toleration
	// NodeAffinity replaces the template's required node affinity: one term
	// pinning metadata.name to Node (docs/manage.md, M13). Preferred terms, pod
	// (anti-)affinity and spec.nodeSelector are kept as in the template.
	NodeAffinity *api.NodeSelector
}

// Delete is one pod to delete.
type Delete struct {
	Pod    string
	Node   string
	Reason DeleteReason
}

// ManagePlan is what one manage pass decides. Every list is sorted: Nodes and
// Create by node name, Delete, Keep, Adopt and Release by pod name. Adopt
// and Release are disjoint, and so are Delete and Keep; an adopted pod may
// also be in Keep or Delete.
type ManagePlan struct {
	Nodes   []NodeDecision
	Adopt   []string
	Release []string
	Create  []Create
	Delete  []Delete
	// Keep names the pods placed on a node (docs/manage.md, M5) that the
	// plan does not delete (including deletes beyond the burst limit, which
	// a later plan will issue).
	Keep []string
	// Backoff is the failed-pod backoff state to keep for the next plan.
	Backoff Backoff
	// RequeueAfter, when positive, is when a failed pod held back by
	// backoff may be deleted: plan again no later than that.
	RequeueAfter time.Duration
	// SkippedCreates and SkippedDeletes count the creates and deletes cut
	// by the burst limit.
	SkippedCreates, SkippedDeletes int
}

// Manage plans creates and deletes for one sync exactly as upstream's
// manage does (docs/manage.md, M6–M14), visiting nodes in name order and
// deciding each as ManageNode does; then
//
//  1. unbound pods whose target node no longer exists are deleted
//     ([NodeGone]);
//  2. backoff windows idle for longer than twice [BackoffMax] are dropped.
//
// hash is the current revision's hash, used for the created pods' labels
// and to tell new from old pods in surge mode. At most the burst limit of
// creates (the first nodes by name) and of deletes (in visiting order) are
// issued. The only errors are [ErrNoLabels], for pods that would have no
// label at all, which upstream cannot create (the plan then holds no
// creates), and that of a zero [Index] that was never indexed.
func (ix *Index) Manage(now time.Time, hash string, backoff Backoff) (ManagePlan, error) {
	c := ix.c
	if c == nil {
		return ManagePlan{}, errNotIndexed
	}
	l := &ix.manage
	l.Reset(c.opts.Burst())
	scratch := ix.deleteBuf[:0]
	prefetched := 0
	for i, n := range ix.nodes {
		if i%prefetchBatch == 0 {
			prefetched += ix.prefetchOldest(i, min(i+prefetchBatch, len(ix.nodes)))
		}
		m := c.ManageNode(scratch[:0], n.Name, ix.decisions[i].Decision, ix.podsOn(i), now, hash, backoff)
		l.Add(n.Name, true, &m)
		scratch = m.Delete
	}
	runtime.KeepAlive(prefetched)
	for _, b := range ix.vanished {
		m := c.ManageVanished(scratch[:0], b.Node, b.Pods)
		l.Add(b.Node, false, &m)
		scratch = m.Delete
	}
	ix.deleteBuf = scratch[:0]
	p, err := c.AssembleManage(l, now, hash, backoff)
	p.Nodes, p.Adopt, p.Release = ix.decisions, ix.adopt, ix.release
	p.Keep = ix.Keep(p.Delete)
	return p, err
}

// NodeManage is what Manage decides for one node, before the burst limit.
type NodeManage struct {
	// Create reports that the node gets a new pod.
	Create bool
	// Delete are the node's pods to delete, in bucket order, after the
	// deletes passed in to ManageNode.
	Delete []Delete
	// BackoffSet reports that a failed pod is deleted and the node's backoff
	// window (key BackoffKey(node)) becomes Backoff.
	BackoffSet bool
	Backoff    BackoffEntry
	// RequeueAfter, when positive, is when the first failed pod held back
	// by its backoff window may be deleted.
	RequeueAfter time.Duration
}

// BackoffKey is the key of node's failed-pod backoff window for the
// DaemonSet: its UID, its status.observedGeneration and the node.
func (c *Compiled) BackoffKey(node string) BackoffKey {
	return BackoffKey{DaemonSetUID: c.ds.UID, ObservedGeneration: c.ds.Status.ObservedGeneration, Node: node}
}

// ManageNode decides one node of Manage. pods are the node's bucket (oldest
// first), d its decision and backoff the backoff state of the previous
// plan, which is read, not changed. The node's deletes are appended to dst.
//
//  1. a node that should run the pod and has none gets a create;
//  2. on a node where pods may continue: pods being deleted are skipped;
//     failed pods are deleted, at most one per node per backoff window,
//     the oldest the DaemonSet already controlled before the oldest it
//     adopts;
//     succeeded pods are deleted; of the rest, duplicates are deleted,
//     keeping the oldest (without surge) or the oldest new and oldest old
//     pod (with surge, where the old one goes once the new one is
//     available or when it is not ready itself); with surge a node left
//     without a running pod gets a create at once;
//  3. on a node where pods may not continue, every pod not already being
//     deleted is deleted.
func (c *Compiled) ManageNode(dst []Delete, node string, d Decision, pods []*api.Pod, now time.Time, hash string, backoff Backoff) NodeManage {
	m := NodeManage{Delete: dst}
	if len(pods) == 1 && d.ShouldContinueRunning && !pods[0].Deleting && !api.IsTerminal(pods[0]) {
		// The usual node: one running pod it may keep, which the cases
		// below leave alone, with or without surge. (A pod being deleted
		// does not count: with surge its node gets a new pod.)
		return m
	}
	del := func(pod *api.Pod, why DeleteReason) {
		m.Delete = append(m.Delete, Delete{Pod: pod.Name, Node: node, Reason: why})
	}
	switch {
	case d.ShouldRun && len(pods) == 0:
		m.Create = true
	case d.ShouldContinueRunning:
		var buf, failedBuf [4]*api.Pod
		running, failed := buf[:0], failedBuf[:0]
		for _, pod := range pods {
			switch {
			case pod.Deleting:
			case pod.Phase == api.PodFailed:
				failed = append(failed, pod)
			case pod.Phase == api.PodSucceeded:
				del(pod, Succeeded)
			default:
				running = append(running, pod)
			}
		}
		// Upstream meets the pods it already controls before the orphans
		// it adopts (its claim lists them in that order), and deletes the
		// first failed pod it meets outside the backoff window.
		slices.SortStableFunc(failed, func(a, b *api.Pod) int {
			switch adoptedA, adoptedB := a.Controller == nil, b.Controller == nil; {
			case adoptedA == adoptedB:
				return 0
			case adoptedB:
				return -1
			}
			return 1
		})
		for _, pod := range failed {
			// The window as this plan left it: set by an earlier
			// failed pod of this node, or the previous plan's.
			var wait bool
			var left time.Duration
			if m.BackoffSet {
				wait, left = true, m.Backoff.Delay
			} else {
				wait, left = backoff.InBackoff(c.BackoffKey(node), now)
			}
			if wait {
				if m.RequeueAfter == 0 || left < m.RequeueAfter {
					m.RequeueAfter = left
				}
				continue
			}
			m.Backoff, m.BackoffSet = backoff.next(c.BackoffKey(node), now), true
			del(pod, Failed)
		}
		// Bucket order is already upstream's oldest-first order.
		if !c.surge {
			for _, pod := range running[min(1, len(running)):] {
				del(pod, Duplicate)
			}
			break
		}
		if len(running) == 0 {
			m.Create = d.ShouldRun
			break
		}
		var oldestNew, oldestOld *api.Pod
		for _, pod := range running {
			isNew := pod.Labels[api.LabelRevisionHash] == hash
			switch {
			case isNew && oldestNew == nil:
				oldestNew = pod
			case !isNew && oldestOld == nil:
				oldestOld = pod
			default:
				del(pod, Duplicate)
			}
		}
		if oldestNew != nil && oldestOld != nil &&
			(!oldestOld.Ready || api.IsAvailable(oldestNew, c.ds.MinReadySeconds, now)) {
			del(oldestOld, SurgeReplaced)
		}
	case len(pods) > 0:
		why := NotEligible
		if d.Reason == UntoleratedNoExecute {
			why = UntoleratedTaint
		}
		for _, pod := range pods {
			if !pod.Deleting {
				del(pod, why)
			}
		}
	}
	return m
}

// errNotIndexed is the error of Manage on a zero Index.
var errNotIndexed = errors.New("placement: Index not indexed: use Compiled.Index, or Reset it first")

// ErrNoLabels is the error of a sync whose pods would have no label at
// all: a template without labels, no template generation and an empty
// revision hash (upstream's createPods refuses them). The pods are not
// created; the rest of the sync's writes stand.
var ErrNoLabels = errors.New("unable to create pods, no labels")

// unlabelled reports whether a pod created with hash would have no label:
// PodLabels(hash) would be empty.
func (c *Compiled) unlabelled(hash string) bool {
	return len(c.ds.Template.Labels) == 0 && c.gen == nil && hash == ""
}

// gcBackoff drops windows idle for longer than twice the maximum delay, as
// upstream's periodic GC does; they would start over anyway.
func gcBackoff(b Backoff, now time.Time) {
	for k, e := range b {
		if e.expired(now) {
			delete(b, k)
		}
	}
}

// PodLabels returns the labels of a pod created for the DaemonSet with the
// current revision hash (docs/manage.md, M13): the template's labels, plus
// pod-template-generation when the template generation is known and
// controller-revision-hash when hash is not empty. It returns a new map.
func (c *Compiled) PodLabels(hash string) map[string]string {
	labels := make(map[string]string, len(c.ds.Template.Labels)+2)
	maps.Copy(labels, c.ds.Template.Labels)
	if c.gen != nil {
		labels[api.LabelTemplateGeneration] = strconv.FormatInt(*c.gen, 10)
	}
	if hash != "" {
		labels[api.LabelRevisionHash] = hash
	}
	return labels
}

// PodTolerations returns the tolerations of a created pod: the template's
// merged with the daemon defaults (docs/eligibility.md, E10). It returns a
// new slice.
func (c *Compiled) PodTolerations() []api.Toleration {
	return taints.MergeDaemonDefaults(c.ds.Template.Tolerations, c.ds.Template.HostNetwork)
}

// PodNodeAffinity returns the required node affinity a created pod gets: a
// single term pinning metadata.name to node (docs/manage.md, M13).
func PodNodeAffinity(node string) *api.NodeSelector {
	return &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{node}}},
	}}}
}

// CreatesFor builds the [Create] entries for nodes, in the order given. The
// entries share one labels map and one tolerations slice.
func (c *Compiled) CreatesFor(nodes []string, hash string) []Create {
	if len(nodes) == 0 {
		return nil
	}
	labels, tols := c.PodLabels(hash), c.PodTolerations()
	out := make([]Create, len(nodes))
	for i, n := range nodes {
		out[i] = Create{Node: n, Labels: labels, Tolerations: tols, NodeAffinity: PodNodeAffinity(n)}
	}
	return out
}

// Keep lists, sorted, the names of the bucketed pods (vanished nodes
// included) that deletes does not name: the pods a plan with these deletes
// leaves alone. The slice is the [Index]'s, valid until its next Reset.
func (ix *Index) Keep(deletes []Delete) []string {
	dst := ix.keep.Alloc(len(ix.bucketed))
	pods := ix.bucketedByName()
	n := len(ix.bucketed)
	name := func(i int) string { return pods(i).Name }
	// Each delete names a run of pods, found by binary search: only those
	// names are compared, the others are copied. Pods that share a name
	// (which an API server does not allow) are kept or dropped together.
	type run struct{ lo, hi int }
	var gone []run
	for _, d := range deletes {
		lo := sort.Search(n, func(i int) bool { return name(i) >= d.Pod })
		hi := lo
		for hi < n && name(hi) == d.Pod {
			hi++
		}
		if hi > lo {
			gone = append(gone, run{lo, hi})
		}
	}
	slices.SortFunc(gone, func(a, b run) int { return a.lo - b.lo })
	i := 0
	for _, g := range gone {
		if g.lo > i {
			dst = ix.appendNames(dst, i, g.lo)
		}
		i = max(i, g.hi)
	}
	return ix.appendNames(dst, i, n)
}

// appendNames appends the names of the bucketed pods lo to hi, in name
// order, to dst.
func (ix *Index) appendNames(dst []string, lo, hi int) []string {
	if ix.bucketedSorted() {
		for _, pl := range ix.bucketed[lo:hi] {
			dst = append(dst, ix.claimed[pl.claim].Name)
		}
		return dst
	}
	for _, p := range ix.byName[lo:hi] {
		dst = append(dst, p.Name)
	}
	return dst
}

// bucketedByName returns the bucketed pods in name order, by position: the
// input order when the input is sorted, as a list from the API server is,
// else the pod check's order, made once.
func (ix *Index) bucketedByName() func(int) *api.Pod {
	if ix.bucketedSorted() {
		return ix.bucketedPod
	}
	if len(ix.byName) != len(ix.bucketed) {
		// The pod check sorted every pod by name when the list was not
		// in order: the bucketed ones, in that order.
		ix.byName = ix.byName[:0]
		for _, pos := range ix.check.Order() {
			if ix.isBucket[pos/64]&(1<<(pos%64)) != 0 {
				ix.byName = append(ix.byName, &ix.podsIn[pos])
			}
		}
	}
	return func(i int) *api.Pod { return ix.byName[i] }
}

func byPod(a, b Delete) int { return strings.Compare(a.Pod, b.Pod) }

// bucketedSorted reports whether the bucketed pods came in name order, as
// a list from the API server does.
func (ix *Index) bucketedSorted() bool {
	if ix.sorted == 0 {
		ix.sorted = 1
		for i := 1; i < len(ix.bucketed); i++ {
			if ix.bucketedPod(i-1).Name > ix.bucketedPod(i).Name {
				ix.sorted = -1
				break
			}
		}
	}
	return ix.sorted > 0
}
