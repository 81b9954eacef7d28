package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/whatif"
)

var diffOutputs = []string{"table", "json"}

// diffOptions are the parsed flags of "diff".
type diffOptions struct {
	common
	dsFile      string
	nodeFiles   []string
	removes     []nodeNames
	labels      []labelEdit
	taints      []taintEdit
	readyAfter  time.Duration
	terminating time.Duration
	output      string
}

func (c *cli) diffCmd() *cobra.Command {
	o := diffOptions{output: "table", readyAfter: 10 * time.Second, terminating: 30 * time.Second}
	cmd := &cobra.Command{
		Use:   "diff -f FILE [--ds-file NEW_DS.yaml] [--label NODE:KEY=VALUE] [--taint NODE:KEY=VALUE:EFFECT] [--remove-node NODE] [--node-file FILE] [-o table|json]",
		Short: "Tell what an edit would do: which nodes gain, lose or replace their pod, and how long the rollout takes",
		Long: `Tell what an edit to the cluster would do before it is made: a new DaemonSet
spec, nodes relabelled or tainted, nodes added or removed. For each node: does
it gain a pod, lose its pod (and why), get it replaced by one of the new
template, keep an outdated one (OnDelete), or stay unchanged; then the counts
and how many rolling-update steps the change takes under the edited budgets.

The rollout is simulated sync after sync from the snapshot, each plan applied
at once, new pods Ready --ready-after after their creation and never failing,
pods found terminating gone --terminating after the start (as in simulate),
until a sync has nothing to do (docs/whatif.md). Nothing is written to any
cluster.

--ds-file holds the new DaemonSet, with the cluster's namespace (or none) and
name: either as 'kubectl get ds -o yaml' prints it (it has metadata.uid), which
replaces the cluster's spec, or a manifest for 'kubectl apply', which is merged
into the cluster's DaemonSet as kubectl apply merges it (the
last-applied-configuration annotation, when present, tells which fields the
manifest no longer states). metadata.generation and the template-generation
annotation are the API server's: they go up when the spec or template changes.

Node edits use kubectl's syntax after the node names (NODE may be a comma
list) and apply in this order: --node-file (nodes replace the same-named ones
or are added), --remove-node, --label, --taint. A node an edit names must be
in the (edited) input.

  --label 'node-1:zone=b'                      kubectl label node node-1 zone=b --overwrite
  --label 'node-1,node-2:zone-'                kubectl label node node-1 node-2 zone-
  --taint 'node-1:dedicated=gpu:NoSchedule'    kubectl taint node node-1 dedicated=gpu:NoSchedule --overwrite
  --taint 'node-1:dedicated:NoSchedule-'       kubectl taint node node-1 dedicated:NoSchedule-
  --taint 'node-1:dedicated-'                  kubectl taint node node-1 dedicated-

Examples:
  kubectl get ds/node-agent,nodes,pods,controllerrevisions -n kube-system -o yaml > cluster.yaml
  %[1]s diff -f cluster.yaml --ds-file node-agent.yaml
  %[1]s diff -f cluster.yaml --label 'node-007:pool-' --taint 'node-009:maintenance:NoExecute'
  %[1]s diff -f cluster.yaml --ds-file node-agent.yaml --remove-node node-003 --node-file new-nodes.yaml -o json

Output formats (-o):
  table  one row per node that changes: CHANGE, NODE, REASON; then the counts,
         the steps, simulated duration and budgets, and whether it settles
         (default)
  json   the diff document (package kube/schema, type Diff): every node with
         its change, pods and decisions before and after, the counts, budgets,
         steps, syncs, duration, settled and done`,
		Args: noArgs("diff"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.diff(&o)
		},
	}
	cmd.Long = fmt.Sprintf(cmd.Long, c.name)
	addCommon(cmd, &o.common)
	f := cmd.Flags()
	f.StringVar(&o.dsFile, "ds-file", "", "the new DaemonSet: 'kubectl get ds -o yaml' output, or a manifest for\n'kubectl apply'; '-' reads standard input")
	f.StringArrayVar(&o.nodeFiles, "node-file", nil, "nodes that replace the same-named nodes of the input or are added; repeatable")
	f.Var(editFlag[nodeNames]{&o.removes, parseNodeNames, "NODE[,NODE...]"}, "remove-node", "remove these nodes; repeatable")
	f.Var(editFlag[labelEdit]{&o.labels, parseLabelEdit, "NODE[,NODE...]:KEY=VALUE|KEY-"}, "label",
		"set (KEY=VALUE) or remove (KEY-) a label of the nodes; repeatable")
	f.Var(editFlag[taintEdit]{&o.taints, parseTaintEdit, "NODE[,NODE...]:TAINT"}, "taint",
		"add (KEY[=VALUE]:EFFECT) or remove (KEY[=VALUE]:EFFECT- or KEY-) a taint of the nodes;\nrepeatable")
	f.DurationVar(&o.readyAfter, "ready-after", o.readyAfter, "how long a new pod takes to become Ready in the simulation")
	f.DurationVar(&o.terminating, "terminating", o.terminating, "how long the pods found terminating (deletionTimestamp set) take to go;\n0 keeps them forever")
	f.StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(diffOutputs, "|"))
	return cmd
}

// diff runs "diff" with parsed options.
func (c *cli) diff(o *diffOptions) error {
	if !slices.Contains(diffOutputs, o.output) {
		return usagef("diff: -o %q: want one of %s", o.output, strings.Join(diffOutputs, ", "))
	}
	if o.readyAfter <= 0 {
		return usagef("diff: --ready-after %v: want a positive duration, e.g. 30s", o.readyAfter)
	}
	if o.terminating < 0 {
		return usagef("diff: --terminating %v: want a duration of 0 or more", o.terminating)
	}
	if o.dsFile == "" && len(o.nodeFiles)+len(o.removes)+len(o.labels)+len(o.taints) == 0 {
		return usagef("diff: nothing to compare: give --ds-file, --label, --taint, --remove-node or --node-file")
	}
	in, err := c.load("diff", &o.common)
	if err != nil {
		return err
	}
	edited := *in
	cl := *in.cluster
	edited.cluster = &cl
	var edits []string
	if o.dsFile != "" {
		ds, at, k, err := c.newDaemonSet("diff", in.cluster, o.dsFile)
		if err != nil {
			return err
		}
		cl.DaemonSet, cl.At.DaemonSet = ds, at
		if k != nil {
			edited.kruise = k
		}
		edits = append(edits, "--ds-file "+o.dsFile)
	}
	more, err := c.editNodes(&cl, o)
	if err != nil {
		return err
	}
	edits = append(edits, more...)

	// The edited cluster is planned once as plan would: its findings are
	// printed as warnings, or refuse it with --strict.
	if _, err := c.sync("diff", &edited, o.strict); err != nil {
		return err
	}
	before, _, err := syncInput(in)
	if err != nil {
		return c.fail("diff: %v", err)
	}
	// The simulated syncs hash the edited template and run with the edited
	// DaemonSet's extensions.
	after, opts, err := syncInput(&edited)
	if err != nil {
		return c.fail("diff: %v", err)
	}
	if fes := api.ValidateUpdate(before.DaemonSet, after.DaemonSet); len(fes) > 0 {
		if err := c.updateFindings(in, o.strict, fes); err != nil {
			return err
		}
	}
	rep, err := whatif.Diff(before, after, whatif.Options{Sync: opts, ReadyAfter: o.readyAfter, Terminating: o.terminating})
	if err != nil {
		return c.fail("diff: %v", err)
	}
	doc := diffDocument(in, rep, edits, o.readyAfter)
	if o.output == "json" {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return c.fail("diff: %v", err)
		}
		_, err = c.stdout.Write(append(b, '\n'))
		return err
	}
	return writeDiffTable(c.stdout, doc)
}

// updateFindings reports what the API server would refuse in the update
// of the cluster's DaemonSet into the edited one (an immutable selector
// changed): warnings, or with strict the reason for refusing.
func (c *cli) updateFindings(in *input, strict bool, fes field.ErrorList) error {
	ds := in.cluster.DaemonSet
	if strict {
		fmt.Fprintf(c.stderr, "%s: diff: the update of DaemonSet %s/%s is invalid (--strict): %d field error(s)\n",
			c.name, ds.Namespace, ds.Name, len(fes))
		for _, fe := range fes {
			fmt.Fprintln(c.stderr, finding("error", fe))
		}
		return exitErr{exitError}
	}
	fmt.Fprintf(c.stderr, "%s: diff: the update of DaemonSet %s/%s: %d warning(s), the API server would refuse it\n",
		c.name, ds.Namespace, ds.Name, len(fes))
	for _, fe := range fes {
		fmt.Fprintln(c.stderr, finding("warning", fe))
	}
	return nil
}

// syncInput converts a loaded snapshot into the input and options of a
// sync (planner.Input).
func syncInput(in *input) (daemonplan.Input, daemonplan.Options, error) {
	opts := planner.Options{KubernetesVersion: in.version}
	opts.Placement, opts.Progressive = in.options()
	return planner.Input(in.cluster, in.now, opts)
}

// lastApplied is the annotation kubectl apply records its manifest in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// newDaemonSet reads --ds-file for command cmd (diff, simulate): one
// DaemonSet with the cluster's namespace (or none) and name. One with a UID (as kubectl get prints it) replaces
// the cluster's; a manifest is merged into it as kubectl apply merges. The
// status, generation and template-generation annotation are the
// cluster's, for whatif to raise as the API server would.
func (c *cli) newDaemonSet(cmd string, cl *load.Cluster, file string) (*appsv1.DaemonSet, load.Position, *convert.Kruise, error) {
	objs, kruise, src, err := c.read(cmd, []string{file})
	if err != nil {
		return nil, load.Position{}, nil, err
	}
	if len(objs.DaemonSets) != 1 {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: want exactly one DaemonSet, found %d", cmd, src, len(objs.DaemonSets))
	}
	live, ds := cl.DaemonSet, objs.DaemonSets[0]
	if ds.Namespace == "" {
		ds = ds.DeepCopy()
		ds.Namespace = live.Namespace
	}
	if ds.Namespace != live.Namespace || ds.Name != live.Name {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s holds DaemonSet %s/%s, the cluster's is %s/%s",
			cmd, src, ds.Namespace, ds.Name, live.Namespace, live.Name)
	}
	if ds.UID != "" && ds.UID != live.UID {
		return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: DaemonSet %s/%s has uid %s, the cluster's has uid %s",
			cmd, src, ds.Namespace, ds.Name, ds.UID, live.UID)
	}
	var out *appsv1.DaemonSet
	if ds.UID != "" {
		out = ds.DeepCopy()
	} else {
		out, err = apply(live, ds)
		if err != nil {
			return nil, load.Position{}, nil, c.fail("%s: --ds-file %s: %v", cmd, src, err)
		}
	}
	// The API server keeps these: an update cannot set them.
	out.UID, out.Generation, out.CreationTimestamp = live.UID, live.Generation, live.CreationTimestamp
	out.Status = *live.Status.DeepCopy()
	out.Annotations = maps.Clone(out.Annotations)
	if g, ok := live.Annotations[api.AnnotationTemplateGeneration]; ok {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[api.AnnotationTemplateGeneration] = g
	} else {
		delete(out.Annotations, api.AnnotationTemplateGeneration)
	}
	var at load.Position
	if len(objs.At.DaemonSets) > 0 {
		at = objs.At.DaemonSets[0]
	}
	// Only a live template the API server stored (all its defaults set)
	// makes the missing fields of the new one a difference from the
	// cluster's.
	if missing := undefaulted(&out.Spec.Template.Spec); len(missing) > 0 && len(undefaulted(&live.Spec.Template.Spec)) == 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		fmt.Fprintf(c.stderr, "%s: %s: note: --ds-file %s: the template lacks fields the API server fills in (%s%s): "+
			"the new revision's hash, and so its name and the new pods' hash label, will not be the real controller's; "+
			"which nodes change and the steps are not affected\n", c.name, cmd, src, strings.Join(missing, ", "), more)
	}
	return out, at, kruise[objs.DaemonSets[0]], nil
}

// undefaulted lists the fields of a pod template's spec that the API
// server's defaulting always sets and spec leaves empty: a template that
// no API server stored (a new container in a manifest) hashes otherwise
// than the one the API server stores. The list is of the fields defaulted
// unconditionally; daemonplan does not apply the defaulting itself
// (docs/kubernetes-versions.md).
func undefaulted(spec *corev1.PodSpec) []string {
	var out []string
	base := "spec.template.spec."
	if spec.RestartPolicy == "" {
		out = append(out, base+"restartPolicy")
	}
	if spec.DNSPolicy == "" {
		out = append(out, base+"dnsPolicy")
	}
	if spec.SchedulerName == "" {
		out = append(out, base+"schedulerName")
	}
	if spec.TerminationGracePeriodSeconds == nil {
		out = append(out, base+"terminationGracePeriodSeconds")
	}
	if spec.SecurityContext == nil {
		out = append(out, base+"securityContext")
	}
	check := func(list string, cs []corev1.Container) {
		for i := range cs {
			at := fmt.Sprintf("%s%s[%d].", base, list, i)
			if cs[i].TerminationMessagePath == "" {
				out = append(out, at+"terminationMessagePath")
			}
			if cs[i].TerminationMessagePolicy == "" {
				out = append(out, at+"terminationMessagePolicy")
			}
			if cs[i].ImagePullPolicy == "" {
				out = append(out, at+"imagePullPolicy")
			}
		}
	}
	check("initContainers", spec.InitContainers)
	check("containers", spec.Containers)
	return out
}

// apply merges manifest into live as kubectl apply (client side) does: a
// three-way strategic merge of the last applied manifest (the annotation;
// none: nothing to remove), the new manifest and the live object.
func apply(live, manifest *appsv1.DaemonSet) (*appsv1.DaemonSet, error) {
	current, err := json.Marshal(live)
	if err != nil {
		return nil, err
	}
	modified, err := manifestJSON(manifest)
	if err != nil {
		return nil, err
	}
	var original []byte
	if s := live.Annotations[lastApplied]; s != "" {
		original = []byte(s)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(appsv1.DaemonSet{})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	if err != nil {
		return nil, fmt.Errorf("merging the manifest as kubectl apply: %w", err)
	}
	merged, err := strategicpatch.StrategicMergePatch(current, patch, appsv1.DaemonSet{})
	if err != nil {
		return nil, fmt.Errorf("merging the manifest as kubectl apply: %w", err)
	}
	var out appsv1.DaemonSet
	if err := json.Unmarshal(merged, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// manifestJSON renders a decoded manifest for a merge: without its status,
// and without the nulls the Go types write for fields the manifest leaves
// out (a null in a patch removes the field).
func manifestJSON(ds *appsv1.DaemonSet) ([]byte, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	dropNulls(m)
	return json.Marshal(m)
}

func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			dropNulls(x)
		}
	case []any:
		for _, x := range v {
			dropNulls(x)
		}
	}
}

// editNodes applies --node-file, --remove-node, --label and --taint to
// cl's nodes, copying each node it changes, and returns the edits as
// flags. A node an edit names must be there.
func (c *cli) editNodes(cl *load.Cluster, o *diffOptions) ([]string, error) {
	nodes := slices.Clone(cl.Nodes)
	at := slices.Clone(cl.At.Nodes)
	for len(at) < len(nodes) {
		at = append(at, load.Position{})
	}
	index := func(name string) int {
		return slices.IndexFunc(nodes, func(n *corev1.Node) bool { return n.Name == name })
	}
	var edits []string
	for _, file := range o.nodeFiles {
		objs, _, src, err := c.read("diff", []string{file})
		if err != nil {
			return nil, err
		}
		if len(objs.Nodes) == 0 {
			return nil, c.fail("diff: --node-file %s: no Node in it", src)
		}
		for j, n := range objs.Nodes {
			var pos load.Position
			if j < len(objs.At.Nodes) {
				pos = objs.At.Nodes[j]
			}
			if i := index(n.Name); i >= 0 {
				nodes[i], at[i] = n, pos
			} else {
				nodes, at = append(nodes, n), append(at, pos)
			}
		}
		edits = append(edits, "--node-file "+file)
	}
	removed := map[string]bool{}
	unknown := func(flag, value, name string) error {
		if removed[name] {
			return c.fail("diff: %s %q: node %q is removed by --remove-node", flag, value, name)
		}
		return c.fail("diff: %s %q: node %q is not in the input (%d nodes)", flag, value, name, len(nodes))
	}
	for _, names := range o.removes {
		for _, name := range names {
			i := index(name)
			if i < 0 {
				return nil, unknown("--remove-node", names.String(), name)
			}
			nodes, at = slices.Delete(nodes, i, i+1), slices.Delete(at, i, i+1)
			removed[name] = true
		}
		edits = append(edits, "--remove-node "+names.String())
	}
	owned := map[int]bool{} // nodes already copied
	own := func(i int) *corev1.Node {
		if !owned[i] {
			nodes[i] = nodes[i].DeepCopy()
			owned[i] = true
		}
		return nodes[i]
	}
	for _, e := range o.labels {
		for _, name := range e.Nodes {
			i := index(name)
			if i < 0 {
				return nil, unknown("--label", e.String(), name)
			}
			if applyLabel(own(i), e) {
				fmt.Fprintf(c.stderr, "%s: diff: --label %q: node %q has no label %q (as kubectl label, nothing to remove)\n", c.name, e.String(), name, e.Key)
			}
		}
		edits = append(edits, "--label "+e.String())
	}
	for _, e := range o.taints {
		for _, name := range e.Nodes {
			i := index(name)
			if i < 0 {
				return nil, unknown("--taint", e.String(), name)
			}
			if err := applyTaint(own(i), e); err != nil {
				return nil, c.fail("diff: --taint %q: %v", e.String(), err)
			}
		}
		edits = append(edits, "--taint "+e.String())
	}
	cl.Nodes, cl.At.Nodes = nodes, at
	return edits, nil
}

// diffDocument renders a report as the diff document.
func diffDocument(in *input, rep whatif.Report, edits []string, readyAfter time.Duration) schema.Diff {
	ds := in.cluster.DaemonSet
	doc := schema.Diff{
		DaemonSet:         schema.Ref{Namespace: ds.Namespace, Name: ds.Name},
		KubernetesVersion: in.version.OrLatest().String(),
		Edits:             append([]string{}, edits...),
		Nodes:             make([]schema.DiffNode, 0, len(rep.Nodes)),
		Counts: schema.DiffCounts{
			Unchanged: rep.Counts.Unchanged, Gains: rep.Counts.Gains, Loses: rep.Counts.Loses,
			Replaced: rep.Counts.Replaced, Outdated: rep.Counts.Outdated,
		},
		Budgets:    schema.DiffBudgets{Desired: rep.Budgets.Desired, MaxUnavailable: rep.Budgets.MaxUnavailable, MaxSurge: rep.Budgets.MaxSurge},
		Steps:      rep.Steps,
		Syncs:      rep.Syncs,
		Duration:   rep.Duration.String(),
		ReadyAfter: readyAfter.String(),
		Settled:    rep.Settled,
		Done:       rep.Done,
		Unsettled:  rep.Unsettled,
	}
	for _, n := range rep.Nodes {
		dn := schema.DiffNode{
			Name: n.Node, Change: n.Change.String(), Added: n.Added, Removed: n.Removed,
			Pod: n.Pod, Replacement: n.Replacement,
		}
		if n.Why != 0 {
			dn.Why = n.Why.String()
		}
		if !n.Added {
			dn.Before = decision(n.Before)
		}
		if !n.Removed {
			dn.After = decision(n.After)
		}
		doc.Nodes = append(doc.Nodes, dn)
	}
	return doc
}

func decision(d placement.Decision) *schema.Decision {
	return &schema.Decision{ShouldRun: d.ShouldRun, ShouldContinueRunning: d.ShouldContinueRunning, Reason: d.Reason.String(), Message: d.Message()}
}

// diffReason is the REASON column of a node that changes.
func diffReason(n schema.DiffNode) string {
	switch {
	case n.Removed && n.Why != "":
		return "node removed; " + n.Why + ": the rolling update deletes " + n.Pod
	case n.Removed && n.Pod != "":
		return "node removed: pod garbage collection deletes " + n.Pod
	case n.Removed:
		return "node removed"
	case n.Change == "Gains" && n.Added:
		return "node added: " + n.After.Message
	case n.Change == "Gains":
		return n.After.Message
	case n.Change == "Loses" && n.Why == "Outdated":
		why, _, _ := strings.Cut(n.After.Message, ": no new pod")
		return "Outdated: the rolling update deletes " + n.Pod + " and the node takes no new pod (" + why + ")"
	case n.Change == "Loses" && n.Why != "":
		return n.Why + ": " + n.After.Message
	case n.Change == "Loses":
		return n.After.Message
	case n.Change == "Replaced":
		return n.Pod + " replaced by a pod of the new template"
	case n.Change == "Outdated":
		return n.Pod + " keeps the old template until it is deleted (OnDelete)"
	}
	return ""
}

// writeDiffTable renders the diff for people: the nodes that change, then
// the counts and the rollout's steps.
func writeDiffTable(w io.Writer, doc schema.Diff) error {
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tNODE\tREASON")
	for _, n := range doc.Nodes {
		if n.Change == "Unchanged" {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n.Change, n.Name, diffReason(n))
	}
	ct := doc.Counts
	fmt.Fprintf(tw, "\n%d nodes: %d unchanged, %d gain a pod, %d lose theirs, %d replaced, %d outdated\n",
		len(doc.Nodes), ct.Unchanged, ct.Gains, ct.Loses, ct.Replaced, ct.Outdated)
	b := doc.Budgets
	budgets := fmt.Sprintf("maxUnavailable %d, maxSurge %d", b.MaxUnavailable, b.MaxSurge)
	if b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		budgets = "OnDelete: no rolling-update budgets" // a rolling update always has one
	}
	fmt.Fprintf(tw, "rollout: %s in %s, %s simulated (new pods Ready after %s); %d desired, %s\n",
		plural(doc.Steps, "step"), plural(doc.Syncs, "sync"), doc.Duration, doc.ReadyAfter, b.Desired, budgets)
	switch {
	case !doc.Settled && doc.Unsettled != "":
		fmt.Fprintf(tw, "does not settle: %s\n", doc.Unsettled)
	case !doc.Settled:
		fmt.Fprintf(tw, "does not settle within %d syncs\n", doc.Syncs)
	case !doc.Done:
		fmt.Fprintln(tw, "settles, but kubectl rollout status would not report it done")
	default:
		fmt.Fprintln(tw, "settles: kubectl rollout status would report it done")
	}
	return tw.Flush()
}

// The node edits of "diff": --label and --taint in kubectl's own syntax,
// prefixed with the nodes they apply to.

// labelEdit is one --label NODE[,NODE...]:KEY=VALUE (set) or
// NODE[,NODE...]:KEY- (remove), as 'kubectl label node NODE KEY=VALUE
// --overwrite' and 'kubectl label node NODE KEY-'.
type labelEdit struct {
	Nodes      []string
	Key, Value string
	Remove     bool
}

// parseLabelEdit parses s. Node names come before the first ':' (neither
// node names, label keys nor label values hold one); the key must be a
// qualified name and the value a label value, as the API server requires.
func parseLabelEdit(s string) (labelEdit, error) {
	nodes, spec, err := splitNodes(s)
	if err != nil {
		return labelEdit{}, err
	}
	e := labelEdit{Nodes: nodes}
	if key, ok := strings.CutSuffix(spec, "-"); ok && !strings.Contains(spec, "=") {
		e.Key, e.Remove = key, true
	} else {
		key, value, ok := strings.Cut(spec, "=")
		if !ok {
			return labelEdit{}, fmt.Errorf("%q: want NODE:KEY=VALUE or NODE:KEY- (remove)", s)
		}
		e.Key, e.Value = key, value
		if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
			return labelEdit{}, fmt.Errorf("%q: label value %q: %s", s, value, strings.Join(errs, "; "))
		}
	}
	if errs := validation.IsQualifiedName(e.Key); len(errs) > 0 {
		return labelEdit{}, fmt.Errorf("%q: label key %q: %s", s, e.Key, strings.Join(errs, "; "))
	}
	return e, nil
}

// String renders the edit as its flag value; parseLabelEdit reads it back.
func (e labelEdit) String() string {
	if e.Remove {
		return strings.Join(e.Nodes, ",") + ":" + e.Key + "-"
	}
	return strings.Join(e.Nodes, ",") + ":" + e.Key + "=" + e.Value
}

// taintEdit is one --taint NODE[,NODE...]:TAINT in kubectl taint's
// syntax: KEY[=VALUE]:EFFECT adds the taint (replacing the value of a
// taint with the same key and effect), KEY[=VALUE]:EFFECT- removes the
// taint with that key and effect, KEY- every taint with that key.
type taintEdit struct {
	Nodes      []string
	Key, Value string
	// Effect is empty only for KEY-.
	Effect corev1.TaintEffect
	Remove bool
}

var effects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

func parseTaintEdit(s string) (taintEdit, error) {
	nodes, spec, err := splitNodes(s)
	if err != nil {
		return taintEdit{}, err
	}
	e := taintEdit{Nodes: nodes}
	spec, e.Remove = strings.CutSuffix(spec, "-")
	kv, effect, hasEffect := strings.Cut(spec, ":")
	switch {
	case hasEffect:
		e.Effect = corev1.TaintEffect(effect)
		if !slices.Contains(effects, e.Effect) {
			return taintEdit{}, fmt.Errorf("%q: taint effect %q: want NoSchedule, PreferNoSchedule or NoExecute", s, effect)
		}
	case !e.Remove:
		return taintEdit{}, fmt.Errorf("%q: want NODE:KEY[=VALUE]:EFFECT, NODE:KEY[=VALUE]:EFFECT- or NODE:KEY- (remove)", s)
	}
	key, value, hasValue := strings.Cut(kv, "=")
	if hasValue && !hasEffect {
		return taintEdit{}, fmt.Errorf("%q: removing by KEY=VALUE needs an effect: NODE:KEY=VALUE:EFFECT- or NODE:KEY-", s)
	}
	e.Key, e.Value = key, value
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return taintEdit{}, fmt.Errorf("%q: taint key %q: %s", s, key, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
		return taintEdit{}, fmt.Errorf("%q: taint value %q: %s", s, value, strings.Join(errs, "; "))
	}
	return e, nil
}

// String renders the edit as its flag value; parseTaintEdit reads it back.
func (e taintEdit) String() string {
	s := strings.Join(e.Nodes, ",") + ":" + e.Key
	if e.Value != "" {
		s += "=" + e.Value
	}
	if e.Effect != "" {
		s += ":" + string(e.Effect)
	}
	if e.Remove {
		s += "-"
	}
	return s
}

// splitNodes splits "NODE[,NODE...]:REST" at the first ':'. Every node
// name must be non-empty; a name given twice is kept once.
func splitNodes(s string) ([]string, string, error) {
	list, rest, ok := strings.Cut(s, ":")
	if !ok || list == "" {
		return nil, "", fmt.Errorf("%q: want NODE[,NODE...]:EDIT", s)
	}
	var nodes []string
	for _, n := range strings.Split(list, ",") {
		if n == "" {
			return nil, "", fmt.Errorf("%q: empty node name in %q", s, list)
		}
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	return nodes, rest, nil
}

// splitNames splits a --remove-node value, a comma list of node names.
func splitNames(s string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(s, ",") {
		if n == "" {
			return nil, fmt.Errorf("%q: empty node name", s)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// editFlag is a repeatable flag whose values parse into edits.
type editFlag[E fmt.Stringer] struct {
	edits *[]E
	parse func(string) (E, error)
	typ   string
}

func (f editFlag[E]) String() string {
	if f.edits == nil {
		return ""
	}
	parts := make([]string, len(*f.edits))
	for i, e := range *f.edits {
		parts[i] = e.String()
	}
	return strings.Join(parts, " ")
}

func (f editFlag[E]) Set(s string) error {
	e, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.edits = append(*f.edits, e)
	return nil
}

func (f editFlag[E]) Type() string { return f.typ }

// nodeNames is a --remove-node value.
type nodeNames []string

func (n nodeNames) String() string { return strings.Join(n, ",") }

func parseNodeNames(s string) (nodeNames, error) { return splitNames(s) }

// applyLabel applies e to n, a copy the caller owns; it reports whether a
// removed key was absent (kubectl then says "label not found" and goes on).
func applyLabel(n *corev1.Node, e labelEdit) (missing bool) {
	if e.Remove {
		if _, ok := n.Labels[e.Key]; !ok {
			return true
		}
		delete(n.Labels, e.Key)
		return false
	}
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[e.Key] = e.Value
	return false
}

// applyTaint applies e to n, a copy the caller owns, as kubectl taint
// --overwrite does; removing a taint the node does not have is an error,
// as kubectl's.
func applyTaint(n *corev1.Node, e taintEdit) error {
	ts := n.Spec.Taints
	if e.Remove {
		kept := ts[:0:0]
		for _, t := range ts {
			if t.Key == e.Key && (e.Effect == "" || t.Effect == e.Effect) {
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == len(ts) {
			what := e.Key
			if e.Effect != "" {
				what += ":" + string(e.Effect)
			}
			return fmt.Errorf("node %q has no taint %s", n.Name, what)
		}
		n.Spec.Taints = kept
		return nil
	}
	for i, t := range ts {
		if t.Key == e.Key && t.Effect == e.Effect {
			ts = slices.Clone(ts)
			ts[i].Value = e.Value
			n.Spec.Taints = ts
			return nil
		}
	}
	n.Spec.Taints = append(slices.Clone(ts), corev1.Taint{Key: e.Key, Value: e.Value, Effect: e.Effect})
	return nil
}

// plural renders "1 step", "2 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
