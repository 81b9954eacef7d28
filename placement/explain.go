package placement

import (
	"slices"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// Explanation is a node's [Decision] with every placement rule behind it
// (docs/eligibility.md, E16): what Decide decides, every rule the node
// fails (Decide stops at the first), and the node's taints that only a
// default daemon toleration lets through.
type Explanation struct {
	// Decision equals Decide's for the same node.
	Decision Decision
	// Failing lists every rule the node fails, the deciding one first:
	// Failing[0].Reason is Decision.Reason, and Failing is empty exactly
	// when the node is Eligible. The order is the order in which the
	// decision weighs them: the template nodeName (E2); with
	// Options.IgnoredDuringExecution the untolerated NoExecute taints
	// (E15); the nodeSelector keys in sorted order (E3); the required node
	// affinity terms in order (E4); without the option the untolerated
	// NoExecute taints; then the untolerated NoSchedule taints (E6, E7).
	// Taints keep node order within their effect.
	Failing []FailedRule
	// Defaulted lists, in node order, the node's NoSchedule and NoExecute
	// taints that the template's own tolerations do not tolerate but a
	// default daemon toleration does (E10): why a cordoned or NotReady node
	// still runs the pod.
	Defaulted []Defaulted
}

// FailedRule is one placement rule a node fails, with its culprit.
type FailedRule struct {
	// Reason names the rule: NodeNameMismatch, NodeSelectorMismatch,
	// NodeAffinityMismatch, UntoleratedNoExecute or UntoleratedNoSchedule,
	// never Eligible.
	Reason Reason
	// NodeName is the template's spec.nodeName, for NodeNameMismatch.
	NodeName string
	// Key and Value are the nodeSelector pair the node's labels lack or
	// hold with another value, for NodeSelectorMismatch.
	Key, Value string
	// Term is, for NodeAffinityMismatch, the required node affinity term
	// the node fails and why (its failing requirements, or that it is
	// empty or malformed). It is nil when the required node affinity has
	// no terms at all, and so matches no node.
	Term *selector.TermMismatch
	// Taint is the untolerated taint, for UntoleratedNoExecute (a NoExecute
	// taint) and UntoleratedNoSchedule (a NoSchedule one). It points into
	// the node's Taints, as Decision.Taint does: treat it as read-only.
	Taint *api.Taint
}

// Rule returns the rule of docs/eligibility.md that f breaks, e.g. "E3".
func (f FailedRule) Rule() string {
	switch f.Reason {
	case NodeNameMismatch:
		return "E2"
	case NodeSelectorMismatch:
		return "E3"
	case NodeAffinityMismatch:
		return "E4"
	case UntoleratedNoExecute, UntoleratedNoSchedule:
		return "E6"
	}
	return ""
}

// String renders f for people, e.g. "nodeSelector disk=ssd not matched" or
// "untolerated taint dedicated=batch:NoSchedule".
func (f FailedRule) String() string {
	switch f.Reason {
	case NodeNameMismatch:
		return "template spec.nodeName is " + f.NodeName
	case NodeSelectorMismatch:
		return "nodeSelector " + f.Key + "=" + f.Value + " not matched"
	case NodeAffinityMismatch:
		if f.Term == nil {
			return "required node affinity has no terms"
		}
		return "required node affinity term " + strconv.Itoa(f.Term.Term) + " not matched: " + termWhy(f.Term)
	case UntoleratedNoExecute, UntoleratedNoSchedule:
		if f.Taint == nil {
			return "untolerated taint (unknown)"
		}
		return "untolerated taint " + f.Taint.String()
	}
	return f.Reason.String()
}

// termWhy renders why a term fails.
func termWhy(t *selector.TermMismatch) string {
	switch {
	case t.Empty:
		return "the term is empty"
	case t.Malformed != nil:
		return "the term is malformed"
	}
	var parts []string
	for _, r := range t.Expressions {
		parts = append(parts, r.String())
	}
	for _, r := range t.Fields {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// Defaulted is a node taint that only a default daemon toleration
// tolerates (docs/eligibility.md, E10).
type Defaulted struct {
	// Taint points into the node's Taints: treat it as read-only.
	Taint *api.Taint
	// Toleration is the default daemon toleration that tolerates it, e.g.
	// {node.kubernetes.io/unschedulable, Exists, NoSchedule}.
	Toleration api.Toleration
}

// Explain is Decide with every reason (docs/eligibility.md, E16): the
// [Decision], every placement rule the node fails with its culprit, and the
// taints a default daemon toleration lets through. It applies the rules
// Decide applies, with the same matchers, but does not stop at the first
// failure and allocates: it is for telling people why, not for planning.
// n must not be nil.
func (e *Eligibility) Explain(n *api.Node) Explanation {
	if n == nil {
		panic("placement.Eligibility.Explain: nil node")
	}
	var x Explanation
	if e.namesOther(n) {
		x.Failing = append(x.Failing, FailedRule{Reason: NodeNameMismatch, NodeName: e.nodeName})
	}
	var noExecute, noSchedule []FailedRule
	for i := range n.Taints {
		t := &n.Taints[i]
		if !taints.ScheduleBlocking.Has(t.Effect) {
			continue
		}
		if !e.tols.Tolerates(*t) {
			if t.Effect == api.TaintEffectNoExecute {
				noExecute = append(noExecute, FailedRule{Reason: UntoleratedNoExecute, Taint: t})
			} else {
				noSchedule = append(noSchedule, FailedRule{Reason: UntoleratedNoSchedule, Taint: t})
			}
			continue
		}
		if d, ok := e.defaulted(*t); ok {
			x.Defaulted = append(x.Defaulted, Defaulted{Taint: t, Toleration: d})
		}
	}
	if e.ignored {
		x.Failing = append(x.Failing, noExecute...)
	}
	ms := e.nodes.Mismatches(n.Name, n.Labels)
	for _, k := range ms.Keys {
		i, _ := slices.BinarySearch(e.keys, k)
		x.Failing = append(x.Failing, FailedRule{Reason: NodeSelectorMismatch, Key: k, Value: e.values[i]})
	}
	if ms.Affinity && len(ms.Terms) == 0 {
		x.Failing = append(x.Failing, FailedRule{Reason: NodeAffinityMismatch})
	}
	for i := range ms.Terms {
		x.Failing = append(x.Failing, FailedRule{Reason: NodeAffinityMismatch, Term: &ms.Terms[i]})
	}
	if !e.ignored {
		x.Failing = append(x.Failing, noExecute...)
	}
	x.Failing = append(x.Failing, noSchedule...)
	x.Decision = e.decisionOf(x.Failing)
	return x
}

// decisionOf is the Decision whose reason is the first of failing, in the
// order Explain lists them.
func (e *Eligibility) decisionOf(failing []FailedRule) Decision {
	if len(failing) == 0 {
		return eligible
	}
	f := failing[0]
	switch f.Reason {
	case NodeSelectorMismatch:
		return Decision{ShouldContinueRunning: e.ignored, Reason: f.Reason, Key: f.Key}
	case NodeAffinityMismatch:
		return Decision{ShouldContinueRunning: e.ignored, Reason: f.Reason}
	case UntoleratedNoExecute:
		return Decision{Reason: f.Reason, Taint: f.Taint}
	case UntoleratedNoSchedule:
		return Decision{ShouldContinueRunning: true, Reason: f.Reason, Taint: f.Taint}
	}
	return Decision{Reason: f.Reason}
}

// defaulted returns the default daemon toleration that tolerates t, which
// the merged tolerations tolerate, when none of the template's own does. A
// template toleration the same as a default was replaced by it (E10) and
// counts as the default.
func (e *Eligibility) defaulted(t api.Taint) (api.Toleration, bool) {
	defaults := taints.DaemonDefaults(e.hostNetwork)
	isDefault := func(tol api.Toleration) bool {
		return slices.ContainsFunc(defaults, func(d api.Toleration) bool {
			return d.Key == tol.Key && d.Operator == tol.Operator && d.Value == tol.Value && d.Effect == tol.Effect
		})
	}
	for _, tol := range e.tols.Tolerations() {
		if !isDefault(tol) && taints.Tolerates(tol, t, e.taintOpts) {
			return api.Toleration{}, false
		}
	}
	for _, d := range defaults {
		if taints.Tolerates(d, t, e.taintOpts) {
			return d, true
		}
	}
	return api.Toleration{}, false
}

// Explain evaluates one node with every reason; see [Eligibility.Explain].
// n must not be nil.
func (c *Compiled) Explain(n *api.Node) Explanation {
	if n == nil {
		panic("placement.Compiled.Explain: nil node")
	}
	return c.elig.Explain(n)
}
