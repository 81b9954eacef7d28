package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/whatif"
)

var diffOutputs = []string{"table", "json"}

// diffOptions are the parsed flags of "diff".
type diffOptions struct {
	common
	change
	dsFile    string
	nodeFiles []string
	removes   []nodeNames
	labels    []labelEdit
	taints    []taintEdit
	timing
	output string
	cmd    *cobra.Command
}

func (c *cli) diffCmd() *cobra.Command {
	o := diffOptions{output: "table", timing: defaultTiming()}
	cmd := &cobra.Command{
		Use:   "diff [ds/NAME] [--ds-file NEW_DS.yaml | --image CONTAINER=IMAGE] | -f FILE [--ds-file NEW_DS.yaml] [--label NODE:KEY=VALUE] [--taint NODE:KEY=VALUE:EFFECT] [--remove-node NODE] [--node-file FILE] [-o table|json]",
		Short: "Tell what an edit would change: which nodes gain, lose or replace their pod, and how long the rollout takes",
		Long: `Tell what an edit to the cluster would change before it is made: a new
DaemonSet spec, nodes relabelled or tainted, nodes added or removed. The
cluster with the edit is compared with the same cluster without it, both as
they settle: for each node, does it gain a pod it would not have, lose the pod
it would have (and why), end with another one (of the new template), keep the
pod it runs (which would be replaced), keep an outdated one (OnDelete), only
have its decision changed (a NoSchedule taint: its pod stays), or end the same;
then the counts and how many rolling-update steps the rollout with the edit
takes. What the cluster does anyway, without the edit (a rollout already under
way, a node about to get its pod), is listed apart as pending.

Both are simulated sync after sync from the snapshot with the timing simulate
uses (docs/timeline.md): new pods Ready --ready-after after their creation and
never failing, deleted pods gone after --grace-period (their node gets its new
pod then), pods found terminating gone --terminating after the start, the next
sync at once after a sync that wrote, until a sync has nothing to do
(docs/whatif.md). A rollout stopped at --max-syncs or --max-duration, or
stalled, gets no predicted duration, and its nodes still on the old template
count as not yet replaced. Nothing is written to any cluster.

The new pod of each node that gets one is admitted (LimitRanges,
PriorityClasses, RuntimeClasses of the input; live, of the cluster) and
judged as kube-scheduler would judge it beside the pods bound to the node:
with maxSurge above 0 beside the pod it replaces, which is still there;
without, once that pod is gone (docs/whatif.md, W8).

--ds-file holds the new DaemonSet, with the cluster's namespace (or none) and
name: either as 'kubectl get ds -o yaml' prints it (it has metadata.uid), which
replaces the cluster's spec, or a manifest for 'kubectl apply', which is merged
into the cluster's DaemonSet as kubectl apply merges it (the
last-applied-configuration annotation, when present, tells which fields the
manifest no longer states). The result gets the API server's defaults for
--kubernetes-version (docs/manifests.md). metadata.generation and the
template-generation annotation are the API server's: they go up when the spec
or template changes.

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
  table  one row per node the edit changes: CHANGE, NODE, REASON; the counts;
         the nodes where the new pod does not fit (NEW POD: Pending and
         why, or Preempts which pods) and on how many it fits;
         one row per node the cluster changes anyway: PENDING, NODE, REASON,
         and their counts; then the steps, simulated duration and budgets of
         the rollout with the edit, and whether it settles (default)
  json   the diff document (package kube/schema, type Diff): every node with
         its change, what is pending for it, its pods now, with and without
         the edit, and its decisions before and after, and its new pod
         (newPod: admitted, and what the scheduler does); the counts, budgets,
         steps, syncs, duration, settled and done; and the same of the
         cluster without the edit (pending)`,
		Args: dsArg("diff", &o.common),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.cmd = cmd
			return c.diff(&o)
		},
	}
	cmd.Long = fmt.Sprintf(cmd.Long, c.name)
	addCommon(cmd, &o.common)
	addChange(cmd, &o.change)
	f := cmd.Flags()
	f.StringVar(&o.dsFile, "ds-file", "", "the new DaemonSet: 'kubectl get ds -o yaml' output, or a manifest for\n'kubectl apply'; '-' reads standard input")
	f.StringArrayVar(&o.nodeFiles, "node-file", nil, "nodes that replace the same-named nodes of the input or are added; repeatable")
	f.Var(editFlag[nodeNames]{&o.removes, parseNodeNames, "NODE[,NODE...]"}, "remove-node", "remove these nodes; repeatable")
	f.Var(editFlag[labelEdit]{&o.labels, parseLabelEdit, "NODE[,NODE...]:KEY=VALUE|KEY-"}, "label",
		"set (KEY=VALUE) or remove (KEY-) a label of the nodes; repeatable")
	f.Var(editFlag[taintEdit]{&o.taints, parseTaintEdit, "NODE[,NODE...]:TAINT"}, "taint",
		"add (KEY[=VALUE]:EFFECT) or remove (KEY[=VALUE]:EFFECT- or KEY-) a taint of the nodes;\nrepeatable")
	addTimingFlags(cmd, &o.timing)
	f.StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(diffOutputs, "|"))
	return cmd
}

// diff runs "diff" with parsed options.
func (c *cli) diff(o *diffOptions) error {
	if !slices.Contains(diffOutputs, o.output) {
		return usagef("diff: -o %q: want one of %s", o.output, strings.Join(diffOutputs, ", "))
	}
	if err := o.timing.check(o.cmd, "diff"); err != nil {
		return err
	}
	if err := c.filesHoldCluster("diff", &o.common, o.dsFile); err != nil {
		return err
	}
	if o.dsFile == "" && len(o.images)+len(o.nodeFiles)+len(o.removes)+len(o.labels)+len(o.taints) == 0 {
		return usagef("diff: nothing to compare: give --ds-file, --image, --label, --taint, --remove-node or --node-file")
	}
	c.newPodsLive = true
	in, err := c.load("diff", &o.common)
	if err != nil {
		return err
	}
	edited := *in
	cl := *in.cluster
	edited.cluster = &cl
	var edits []string
	if o.dsFile != "" || len(o.images) > 0 {
		ds, at, k, err := c.newSpec("diff", in, o.dsFile, o.images)
		if err != nil {
			return err
		}
		cl.DaemonSet, cl.At.DaemonSet = ds, at
		if k != nil {
			edited.kruise = k
		}
		edits = append(edits, changeEdits(o.dsFile, o.images)...)
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
	grace := o.grace(in.cluster.DaemonSet)
	rep, err := whatif.Diff(before, after, whatif.Options{Sync: opts, ReadyAfter: o.readyAfter, GracePeriod: grace,
		Terminating: o.terminating, ResyncAfter: o.resyncAfter, MaxSyncs: o.maxSyncs, MaxDuration: o.maxDuration})
	if err != nil {
		return c.fail("diff: %v", err)
	}
	doc := diffDocument(in, rep, edits, o.readyAfter, grace)
	if err := c.diffNewPods(&edited, &doc); err != nil {
		return c.fail("diff: %v", err)
	}
	if o.output == "json" {
		return c.writeJSON("diff", doc)
	}
	return writeDiffTable(c.stdout, doc)
}

// updateFindings reports what the API server would refuse in the update
// of the cluster's DaemonSet into the edited one (an immutable selector
// changed): warnings, or with strict the reason for refusing.
func (c *cli) updateFindings(in *input, strict bool, fes field.ErrorList) error {
	ds := in.cluster.DaemonSet
	if strict {
		fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: diff: the update of DaemonSet %s/%s is invalid (--strict): %d field error(s)",
			c.name, ds.Namespace, ds.Name, len(fes))))
		for _, fe := range fes {
			fmt.Fprintln(c.stderr, finding("error", fe))
		}
		return exitErr{exitError}
	}
	fmt.Fprintln(c.stderr, oneLine(fmt.Sprintf("%s: diff: the update of DaemonSet %s/%s: %d warning(s), the API server would refuse it",
		c.name, ds.Namespace, ds.Name, len(fes))))
	for _, fe := range fes {
		fmt.Fprintln(c.stderr, finding("warning", fe))
	}
	return nil
}

// diffNewPods sets, for each node of doc that gets a pod of the edited
// template (Gains, Replaced, NotYetReplaced), that pod as admitted and
// what the scheduler does with it on the node (docs/whatif.md, W8): with
// maxSurge above 0 the node's pod now is still bound when the new one is
// created, and counts; without, it is gone first.
func (c *cli) diffNewPods(edited *input, doc *schema.Diff) error {
	if edited.objs == nil {
		return nil
	}
	var np *newPods
	for i := range doc.Nodes {
		n := &doc.Nodes[i]
		if n.Removed || (n.Change != "Gains" && n.Change != "Replaced" && n.Change != "NotYetReplaced") {
			continue
		}
		if np == nil {
			var err error
			if np, err = newNewPods(edited); err != nil {
				// The diff stands without them: say why they are not judged.
				fmt.Fprintln(c.stderr, oneLine("warning: diff: the new pods are not judged (admission, fit, preemption): "+err.Error()))
				return nil
			}
			c.warnNewPods("diff", np, edited.objs)
		}
		surge := doc.Budgets.MaxSurge > 0 && n.Pod != ""
		pod, err := np.pod(n.Name, surge)
		if err != nil {
			return err
		}
		n.NewPod = pod
	}
	return nil
}
