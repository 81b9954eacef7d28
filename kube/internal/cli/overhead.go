package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

var overheadOutputs = []string{"table", "json"}

// overheadOptions are the parsed flags of "overhead".
type overheadOptions struct {
	files         []string
	nodeFiles     []string
	nodePool      string
	instanceTypes string
	output        string
	// allNamespaces is -A (live).
	allNamespaces bool
}

func (c *cli) overheadCmd() *cobra.Command {
	o := overheadOptions{output: "table"}
	cmd := &cobra.Command{
		Use:   "overhead [-n NAMESPACE | -A] [--node-file NODE.yaml...] [--nodepool NP.yaml [--instance-types TYPES.yaml]] | -f FILE [-f FILE...] [--node-file NODE.yaml...] [--nodepool NP.yaml [--instance-types TYPES.yaml]] [-o table|json]",
		Short: "Show which DaemonSets put a pod on each node, what those pods request, and whether they fit",
		Long: `For every node of the input, or only for the nodes of --node-file (which need
not exist: the question an autoscaler asks of a node it could create), show
every DaemonSet of the input: whether its pod lands there (the controller's
own decision and reason), what the pod requests as the scheduler counts it,
and whether it fits; then the node's total daemon overhead, whether the
pods that land fit together (each placed after the ones before it) and
what they leave of allocatable.

Fit is judged as the scheduler's NodeResourcesFit and NodePorts filters judge
it, against the node's status.allocatable and the non-terminal pods of the
input bound to it (a DaemonSet's own pod left out). It is information beside
the controller's decision, which does not check it; it is null for a node
without status.allocatable. SCHEDULER says what kube-scheduler does with the
pod there: it fits, stays pending (and why), or preempts pods of lower
priority (which ones, and how many against a PodDisruptionBudget), as its
default preemption chooses them on that node.

When the input holds LimitRanges, PriorityClasses or RuntimeClasses (live:
always, they are read from the cluster), each daemon pod is first admitted
as the API server admits it: LimitRange defaults, limits as requests, the
priority of its class (or of the global default; system-node-critical and
system-cluster-critical are built in), its RuntimeClass's overhead. A pod
the API server would refuse (a PriorityClass or RuntimeClass that does not
exist, ...) is said in a warning and lands nowhere. docs/overhead.md states
the rules.

With --nodepool, answer instead for every node a Karpenter NodePool
(karpenter.sh/v1; a file of NodePools, or the List kubectl get nodepools
-o yaml prints) may launch: its template labels and karpenter.sh/nodepool,
its requirements (minValues plays no part), taints and startup taints. A
label the NodePool does not constrain may be missing or hold any value. For
each DaemonSet: Every (its pod lands on every such node), None (on none,
and why) or Depends, with where it lands ("topology.kubernetes.io/zone In
[a]"), exactly as the controller decides node by node: default daemon
tolerations, every taint effect, every affinity term and matchFields
included; a new node's name is none a DaemonSet names. A pod that does not
tolerate a startup taint lands only once the taint is removed (STARTUP
says which). Then the daemon pods' requests: on every node, and at most
(Depends counted too). With --instance-types, the same per instance type
(the NodePool narrowed by the type's labels and requirements): the daemon
pods, their requests, what is left of allocatable, and whether they fit
together. An instance-type file is YAML or JSON:

  instanceTypes:
  - name: m7i.large
    labels: {kubernetes.io/arch: amd64}       # and/or requirements:
    requirements: [{key: topology.kubernetes.io/zone, operator: In, values: [a, b]}]
    capacity: {cpu: "2", memory: 8Gi, pods: "29"}
    allocatable: {cpu: 1930m, memory: 7134Mi, pods: "29"}   # default: capacity

Output formats (-o):
  table  one row per node and DaemonSet, then the node's total, whether
         the pods that land fit together and what they leave (default);
         with --nodepool one row per NodePool and DaemonSet, the totals,
         then one row per NodePool and instance type
  json   {"nodes":[{"name", "daemonSets":[{"namespace", "name", "lands",
         "reason", "requests", "fits", "insufficient", "portConflicts",
         "priority", "scheduling":{"outcome", "reason", "victims",
         "pdbViolations"}, "refused"}], "requests", "allFit", "insufficient",
         "portConflicts", "left"}]}, quantities as Kubernetes prints them;
         "fits" is null for a pod that does not land; with
         --nodepool {"nodePools":[{"name", "daemonSets":[{"namespace",
         "name", "lands", "reason", "where", "keys", "startupTaint",
         "requests", "hostPorts"}], "overhead":{"every", "atMost", "pods"},
         "instanceTypes":[{"name", "noNode", "daemonSets":[{"namespace",
         "name", "lands"}], "overhead", "allocatable", "left", "fits",
         "insufficient", "portConflicts"}]}]}`,
		Args: noArgs("overhead"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.overhead(o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil,
		"what 'kubectl get ds,nodes,pods,limitranges,priorityclasses,runtimeclasses,pdb -A -o yaml' prints; '-' reads standard input;\na directory, its .json, .yaml and .yml files. Repeat to merge several\nsources. Other kinds are ignored.")
	addLive(cmd, &o.allNamespaces, "read the cluster: the DaemonSets of every namespace (without it, of -n or the context's)")
	f.StringArrayVar(&o.nodeFiles, "node-file", nil, "a file holding one Node, real or hypothetical, every label known: answer for it\n(repeat for several) instead of the input's nodes")
	f.StringVar(&o.nodePool, "nodepool", "", "a file of Karpenter NodePools (karpenter.sh/v1): answer for every node each may launch")
	f.StringVar(&o.instanceTypes, "instance-types", "", "with --nodepool, a file listing instance types: requests and fit per type")
	f.StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(overheadOutputs, "|"))
	return cmd
}

// overhead runs "overhead" with parsed options.
func (c *cli) overhead(o overheadOptions) error {
	if !slices.Contains(overheadOutputs, o.output) {
		return usagef("overhead: -o %q: want one of %s", o.output, strings.Join(overheadOutputs, ", "))
	}
	if o.instanceTypes != "" && o.nodePool == "" {
		return usagef("overhead: --instance-types needs --nodepool")
	}
	if o.nodePool != "" && len(o.nodeFiles) > 0 {
		return usagef("overhead: --nodepool and --node-file ask different questions: give one")
	}
	// Live, the cluster's nodes and pods are read only when the question is
	// about them, not about a node file or a NodePool.
	objs, src, err := c.overheadInput(o.files, o.allNamespaces, len(o.nodeFiles) == 0 && o.nodePool == "")
	if err != nil {
		return err
	}
	if len(objs.DaemonSets) == 0 {
		return c.fail("overhead: %s: no DaemonSet in input", src)
	}
	if o.nodePool != "" {
		return c.overheadNodePools(o, objs, src)
	}
	nodes := objs.Nodes
	if len(o.nodeFiles) > 0 {
		nodes = nil
		for _, file := range o.nodeFiles {
			nobjs, _, _, err := c.read("overhead", []string{file})
			if err != nil {
				return err
			}
			if len(nobjs.Nodes) != 1 {
				return c.fail("overhead: --node-file %s: want exactly one Node, found %d", file, len(nobjs.Nodes))
			}
			nodes = append(nodes, nobjs.Nodes...)
		}
	}
	set, err := overheadSet(objs)
	if err != nil {
		return c.fail("overhead: %s: %v", src, err)
	}
	c.warnUnmodelled(objs)
	c.warnRefusals(set)
	doc, err := overheadDocument(set, objs, nodes)
	if err != nil {
		return c.fail("overhead: %s: %v", src, err)
	}
	if o.output == "json" {
		return c.writeJSON("overhead", doc)
	}
	return writeOverheadTable(c.stdout, doc)
}

// overheadDoc is the JSON document of "overhead -o json".
type overheadDoc struct {
	Nodes []overheadNode `json:"nodes"`
}

type overheadNode struct {
	Name       string          `json:"name"`
	DaemonSets []overheadEntry `json:"daemonSets"`
	// Requests is the sum of the requests of the pods that land.
	Requests map[string]string `json:"requests"`
	// AllFit says whether the pods that land fit the node together;
	// Insufficient and Conflicts say why not. Left is what they leave of
	// allocatable. Both are null for a node without allocatable.
	AllFit       *bool             `json:"allFit"`
	Insufficient []string          `json:"insufficient,omitempty"`
	Conflicts    []string          `json:"portConflicts,omitempty"`
	Left         map[string]string `json:"left"`
}

type overheadEntry struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Lands     bool              `json:"lands"`
	Reason    string            `json:"reason"`
	Requests  map[string]string `json:"requests"`
	// Fits is null when the node lists no allocatable resources.
	Fits         *bool    `json:"fits"`
	Insufficient []string `json:"insufficient,omitempty"`
	Conflicts    []string `json:"portConflicts,omitempty"`
	// Priority is the pod's priority, as admitted when admission objects
	// are given.
	Priority int32 `json:"priority"`
	// Scheduling is null with fits: what the scheduler does with the pod.
	Scheduling *overheadScheduling `json:"scheduling"`
	// Refused lists why the API server refuses the pod.
	Refused []string `json:"refused,omitempty"`
}

// overheadScheduling is overhead.Scheduling in the JSON document.
type overheadScheduling struct {
	// Outcome is Fits, Pending, Preempts or NotCreated.
	Outcome       string   `json:"outcome"`
	Reason        string   `json:"reason,omitempty"`
	Victims       []string `json:"victims,omitempty"`
	PDBViolations int      `json:"pdbViolations,omitempty"`
}

// overheadDocument answers for nodes (sorted by name) about every
// DaemonSet of set, compiled from objs.
func overheadDocument(set *overhead.Catalog, objs *load.Objects, nodes []*corev1.Node) (overheadDoc, error) {
	sorted := slices.Clone(nodes)
	slices.SortStableFunc(sorted, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	// The non-terminal pods by the node they are bound to or nominated
	// for, found once.
	bound, nominated := podsByNode(objs.Pods)
	var budgets []overhead.DisruptionBudget
	for _, pdb := range objs.PodDisruptionBudgets {
		budgets = append(budgets, convert.DisruptionBudget(pdb))
	}
	doc := overheadDoc{Nodes: []overheadNode{}}
	for _, n := range sorted {
		st, err := nodeState(n, bound[n.Name], nominated[n.Name], budgets)
		if err != nil {
			return overheadDoc{}, fmt.Errorf("node %s: %w", n.Name, err)
		}
		an := convert.Node(n)
		rep := set.Report(&an, st)
		out := overheadNode{Name: n.Name, DaemonSets: make([]overheadEntry, len(rep.DaemonSets)), Requests: quantities(rep.Requests)}
		for i, e := range rep.DaemonSets {
			oe := overheadEntry{
				Namespace: e.Namespace, Name: e.Name, Lands: e.Lands,
				Reason: e.Decision.Reason.String(), Requests: quantities(e.Requests),
				Priority: e.Priority,
			}
			for _, r := range e.Refused {
				oe.Refused = append(oe.Refused, r.Error())
				// The controller would create the pod; the API server
				// refuses it, so it lands nowhere.
				oe.Reason = "RefusedByAdmission"
			}
			if s := e.Scheduling; s != nil {
				sc := &overheadScheduling{Outcome: s.Outcome.String(), Reason: string(s.Reason), PDBViolations: s.PDBViolations}
				for _, k := range s.Victims {
					sc.Victims = append(sc.Victims, st.Pods[k].Namespace+"/"+st.Pods[k].Name)
				}
				oe.Scheduling = sc
			}
			// A pod that does not land is never created: whether it
			// would fit is no answer about the node.
			if e.Fit != nil && e.Lands {
				fits := e.Fit.Fits
				oe.Fits, oe.Insufficient = &fits, e.Fit.Insufficient
				for _, p := range e.Fit.PortConflicts {
					oe.Conflicts = append(oe.Conflicts, portString(p))
				}
			}
			out.DaemonSets[i] = oe
		}
		if t := rep.Together; t != nil {
			fits := t.Fits
			out.AllFit, out.Insufficient, out.Left = &fits, t.Insufficient, quantities(t.Left)
			for _, p := range t.PortConflicts {
				out.Conflicts = append(out.Conflicts, portString(p))
			}
		}
		doc.Nodes = append(doc.Nodes, out)
	}
	return doc, nil
}

// overheadSet compiles the DaemonSets of objs, admitted when objs holds
// admission objects.
func overheadSet(objs *load.Objects) (*overhead.Catalog, error) {
	rules, err := admissionRules(objs)
	if err != nil {
		return nil, err
	}
	dss := make([]*api.DaemonSet, len(objs.DaemonSets))
	for i, ds := range objs.DaemonSets {
		d, err := convert.DaemonSet(ds)
		if err != nil {
			return nil, fmt.Errorf("DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
		}
		dss[i] = d
	}
	set := overhead.Compile(dss, overhead.Options{Admission: rules})
	if ws := set.Warnings(); len(ws) > 0 {
		// A negative quantity: the API server refuses such a pod, so no
		// total or fit would be true (docs/overhead.md, Q5).
		return nil, fmt.Errorf("DaemonSet resources the API server refuses: %w", ws)
	}
	return set, nil
}

// nodeState is what the scheduler knows of n: its allocatable resources
// and pods, the non-terminal pods bound to it, those nominated for it
// (F8), and the budgets its preemption respects; nil when n lists no
// allocatable resources.
func nodeState(n *corev1.Node, pods, nominated []*corev1.Pod, budgets []overhead.DisruptionBudget) (*overhead.NodeState, error) {
	if len(n.Status.Allocatable) == 0 {
		return nil, nil
	}
	alloc, err := convert.ResourceList(n.Status.Allocatable)
	if err != nil {
		return nil, fmt.Errorf("status.allocatable%w", err)
	}
	st := &overhead.NodeState{Allocatable: alloc, Budgets: budgets}
	for _, p := range pods {
		u, err := convert.PodUsage(p)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		st.Pods = append(st.Pods, u)
	}
	for _, p := range nominated {
		u, err := convert.PodUsage(p)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		st.Nominated = append(st.Nominated, u)
	}
	return st, nil
}

// quantities renders a list as names to quantities in Kubernetes' printed
// form; never nil, so that JSON shows {}.
func quantities(l resource.List) map[string]string {
	out := make(map[string]string, len(l))
	for name, q := range l {
		out[name] = q.String()
	}
	return out
}

func portString(p api.ContainerPort) string {
	proto := p.Protocol
	if proto == "" {
		proto = "TCP"
	}
	s := fmt.Sprintf("%d/%s", p.HostPort, proto)
	if p.HostIP != "" {
		s = p.HostIP + ":" + s
	}
	return s
}

// listString renders a rendered list as name=quantity pairs sorted by name.
func listString(m map[string]string) string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + "=" + m[name]
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

func writeOverheadTable(w io.Writer, doc overheadDoc) error {
	// The DaemonSet rows leave the node's columns empty: aligned, they
	// would end in spaces.
	var b bytes.Buffer
	defer func() {
		for line := range strings.Lines(b.String()) {
			io.WriteString(w, strings.TrimRight(line, " \n")+"\n")
		}
	}()
	t := newTable(&b, 2)
	t.row("NODE", "DAEMONSET", "LANDS", "REASON", "REQUESTS", "FITS", "SCHEDULER", "ALL FIT", "LEFT")
	for _, n := range doc.Nodes {
		for _, e := range n.DaemonSets {
			t.row(n.Name, e.Namespace+"/"+e.Name, e.Lands, e.Reason, listString(e.Requests), fitString(e.Fits, e.Insufficient, e.Conflicts), schedulerString(e.Scheduling), "", "")
		}
		left := "-"
		if n.Left != nil {
			left = listString(n.Left)
		}
		t.row(n.Name, "TOTAL", "", "", listString(n.Requests), "", "", fitString(n.AllFit, n.Insufficient, n.Conflicts), left)
	}
	return t.flush()
}

// schedulerString renders what the scheduler does with a daemon pod:
// "fits", "pending (NoLowerPriority)", "preempts 2 (ns/a,ns/b)", "not
// created"; "-" when fit is not judged.
func schedulerString(s *overheadScheduling) string {
	if s == nil {
		return "-"
	}
	switch s.Outcome {
	case "Fits":
		return "fits"
	case "Pending":
		return "pending (" + s.Reason + ")"
	case "Preempts":
		out := fmt.Sprintf("preempts %d (%s)", len(s.Victims), strings.Join(s.Victims, ","))
		if s.PDBViolations > 0 {
			out += fmt.Sprintf(", %d against a PodDisruptionBudget", s.PDBViolations)
		}
		return out
	}
	return "not created"
}

// fitString renders a fit as "true", "false (cpu,9100/TCP)" or "-" when
// unknown.
func fitString(fits *bool, insufficient, conflicts []string) string {
	if fits == nil {
		return "-"
	}
	s := fmt.Sprint(*fits)
	if why := append(slices.Clone(insufficient), conflicts...); len(why) > 0 {
		s += " (" + strings.Join(why, ",") + ")"
	}
	return s
}
