package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/selector"
)

func (c *cli) explainCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "explain [ds/NAME] NODE [-n NAMESPACE] | NODE -f FILE [-f FILE...] [--now RFC3339] [--strict] [--ds [NS/]NAME]",
		Short: "Tell why a node does or does not run the DaemonSet's pod, and what to change",
		Long: `Tell why a node does or does not run the DaemonSet's pod: shouldRun,
shouldContinueRunning, EVERY failing reason (the template's nodeName, each
nodeSelector key, the required node affinity terms, each untolerated taint),
the taints only a default daemon toleration lets through (why a cordoned or
NotReady node still runs the pod), the pods on the node and what this sync does with each (kept, replaced, waiting
for the maxUnavailable budget, deleted and why), and a hint of the fix: the
label or toleration that would change the decision.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usagef("explain: NODE is required")
			case len(args) == 2:
				// kubectl's order: the DaemonSet, then the node.
				o.resource, args = args[0], args[1:]
			case len(args) > 2:
				return usagef("explain: want [ds/NAME] NODE, got %d arguments", len(args))
			}
			node, err := parseNodeArg(args[0])
			if err != nil {
				return usagef("explain: %v", err)
			}
			in, err := c.load("explain", &o)
			if err != nil {
				return err
			}
			p, err := c.sync("explain", in, o.strict)
			if err != nil {
				return err
			}
			for _, nd := range p.Nodes {
				if nd.Node == node {
					if err := writeExplain(c.stdout, in, p, nd); err != nil {
						return c.fail("explain: %v", err)
					}
					return nil
				}
			}
			return c.fail("explain: node %q is not in the input (%d nodes)", node, len(p.Nodes))
		},
	}
	addCommon(cmd, &o)
	return cmd
}

// problem is one reason a node fails the DaemonSet, with the change that
// would remove it.
type problem struct {
	what, hint string
}

// problems renders every failing rule of x (placement.Explanation.Failing,
// the deciding one first) as what fails on n and what would fix it.
// terms is the number of required node affinity terms.
func problems(x placement.Explanation, n *api.Node, terms int) []problem {
	var out []problem
	for _, f := range x.Failing {
		switch f.Reason {
		case placement.NodeNameMismatch:
			out = append(out, problem{
				"the template's spec.nodeName is " + f.NodeName,
				"remove spec.template.spec.nodeName, or set it to " + n.Name})
		case placement.NodeSelectorMismatch:
			out = append(out, problem{
				fmt.Sprintf("nodeSelector %s=%s: the node %s", f.Key, f.Value, hasLabel(n, f.Key)),
				fmt.Sprintf("kubectl label node %s %s=%s --overwrite, or drop %s from spec.template.spec.nodeSelector", n.Name, f.Key, f.Value, f.Key)})
		case placement.NodeAffinityMismatch:
			if f.Term == nil {
				out = append(out, problem{"required node affinity has no terms: it matches no node", "add a term, or remove requiredDuringSchedulingIgnoredDuringExecution"})
				continue
			}
			// The terms are ORed: a node that satisfies any one term matches.
			either := ""
			if terms > 1 {
				either = " (any one term is enough: the terms are ORed)"
			}
			out = append(out, problem{
				fmt.Sprintf("required node affinity term %d does not match: %s", f.Term.Term, termWhy(f.Term, n)),
				fmt.Sprintf("label the node so that every requirement of term %d holds%s, or relax the term in spec.template.spec.affinity.nodeAffinity", f.Term.Term, either)})
		case placement.UntoleratedNoExecute, placement.UntoleratedNoSchedule:
			out = append(out, taintProblem(f.Taint, n))
		}
	}
	return out
}

// hasLabel says what n has of the label key.
func hasLabel(n *api.Node, key string) string {
	if v, ok := n.Labels[key]; ok {
		return "has " + key + "=" + v
	}
	return "has no label " + key
}

// termWhy renders why an affinity term fails on n: each requirement n
// fails, with what the node has.
func termWhy(t *selector.TermMismatch, n *api.Node) string {
	switch {
	case t.Empty:
		return "the term is empty and matches no node"
	case t.Malformed != nil:
		return "the term is malformed and matches no node: " + t.Malformed.Error()
	}
	var out []string
	for _, r := range t.Expressions {
		out = append(out, fmt.Sprintf("%s %s %v (the node %s)", r.Key, r.Operator, r.Values, hasLabel(n, r.Key)))
	}
	for _, r := range t.Fields {
		out = append(out, fmt.Sprintf("%s %s %v (the node is named %s)", r.Key, r.Operator, r.Values, n.Name))
	}
	return strings.Join(out, "; ")
}

// managed says, for the node.kubernetes.io taints that Kubernetes adds and
// removes itself (the node lifecycle controller and the kubelet), what the
// taint means about the node and when it goes. Nobody should remove them by
// hand: the fix is the node's condition, or a toleration.
var managed = map[string]struct{ state, clears string }{
	api.TaintNodeNotReady:           {"not ready", "the node lifecycle controller removes the taint when the node's Ready condition turns True"},
	api.TaintNodeUnreachable:        {"unreachable", "the node lifecycle controller removes the taint when the node's kubelet reports again"},
	api.TaintNodeUnschedulable:      {"cordoned", "kubectl uncordon removes the taint"},
	api.TaintNodeDiskPressure:       {"under disk pressure", "the taint goes when the kubelet reports DiskPressure False"},
	api.TaintNodeMemoryPressure:     {"under memory pressure", "the taint goes when the kubelet reports MemoryPressure False"},
	api.TaintNodePIDPressure:        {"under PID pressure", "the taint goes when the kubelet reports PIDPressure False"},
	api.TaintNodeNetworkUnavailable: {"without a configured network", "the taint goes when the network plugin sets up the node's network; pods with hostNetwork: true tolerate it by default"},
}

// taintProblem is an untolerated taint and its fix: a toleration, or
// removing the taint, except for a taint Kubernetes manages, whose fix is
// the node's condition.
func taintProblem(taint *api.Taint, n *api.Node) problem {
	what := "taint " + taint.String() + " is not tolerated: no new pod"
	if taint.Effect == api.TaintEffectNoExecute {
		what += ", and a running pod is deleted"
	}
	tol := fmt.Sprintf("{key: %s, operator: Exists, effect: %s}", taint.Key, taint.Effect)
	if taint.Value != "" {
		tol = fmt.Sprintf("{key: %s, operator: Equal, value: %s, effect: %s}", taint.Key, taint.Value, taint.Effect)
	}
	if m, ok := managed[taint.Key]; ok {
		return problem{what, fmt.Sprintf("the node is %s: %s (Kubernetes manages %s: do not remove it by hand); or add the toleration %s to spec.template.spec.tolerations",
			m.state, m.clears, taint.Key, tol)}
	}
	return problem{what,
		fmt.Sprintf("add the toleration %s to spec.template.spec.tolerations, or kubectl taint node %s %s-", tol, n.Name, taint.Key)}
}

// defaulted renders the taints of x that only a default daemon toleration
// lets through, and what each says about the node.
func defaulted(x placement.Explanation) []string {
	var out []string
	for _, d := range x.Defaulted {
		s := fmt.Sprintf("%s is tolerated by the default daemon toleration {key: %s, operator: %s, effect: %s}",
			d.Taint, d.Toleration.Key, d.Toleration.Operator, d.Toleration.Effect)
		if m, ok := managed[d.Taint.Key]; ok {
			s += " (the node is " + m.state + ")"
		}
		out = append(out, s)
	}
	return out
}

// podFate is a pod on a node and what the plan does with it.
type podFate struct {
	pod, short, long string
}

// fates lists, for every node, the DaemonSet's pods there and its creates
// there, with what the plan does to each, sorted by pod name (creates
// last). It reads the plan and the pods once, for all nodes.
func fates(in *input, p daemonplan.Plan, ds *api.DaemonSet) map[string][]podFate {
	deleted := make(map[string]placement.Delete, len(p.Delete))
	for _, d := range p.Delete {
		deleted[d.Pod] = d
	}
	relabel := make(map[string]string, len(p.Relabel))
	for _, r := range p.Relabel {
		relabel[r.Pod] = r.Hash
	}
	adopt, release := set(p.Adopt), set(p.Release)
	gen := api.TemplateGeneration(ds)
	out := map[string][]podFate{}
	for _, kp := range in.cluster.Pods {
		if kp.Namespace != p.Namespace {
			continue
		}
		pod := convert.Pod(kp)
		node, err := api.TargetNodeName(&pod)
		if err != nil {
			continue
		}
		owned := pod.Controller != nil && pod.Controller.UID == ds.UID
		adopted := adopt[pod.Name]
		var f podFate
		switch d, del := deleted[pod.Name]; {
		case release[pod.Name]:
			f = podFate{pod.Name, "release", "released: its labels no longer match the selector; the DaemonSet stops managing it"}
		case !owned && !adopted:
			continue // another controller's, or an orphan the DaemonSet does not claim
		case del:
			f = podFate{pod.Name, "delete(" + d.Reason.String() + ")", "deleted: " + deleteWhy(d.Reason)}
		case pod.Deleting:
			f = podFate{pod.Name, "terminating", "terminating: already being deleted"}
		case api.IsUpdated(&pod, p.Hash, gen):
			f = podFate{pod.Name, "keep", "kept: runs the current template"}
		case ds.UpdateStrategy.Type == api.OnDelete:
			f = podFate{pod.Name, "keep(old)", "kept: runs an old template; with updateStrategy OnDelete it is replaced only when you delete it"}
		default:
			f = podFate{pod.Name, "keep(old)", "kept for now: runs an old template; the rolling update replaces it when the maxUnavailable budget allows"}
		}
		if adopted {
			f.short, f.long = "adopt+"+f.short, "adopted (orphan the selector matches), then "+f.long
		}
		if h, ok := relabel[pod.Name]; ok {
			f.long += "; its controller-revision-hash label is rewritten to " + h
		}
		out[node] = append(out[node], f)
	}
	for _, fs := range out {
		slices.SortFunc(fs, func(a, b podFate) int { return strings.Compare(a.pod, b.pod) })
	}
	for _, cr := range p.Create {
		h := cr.Labels[api.LabelRevisionHash]
		out[cr.Node] = append(out[cr.Node], podFate{"(new)", "create", "a new pod is created (hash " + h + ")"})
	}
	return out
}

// set holds the names of a list.
func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func deleteWhy(r placement.DeleteReason) string {
	switch r {
	case placement.Outdated:
		return "it runs an old template and the rolling update replaces it now"
	case placement.Failed:
		return "it failed; a new pod follows in a later sync (failed-pod backoff applies)"
	case placement.Duplicate:
		return "another of the DaemonSet's pods runs on this node"
	case placement.Succeeded:
		return "it completed; a new pod follows in a later sync"
	case placement.NotEligible:
		return "the node no longer meets the nodeName, nodeSelector or node affinity (see Failing)"
	case placement.UntoleratedTaint:
		return "the node has a NoExecute taint the pod does not tolerate (see Failing)"
	case placement.NodeGone:
		return "it is not bound and its node no longer exists"
	case placement.SurgeReplaced:
		return "a new pod on this node replaces it (maxSurge rollout)"
	case placement.Unschedulable:
		return "the node should no longer run the pod, and enough pods are available elsewhere"
	}
	return r.String()
}

// writeExplain renders the decision about one node, every reason behind
// it, the pods there and the fix.
func writeExplain(w io.Writer, in *input, p daemonplan.Plan, nd placement.NodeDecision) error {
	ds, err := convert.DaemonSet(in.cluster.DaemonSet)
	if err != nil {
		return err
	}
	d := api.Default(ds)
	var node *api.Node
	for _, kn := range in.cluster.Nodes {
		if kn.Name == nd.Node { // names are unique: load refuses a node twice
			n := convert.Node(kn)
			node = &n
			break
		}
	}
	t := newTable(w, 2)
	field := func(k, v string) {
		if k != "" {
			k += ":"
		}
		t.row(k, v)
	}
	field("DaemonSet", p.Namespace+"/"+p.Name)
	field("Node", nd.Node)
	field("ShouldRun", strconv.FormatBool(nd.ShouldRun))
	field("ShouldContinueRunning", strconv.FormatBool(nd.ShouldContinueRunning))
	field("Reason", nd.Reason.String())
	field("Message", nd.Message())
	var probs []problem
	var tolerated []string
	if node != nil {
		popts, _ := in.options()
		x := placement.NewEligibility(&d, popts).Explain(node)
		terms := 0
		if ra := d.Template.RequiredNodeAffinity; ra != nil {
			terms = len(ra.Terms)
		}
		probs, tolerated = problems(x, node, terms), defaulted(x)
	}
	switch {
	case len(probs) == 0 && len(tolerated) > 0:
		// A cordoned or NotReady node that still runs the pod does so only
		// because of the tolerations the controller adds to every daemon
		// pod: say so where the operator looks first.
		field("Failing", "nothing: the node meets every placement rule, through the default daemon toleration under Tolerated")
	case len(probs) == 0:
		field("Failing", "nothing: the node meets every placement rule")
	}
	for i, pr := range probs {
		k := ""
		if i == 0 {
			k = "Failing"
		}
		field(k, fmt.Sprintf("%d. %s", i+1, pr.what))
	}
	for i, s := range tolerated {
		k := ""
		if i == 0 {
			k = "Tolerated"
		}
		field(k, s)
	}
	fs := fates(in, p, &d)[nd.Node]
	if len(fs) == 0 {
		field("Pods", "none, and none is created")
	}
	for i, f := range fs {
		k := ""
		if i == 0 {
			k = "Pods"
		}
		field(k, f.pod+": "+f.long)
	}
	for i, pr := range probs {
		k := ""
		if i == 0 {
			k = "Fix"
		}
		field(k, fmt.Sprintf("%d. %s", i+1, pr.hint))
	}
	return t.flush()
}

// reasonCell is the REASON of -o wide: the reason with its culprit, the
// untolerated taint (key=value:Effect) or the nodeSelector key.
func reasonCell(d placement.Decision) string {
	switch {
	case d.Taint != nil:
		return d.Reason.String() + "(" + d.Taint.String() + ")"
	case d.Reason == placement.NodeSelectorMismatch && d.Key != "":
		return d.Reason.String() + "(" + d.Key + ")"
	}
	return d.Reason.String()
}

// writeNodes is the per-node view of -o wide.
func writeNodes(w io.Writer, in *input, p daemonplan.Plan) error {
	ds, err := convert.DaemonSet(in.cluster.DaemonSet)
	if err != nil {
		return err
	}
	d := api.Default(ds)
	t := newTable(w, 3)
	t.blank()
	t.line(fmt.Sprintf("NODES (%d)", len(p.Nodes)))
	t.row("NODE", "SHOULD-RUN", "CONTINUE", "REASON", "PODS")
	byNode := fates(in, p, &d)
	for _, nd := range p.Nodes {
		var cells []string
		for _, f := range byNode[nd.Node] {
			cells = append(cells, f.pod+"="+f.short)
		}
		pods := strings.Join(cells, ",")
		if pods == "" {
			pods = "<none>"
		}
		t.row(nd.Node, nd.ShouldRun, nd.ShouldContinueRunning, reasonCell(nd.Decision), pods)
	}
	return t.flush()
}
