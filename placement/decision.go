package placement

import (
	"maps"
	"slices"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// Reason says why a node should or should not run the DaemonSet's pod.
type Reason uint8

// The reasons, checked in this order (docs/eligibility.md, E1); the first
// that applies wins.
const (
	// Eligible: the node should run the pod.
	Eligible Reason = iota + 1
	// NodeNameMismatch: the template's spec.nodeName names another node.
	NodeNameMismatch
	// NodeSelectorMismatch: a spec.nodeSelector key is missing or differs
	// (Decision.Key names it). Existing pods may stay only with
	// Options.IgnoredDuringExecution.
	NodeSelectorMismatch
	// NodeAffinityMismatch: no required node affinity term matches.
	// Existing pods may stay only with Options.IgnoredDuringExecution.
	NodeAffinityMismatch
	// UntoleratedNoExecute: a NoExecute taint is not tolerated
	// (Decision.Taint); existing pods are evicted.
	UntoleratedNoExecute
	// UntoleratedNoSchedule: a NoSchedule taint is not tolerated
	// (Decision.Taint) but no NoExecute one is; existing pods may stay.
	UntoleratedNoSchedule
)

var reasonNames = [...]string{
	Eligible:              "Eligible",
	NodeNameMismatch:      "NodeNameMismatch",
	NodeSelectorMismatch:  "NodeSelectorMismatch",
	NodeAffinityMismatch:  "NodeAffinityMismatch",
	UntoleratedNoExecute:  "UntoleratedNoExecute",
	UntoleratedNoSchedule: "UntoleratedNoSchedule",
}

// String returns the reason's stable name, e.g. "NodeAffinityMismatch".
func (r Reason) String() string {
	return enum.Name(reasonNames[:], int(r), "Reason")
}

// Decision is what one DaemonSet decides about one node.
type Decision struct {
	// ShouldRun: a pod should be created on the node if it has none.
	ShouldRun bool
	// ShouldContinueRunning: an existing pod may stay on the node.
	ShouldContinueRunning bool
	Reason                Reason
	// Key is the nodeSelector key that failed, for NodeSelectorMismatch.
	Key string
	// Taint is the first untolerated taint, in node order, of the reason's
	// effect (NoExecute for UntoleratedNoExecute, NoSchedule for
	// UntoleratedNoSchedule), nil for other reasons. It points at the taint in the
	// node's Taints, which it shares with the input: treat it as read-only.
	// Comparing Decisions with == compares it by address; compare
	// *Taint, or use cmp or reflect.DeepEqual, to compare the taints.
	Taint *api.Taint
}

// Message renders the decision for people.
func (d Decision) Message() string {
	switch d.Reason {
	case Eligible:
		return "node should run the daemon pod"
	case NodeNameMismatch:
		return "template spec.nodeName names another node"
	case NodeSelectorMismatch:
		if d.ShouldContinueRunning {
			return "node does not match nodeSelector key " + d.Key + ": no new pod, existing pods stay (ignored during execution)"
		}
		return "node does not match nodeSelector key " + d.Key
	case NodeAffinityMismatch:
		if d.ShouldContinueRunning {
			return "node matches no required node affinity term: no new pod, existing pods stay (ignored during execution)"
		}
		return "node matches no required node affinity term"
	case UntoleratedNoExecute:
		return "untolerated taint " + d.taint() + ": pods are evicted"
	case UntoleratedNoSchedule:
		return "untolerated taint " + d.taint() + ": no new pod, existing pods stay"
	}
	return ""
}

// taint renders d.Taint, which a Decision made by hand may lack.
func (d Decision) taint() string {
	if d.Taint == nil {
		return "(unknown)"
	}
	return d.Taint.String()
}

// Eligibility is a DaemonSet's node predicate compiled once: template
// nodeName, nodeSelector and required node affinity, and the template's
// tolerations merged with the daemon defaults. It never fails: like
// upstream, a malformed affinity term simply matches nothing. Get one from
// [NewEligibility]: a nil *Eligibility is not usable, and Decide panics.
type Eligibility struct {
	nodeName string
	nodes    selector.NodeMatcher
	tols     taints.Set
	// keys and values are the nodeSelector's pairs in key order, and
	// affinity the required node affinity alone: an index pass matches the
	// pairs while it reads the labels ahead (see selectBatch), and then
	// only the affinity.
	keys, values []string
	affinity     selector.NodeMatcher
	// prefetchKey is a node label Decide looks up first, "" if none: see prefetch.
	prefetchKey string
	// plain reports a template without nodeName and without required
	// node affinity: a node that matches the nodeSelector and has no
	// taints is then eligible (see eligibleAfterSelect).
	plain bool
	// ignored is Options.IgnoredDuringExecution.
	ignored bool
	// hostNetwork is the template's, and taintOpts Options.Taints: Explain
	// reads them to tell a default daemon toleration from the template's.
	hostNetwork bool
	taintOpts   taints.Options
}

// NewEligibility compiles the node predicate of ds. ds must not be nil:
// NewEligibility panics on a nil DaemonSet.
func NewEligibility(ds *api.DaemonSet, opts Options) *Eligibility {
	if ds == nil {
		panic("placement.NewEligibility: nil DaemonSet")
	}
	t := &ds.Template
	e := &Eligibility{
		nodeName:    t.NodeName,
		nodes:       selector.CompileNode(t.NodeSelector, t.RequiredNodeAffinity),
		tols:        taints.NewSet(taints.MergeDaemonDefaults(t.Tolerations, t.HostNetwork), opts.Taints),
		ignored:     opts.IgnoredDuringExecution,
		hostNetwork: t.HostNetwork,
		taintOpts:   opts.Taints,
		keys:        slices.Sorted(maps.Keys(t.NodeSelector)),
		affinity:    selector.CompileNode(nil, t.RequiredNodeAffinity),
		plain:       t.NodeName == "" && t.RequiredNodeAffinity == nil,
	}
	for _, k := range e.keys {
		e.values = append(e.values, t.NodeSelector[k])
	}
	// The nodeSelector is matched first, key by key in sorted order.
	for k := range t.NodeSelector {
		if e.prefetchKey == "" || k < e.prefetchKey {
			e.prefetchKey = k
		}
	}
	if e.prefetchKey == "" && t.RequiredNodeAffinity != nil {
		if terms := t.RequiredNodeAffinity.Terms; len(terms) > 0 && len(terms[0].MatchExpressions) > 0 {
			e.prefetchKey = terms[0].MatchExpressions[0].Key
		}
	}
	return e
}

// prefetch looks up, for a few nodes, the label Decide reads first, and returns
// something of the result so that the lookups are not dropped. In a large
// cluster each node's labels are a cache miss away; a loop that only looks
// up lets the processor wait for several nodes at once, and Decide then
// finds the labels in the cache.
func (e *Eligibility) prefetch(nodes []*api.Node) int {
	if e.prefetchKey == "" {
		return 0
	}
	n := 0
	for _, node := range nodes {
		n += len(node.Labels[e.prefetchKey])
	}
	return n
}

// selectBatch matches the nodeSelector of a few nodes, in a loop that only
// looks up labels, so that their cache misses overlap (as prefetch does when
// there is no nodeSelector): failed[i] is the index of the first pair, in
// key order, that nodes[i] does not match, -1 when it matches them all.
// decideSelected then decides each node without looking the pairs up
// again. It returns what prefetch returns.
func (e *Eligibility) selectBatch(nodes []*api.Node, failed []int) int {
	if len(e.keys) == 0 {
		for i := range nodes {
			failed[i] = -1
		}
		return e.prefetch(nodes)
	}
	for i, node := range nodes {
		failed[i] = -1
		for j, k := range e.keys {
			if v, ok := node.Labels[k]; !ok || v != e.values[j] {
				failed[i] = j
				break
			}
		}
	}
	return 0
}

// eligibleAfterSelect reports that n, whose nodeSelector selectBatch
// matched, is eligible without further checks: the template names no node
// and has no required node affinity, and n has no taints. It is the usual
// node, which an index pass then decides without a call.
func (e *Eligibility) eligibleAfterSelect(n *api.Node, failed int) bool {
	return failed < 0 && e.plain && len(n.Taints) == 0
}

// eligible is the decision for a node that should run the pod.
var eligible = Decision{ShouldRun: true, ShouldContinueRunning: true, Reason: Eligible}

// decideSelected is Decide for a node whose nodeSelector selectBatch
// matched: failed is its result for n.
func (e *Eligibility) decideSelected(n *api.Node, failed int) Decision {
	if e.namesOther(n) {
		return Decision{Reason: NodeNameMismatch}
	}
	if failed >= 0 {
		return e.decide(n, false, selector.Mismatch{Kind: selector.NodeSelectorMismatch, Key: e.keys[failed]})
	}
	ok, why := e.affinity.Match(n.Name, n.Labels)
	return e.decide(n, ok, why)
}

// Decide evaluates one node (upstream: NodeShouldRunDaemonPod;
// docs/eligibility.md, E1) in O(labels + taints) without allocating:
//
//  1. a template nodeName naming another node → neither run nor continue;
//  2. nodeSelector or required node affinity mismatch → neither; with
//     [Options.IgnoredDuringExecution], no new pod but existing pods
//     continue, unless an untolerated NoExecute taint evicts them (the
//     reason is then [UntoleratedNoExecute]);
//  3. an untolerated NoExecute taint → neither;
//  4. an untolerated NoSchedule taint → no new pod, existing pods continue;
//  5. otherwise → run. PreferNoSchedule taints never matter.
//
// With IgnoredDuringExecution a node that stops matching keeps its pod,
// and a node that never matched still gets none: the decision depends only
// on the node, not on its history. A rolling update still replaces an
// outdated pod on such a node as it does on a node with an untolerated
// NoSchedule taint: the old pod goes and, since the node should not run
// the pod, no new one comes.
//
// n must not be nil.
func (e *Eligibility) Decide(n *api.Node) Decision {
	if n == nil {
		panic("placement.Eligibility.Decide: nil node")
	}
	if e.namesOther(n) {
		return Decision{Reason: NodeNameMismatch}
	}
	ok, why := e.nodes.Match(n.Name, n.Labels)
	return e.decide(n, ok, why)
}

// namesOther reports that the template's nodeName names a node other than
// n (docs/eligibility.md, E2).
func (e *Eligibility) namesOther(n *api.Node) bool {
	return e.nodeName != "" && e.nodeName != n.Name
}

// decide is Decide past the nodeName check, given the result of matching
// the nodeSelector and the required node affinity.
func (e *Eligibility) decide(n *api.Node, ok bool, why selector.Mismatch) Decision {
	if !ok {
		if e.ignored {
			if t := e.untolerated(n, taints.ExecuteBlocking); t != nil {
				return Decision{Reason: UntoleratedNoExecute, Taint: t}
			}
		}
		if why.Kind == selector.NodeSelectorMismatch {
			return Decision{ShouldContinueRunning: e.ignored, Reason: NodeSelectorMismatch, Key: why.Key}
		}
		return Decision{ShouldContinueRunning: e.ignored, Reason: NodeAffinityMismatch}
	}
	if t := e.untolerated(n, taints.ScheduleBlocking); t != nil {
		if t.Effect == api.TaintEffectNoExecute {
			return Decision{Reason: UntoleratedNoExecute, Taint: t}
		}
		// A NoSchedule taint was first; a later NoExecute one still evicts.
		if nx := e.untolerated(n, taints.ExecuteBlocking); nx != nil {
			return Decision{Reason: UntoleratedNoExecute, Taint: nx}
		}
		return Decision{ShouldContinueRunning: true, Reason: UntoleratedNoSchedule, Taint: t}
	}
	return eligible
}

// untolerated returns the node's first taint with one of effects that the
// DaemonSet does not tolerate, nil if none.
func (e *Eligibility) untolerated(n *api.Node, effects taints.Effects) *api.Taint {
	if i := e.tols.IndexUntolerated(n.Taints, effects); i >= 0 {
		return &n.Taints[i]
	}
	return nil
}
