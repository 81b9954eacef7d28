package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/rollout"
)

// outputs are the values of plan's -o flag.
var outputs = []string{"table", "wide", "json", "yaml", "name"}

func (c *cli) planCmd() *cobra.Command {
	var o common
	output := "table"
	cmd := &cobra.Command{
		Use:   "plan [ds/NAME] [-n NAMESPACE] | -f FILE [-f FILE...] [--now RFC3339] [-o table|wide|json|yaml|name] [--strict] [--ds [NS/]NAME]",
		Short: "Print the plan of one sync",
		Long: `Print the plan of one sync: pod creates and deletes, adoptions, ControllerRevision
writes, the status it writes and the rollout status kubectl would print.

Output formats (-o):
  table  the DaemonSet as 'kubectl get ds' shows it with the status the sync
         writes (plus MISSCHEDULED), then each group of writes (default)
  wide   table, with each pod to create as the API server admits it
         (REQUESTS, PRIORITY) and what kube-scheduler does with it on its
         node (SCHEDULER: fits, pending and why, or preempts which pods),
         then one row per node: the decision, its reason, the pods there
         and what the plan does with each
  json   the plan document (package kube/schema): the conformance schema of
         kube/testdata/conformance/README.md, then the rest of the plan;
         each create's "pod" holds what wide shows
  yaml   the same document as YAML
  name   the objects the plan writes, as resource/name (kubectl's -o name);
         created pods, which the API server names, as pod/<generateName>

A created pod is admitted with the input's LimitRanges, PriorityClasses and
RuntimeClasses (live: read from the cluster), and judged beside every
unfinished pod bound to its node, the DaemonSet's own included (an old pod
that a surge replaces holds its room until it goes), and the pods nominated
for it, with the input's PodDisruptionBudgets (docs/overhead.md). Without
admission objects or status.allocatable there is nothing to add.`,
		Args: dsArg("plan", &o),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(outputs, output) {
				return usagef("plan: -o %q: want one of %s", output, strings.Join(outputs, ", "))
			}
			// The new pods' answers need, live, more than the sync reads.
			c.newPodsLive = output == "wide" || output == "json" || output == "yaml"
			in, err := c.load("plan", &o)
			if err != nil {
				return err
			}
			p, err := c.sync("plan", in, o.strict)
			if err != nil {
				return err
			}
			if err := c.writePlan(in, p, output); err != nil {
				return c.fail("plan: %v", err)
			}
			return nil
		},
	}
	addCommon(cmd, &o)
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: "+strings.Join(outputs, "|"))
	return cmd
}

func (c *cli) writePlan(in *input, p daemonplan.Plan, output string) error {
	var pods []*schema.NewPod
	if output == "json" || output == "yaml" || output == "wide" {
		var err error
		if pods, err = c.createdPods(in, p); err != nil {
			return err
		}
	}
	switch output {
	case "json", "yaml":
		doc := kubesync.JSON(p, in.version)
		for i := range pods {
			doc.Create[i].Pod = pods[i]
		}
		if output == "yaml" {
			b, err := yaml.Marshal(doc)
			if err != nil {
				return err
			}
			_, err = c.stdout.Write(b)
			return err
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		_, err = c.stdout.Write(append(b, '\n'))
		return err
	case "name":
		return writeNames(c.stdout, in, p)
	case "wide":
		if err := writeTable(c.stdout, in, p, pods); err != nil {
			return err
		}
		return writeNodes(c.stdout, in, p)
	}
	return writeTable(c.stdout, in, p, nil)
}

// createdPods answers for each pod p creates, in order: as admission
// leaves it and what the scheduler does with it beside every pod bound to
// its node, the DaemonSet's own included (an old pod a surge replaces, or
// one still terminating, holds its room until it is gone). Each is nil
// when the input says nothing beyond the template, and the slice nil when
// none has anything to say.
func (c *cli) createdPods(in *input, p daemonplan.Plan) ([]*schema.NewPod, error) {
	if len(p.Create) == 0 || in.objs == nil {
		return nil, nil
	}
	np, err := newNewPods(in)
	if err != nil {
		// The plan stands without them: say why they are not judged.
		fmt.Fprintln(c.stderr, oneLine("warning: plan: the new pods are not judged (admission, fit, preemption): "+err.Error()))
		return nil, nil
	}
	c.warnNewPods("plan", np, in.objs)
	pods := make([]*schema.NewPod, len(p.Create))
	known := false
	for i, cr := range p.Create {
		if pods[i], err = np.pod(cr.Node, true); err != nil {
			return nil, err
		}
		known = known || pods[i] != nil
	}
	if !known {
		// The table keeps its columns when there is nothing to add.
		return nil, nil
	}
	return pods, nil
}

// writeNames prints the objects the plan writes, kubectl's -o name style,
// sorted within each kind: the DaemonSet (when its status is written), the
// ControllerRevisions, then the pods; each name escaped by printable.
func writeNames(w io.Writer, in *input, p daemonplan.Plan) error {
	var lines []string
	if p.StatusChanged {
		lines = append(lines, "daemonset.apps/"+printable(p.Name))
	}
	rv := p.Revisions
	var revs []string
	for _, r := range rv.Create {
		revs = append(revs, r.Name)
	}
	for _, r := range rv.Update {
		revs = append(revs, r.Name)
	}
	revs = slices.Concat(revs, rv.DeleteDuplicates, rv.Delete, rv.Adopt, rv.Release)
	slices.Sort(revs)
	for _, r := range slices.Compact(revs) {
		lines = append(lines, "controllerrevision.apps/"+printable(r))
	}
	var pods []string
	for _, d := range p.Delete {
		pods = append(pods, d.Pod)
	}
	for _, r := range p.Relabel {
		pods = append(pods, r.Pod)
	}
	pods = append(append(pods, p.Adopt...), p.Release...)
	slices.Sort(pods)
	for _, name := range slices.Compact(pods) {
		lines = append(lines, "pod/"+printable(name))
	}
	if len(p.Create) > 0 {
		prefix := in.cluster.DaemonSet.Name + "-"
		if pod, err := convert.NewPod(in.cluster.DaemonSet, p.Create[0]); err == nil {
			prefix = pod.GenerateName
		}
		for range p.Create {
			lines = append(lines, "pod/"+printable(prefix))
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// writeTable renders p for people: the DaemonSet line of 'kubectl get ds'
// with the status the sync writes, then each non-empty group of writes in
// the order they are applied, the errors upstream's sync would return, and
// the rollout status kubectl would print. With pods (-o wide), each create
// also says what the pod requests once admitted, its priority, and what
// the scheduler does with it.
func writeTable(w io.Writer, in *input, p daemonplan.Plan, pods []*schema.NewPod) error {
	t := newTable(w, 3)
	row := t.row
	// Sections are separated by a blank line; tabwriter aligns each
	// section's columns on its own, since a line without tabs ends a block.
	section := func(title string, n int) {
		t.blank()
		t.line(fmt.Sprintf("%s (%d)", title, n))
	}

	st := p.Status
	ds := in.cluster.DaemonSet
	row("NAMESPACE", "NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE", "MISSCHEDULED")
	row(p.Namespace, p.Name, st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable,
		nodeSelector(ds.Spec.Template.Spec.NodeSelector), age(ds.CreationTimestamp.Time, in.now), st.NumberMisscheduled)

	if len(p.Create) > 0 {
		section("CREATE", len(p.Create))
		if pods == nil {
			row("NODE", "HASH")
			for _, cr := range p.Create {
				row(cr.Node, cr.Labels[api.LabelRevisionHash])
			}
		} else {
			row("NODE", "HASH", "REQUESTS", "PRIORITY", "SCHEDULER")
			for i, cr := range p.Create {
				req := "-"
				if pods[i] != nil {
					req = listString(pods[i].Requests)
				}
				row(cr.Node, cr.Labels[api.LabelRevisionHash], req, priorityString(pods[i]), newPodScheduler(pods[i]))
			}
		}
	}
	if len(p.Delete) > 0 {
		section("DELETE", len(p.Delete))
		row("POD", "NODE", "REASON")
		for _, d := range p.Delete {
			row(d.Pod, orNone(d.Node), d.Reason)
		}
	}
	if len(p.Adopt)+len(p.Release) > 0 {
		section("ADOPT/RELEASE PODS", len(p.Adopt)+len(p.Release))
		row("POD", "ACTION")
		for _, name := range p.Adopt {
			row(name, "adopt")
		}
		for _, name := range p.Release {
			row(name, "release")
		}
	}
	if len(p.Relabel) > 0 {
		section("RELABEL PODS", len(p.Relabel))
		row("POD", "HASH")
		for _, r := range p.Relabel {
			row(r.Pod, r.Hash)
		}
	}
	rv := p.Revisions
	if n := len(rv.Create) + len(rv.Update) + len(rv.DeleteDuplicates) + len(rv.Delete) + len(rv.Adopt) + len(rv.Release); n > 0 {
		section("CONTROLLERREVISIONS", n)
		row("NAME", "ACTION", "REVISION", "HASH")
		for _, r := range rv.Create {
			row(r.Name, "create", r.Revision, r.Labels[api.LabelRevisionHash])
		}
		for _, r := range rv.Update {
			row(r.Name, "update", r.Revision, r.Labels[api.LabelRevisionHash])
		}
		for _, name := range rv.Adopt {
			row(name, "adopt", "", "")
		}
		for _, name := range rv.Release {
			row(name, "release", "", "")
		}
		for _, name := range rv.DeleteDuplicates {
			row(name, "delete-duplicate", "", "") // a second copy of the current template
		}
		for _, name := range rv.Delete {
			row(name, "delete", "", "")
		}
	}
	if len(p.Errors) > 0 {
		section("ERRORS", len(p.Errors))
		for _, e := range p.Errors {
			t.line(oneLine(e.Error()))
		}
	}
	if line := progressLine(p.Progress); line != "" {
		t.blank()
		t.line("PROGRESSIVE: " + printable(line))
	}
	t.blank()
	t.line(strings.TrimRight(p.Rollout.Message, "\n"))
	return t.flush()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// nodeSelector renders a nodeSelector as kubectl's get ds does: k=v pairs
// sorted and comma-separated, or <none>.
func nodeSelector(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	kv := make([]string, 0, len(m))
	for k, v := range m {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return strings.Join(kv, ",")
}

// age renders how long ago t was at now, as kubectl's AGE column does;
// <unknown> without a creation timestamp.
func age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// progressLine renders what the rollout extensions decided, or "" when
// none is on.
func progressLine(pr rollout.Progress) string {
	if pr.Held == rollout.NotHeld && pr.Outdated == 0 && pr.HeldCreates == 0 && pr.Canary == nil && pr.Zones == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("%d outdated nodes, %d may update now", pr.Outdated, pr.Allowed)}
	if pr.Partition > 0 {
		parts = append(parts, fmt.Sprintf("partition %d", pr.Partition))
	}
	if pr.HeldCreates > 0 {
		parts = append(parts, fmt.Sprintf("%d creates held by the partition", pr.HeldCreates))
	}
	if c := pr.Canary; c != nil {
		parts = append(parts, fmt.Sprintf("canary %s %v", c.Phase, c.Nodes))
	}
	if z := pr.Zones; z != nil {
		parts = append(parts, fmt.Sprintf("zones active %v waiting %v", z.Active, z.Waiting))
	}
	if pr.Held != rollout.NotHeld {
		parts = append(parts, "held: "+pr.Held.String())
	}
	return strings.Join(parts, ", ")
}
