package cli

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/overhead"
)

// newPods answers, for the pods a DaemonSet's template creates (the
// creates of plan, the new pods of diff), what the API server makes of
// them and what kube-scheduler does with them on their node. The rules
// are package admission's and overhead's (docs/overhead.md, AD1–AD7,
// SC1–SC9); this only gathers the cluster around each node.
type newPods struct {
	ds  *api.DaemonSet
	set *overhead.Catalog
	// admitted is the template as admission leaves it; given says whether
	// the input held any admission object (without one, the template is
	// taken as written).
	admitted admission.Admitted
	given    bool
	nodes    map[string]*corev1.Node
	// bound are the non-terminal pods by the node they are bound to;
	// nominated the unbound ones by their status.nominatedNodeName.
	bound, nominated map[string][]*corev1.Pod
	budgets          []overhead.DisruptionBudget
}

// newNewPods gathers what newPods needs from in: its DaemonSet (the
// edited one for diff) and nodes, and the pods, admission objects and
// PodDisruptionBudgets of in.objs, which must not be nil.
func newNewPods(in *input) (*newPods, error) {
	objs := in.objs
	rules, err := admissionRules(objs)
	if err != nil {
		return nil, err
	}
	ds, err := convert.DaemonSet(in.cluster.DaemonSet)
	if err != nil {
		return nil, err
	}
	np := &newPods{
		ds:        ds,
		set:       overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{Admission: rules}),
		admitted:  rules.Admit(ds.Namespace, &ds.Template),
		given:     rules != nil,
		nodes:     map[string]*corev1.Node{},
		bound:     map[string][]*corev1.Pod{},
		nominated: map[string][]*corev1.Pod{},
	}
	if ws := np.set.Warnings(); len(ws) > 0 {
		return nil, fmt.Errorf("DaemonSet resources the API server refuses: %w", ws)
	}
	for _, n := range in.cluster.Nodes {
		np.nodes[n.Name] = n
	}
	np.bound, np.nominated = podsByNode(objs.Pods)
	for _, pdb := range objs.PodDisruptionBudgets {
		np.budgets = append(np.budgets, convert.DisruptionBudget(pdb))
	}
	return np, nil
}

// podsByNode sorts the non-terminal pods into those bound to a node and
// those only nominated for one (status.nominatedNodeName), by node name.
func podsByNode(pods []*corev1.Pod) (bound, nominated map[string][]*corev1.Pod) {
	bound, nominated = map[string][]*corev1.Pod{}, map[string][]*corev1.Pod{}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		switch {
		case p.Spec.NodeName != "":
			bound[p.Spec.NodeName] = append(bound[p.Spec.NodeName], p)
		case p.Status.NominatedNodeName != "":
			nominated[p.Status.NominatedNodeName] = append(nominated[p.Status.NominatedNodeName], p)
		}
	}
	return bound, nominated
}

// pod answers for the DaemonSet's new pod on node. beside counts the
// DaemonSet's own pods bound there (a surge, or a pod still terminating:
// overhead.Catalog.ScheduleBeside); without it they are gone first (F6).
// nil when the input says nothing beyond the template: no admission
// object, and the node unknown or without status.allocatable.
func (np *newPods) pod(node string, beside bool) (*schema.NewPod, error) {
	var st *overhead.NodeState
	if n := np.nodes[node]; n != nil {
		var err error
		st, err = nodeState(n, np.bound[node], np.nominated[node], np.budgets)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
	}
	if st == nil && !np.given {
		return nil, nil
	}
	d := np.set.Daemon(0)
	out := &schema.NewPod{
		Requests: quantities(d.Requests), Priority: d.Priority, PreemptionPolicy: d.PreemptionPolicy,
		PriorityClassName: np.admitted.Template.PriorityClassName,
	}
	if len(np.admitted.Template.Overhead) > 0 {
		out.Overhead = quantities(np.admitted.Template.Overhead)
	}
	for _, e := range np.admitted.Refused {
		out.Refused = append(out.Refused, e.Error())
	}
	if len(out.Refused) > 0 {
		// Never created: nothing to schedule, whatever the node.
		out.Scheduling = &schema.Scheduling{Outcome: overhead.NotCreated.String()}
		return out, nil
	}
	if st == nil {
		return out, nil
	}
	var sch overhead.Scheduling
	if beside {
		sch = np.set.ScheduleBeside(0, st)
	} else {
		sch = np.set.Schedule(0, st)
	}
	s := &schema.Scheduling{Outcome: sch.Outcome.String(), Reason: string(sch.Reason), PDBViolations: sch.PDBViolations}
	if sch.Outcome == overhead.Pending || sch.Outcome == overhead.Preempts {
		s.Insufficient = sch.Fit.Insufficient
		for _, p := range sch.Fit.PortConflicts {
			s.PortConflicts = append(s.PortConflicts, portString(p))
		}
	}
	for _, k := range sch.Victims {
		s.Victims = append(s.Victims, st.Pods[k].Namespace+"/"+st.Pods[k].Name)
	}
	if beside {
		for _, p := range st.Pods {
			if d.UID != "" && p.OwnerUID == d.UID {
				s.Beside = append(s.Beside, p.Namespace+"/"+p.Name)
			}
		}
	}
	out.Scheduling = s
	return out, nil
}

// warn says on stderr what the answers of np rest on: why the API server
// refuses the pods, a RuntimeClass's scheduling daemonplan does not model,
// and, without any admission object, that a class the template names was
// not given, so its priority and overhead are the template's as written.
func (c *cli) warnNewPods(cmd string, np *newPods, objs *load.Objects) {
	ds := np.ds
	for _, e := range np.admitted.Refused {
		fmt.Fprintf(c.stderr, "warning: %s: DaemonSet %s/%s: the API server refuses its pods: %s\n", cmd, ds.Namespace, ds.Name, oneLine(e.Error()))
	}
	c.warnUnmodelledFor(cmd, objs)
	if np.given {
		return
	}
	var named []string
	if n := ds.Template.PriorityClassName; n != "" {
		named = append(named, "PriorityClass "+n)
	}
	if n := ds.Template.RuntimeClassName; n != "" {
		named = append(named, "RuntimeClass "+n)
	}
	if len(named) > 0 {
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("warning: %s: DaemonSet %s/%s names %s, but the input holds no PriorityClass, RuntimeClass or LimitRange: its pods are taken as written (priority %d, no overhead, no LimitRange defaults); include them: kubectl get priorityclasses,runtimeclasses,limitranges -A -o yaml",
			cmd, ds.Namespace, ds.Name, strings.Join(named, " and "), np.set.Daemon(0).Priority)))
	}
}

// newPodScheduler renders what the scheduler does with a new pod:
// "fits", "pending (NoLowerPriority: cpu)", "preempts 1 (shop/report) for
// cpu", "not created"; a pod judged beside the DaemonSet's own pods says
// which; "-" when nothing is known.
func newPodScheduler(p *schema.NewPod) string {
	if p == nil || p.Scheduling == nil {
		if p != nil && len(p.Refused) > 0 {
			return "not created"
		}
		return "-"
	}
	s := p.Scheduling
	why := strings.Join(append(append([]string{}, s.Insufficient...), s.PortConflicts...), ",")
	var out string
	switch s.Outcome {
	case "Fits":
		return "fits"
	case "NotCreated":
		return "not created"
	case "Pending":
		out = "pending (" + s.Reason
		if why != "" {
			out += ": " + why
		}
		out += ")"
	default:
		out = fmt.Sprintf("preempts %d (%s)", len(s.Victims), strings.Join(s.Victims, ","))
		if why != "" {
			out += " for " + why
		}
		if s.PDBViolations > 0 {
			out += fmt.Sprintf(", %d against a PodDisruptionBudget", s.PDBViolations)
		}
	}
	if len(s.Beside) > 0 {
		out += " beside " + strings.Join(s.Beside, ",")
	}
	return out
}

// priorityString renders a new pod's priority: "2000001000
// (system-node-critical)", "0"; "-" when nothing is known.
func priorityString(p *schema.NewPod) string {
	if p == nil {
		return "-"
	}
	if p.PriorityClassName != "" {
		return fmt.Sprintf("%d (%s)", p.Priority, p.PriorityClassName)
	}
	return fmt.Sprint(p.Priority)
}
