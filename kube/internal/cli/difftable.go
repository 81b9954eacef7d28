package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/kube/schema"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/whatif"
)

// diffDocument renders a report as the diff document.
func diffDocument(in *input, rep whatif.Report, edits []string, readyAfter, grace time.Duration) schema.Diff {
	ds := in.cluster.DaemonSet
	doc := schema.Diff{
		DaemonSet:         schema.Ref{Namespace: ds.Namespace, Name: ds.Name},
		KubernetesVersion: in.version.OrLatest().String(),
		Edits:             append([]string{}, edits...),
		Nodes:             make([]schema.DiffNode, 0, len(rep.Nodes)),
		Counts:            diffCounts(rep.Counts),
		Budgets:           schema.DiffBudgets{Desired: rep.Budgets.Desired, MaxUnavailable: rep.Budgets.MaxUnavailable, MaxSurge: rep.Budgets.MaxSurge},
		Steps:             rep.Steps,
		Syncs:             rep.Syncs,
		Duration:          rep.Duration.String(),
		ReadyAfter:        readyAfter.String(),
		GracePeriod:       grace.String(),
		Settled:           rep.Settled,
		Done:              rep.Done,
		Unsettled:         rep.Unsettled,
		Pending: schema.DiffPending{
			Counts: diffCounts(rep.Pending.Counts), Steps: rep.Pending.Steps, Syncs: rep.Pending.Syncs,
			Duration: rep.Pending.Duration.String(), Settled: rep.Pending.Settled, Done: rep.Pending.Done,
			Unsettled: rep.Pending.Unsettled,
		},
	}
	for _, n := range rep.Nodes {
		dn := schema.DiffNode{
			Name: n.Node, Change: n.Change.String(), Added: n.Added, Removed: n.Removed,
			Pod: n.Pod, WithEdit: n.WithEdit, WithoutEdit: n.WithoutEdit, Why: reasonName(n.Why),
			Pending: schema.DiffNodePending{Change: n.Pending.Change.String(), Why: reasonName(n.Pending.Why)},
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

func diffCounts(c whatif.Counts) schema.DiffCounts {
	return schema.DiffCounts{Unchanged: c.Unchanged, Gains: c.Gains, Loses: c.Loses, Replaced: c.Replaced,
		Outdated: c.Outdated, NotYetReplaced: c.NotYetReplaced, Keeps: c.Keeps, DecisionChanged: c.DecisionChanged}
}

// reasonName is a delete reason's name, "" for none.
func reasonName(r placement.DeleteReason) string {
	if r == 0 {
		return ""
	}
	return r.String()
}

func decision(d placement.Decision) *schema.Decision {
	return &schema.Decision{ShouldRun: d.ShouldRun, ShouldContinueRunning: d.ShouldContinueRunning, Reason: d.Reason.String(), Message: d.Message()}
}

// message is a decision's message, "" where the node is not.
func message(d *schema.Decision) string {
	if d == nil {
		return ""
	}
	return d.Message
}

// diffReason is the REASON column of a node the edit changes: what
// happens to it with the edit, and, when the cluster changes it anyway,
// what happens to it without.
func diffReason(n schema.DiffNode) string {
	return editReason(n) + withoutNote(n)
}

func editReason(n schema.DiffNode) string {
	switch {
	case n.Removed && n.Why != "":
		return "node removed; " + n.Why + ": the rolling update deletes " + n.Pod
	case n.Removed && n.Pod != "":
		return "node removed: pod garbage collection deletes " + n.Pod
	case n.Removed:
		return "node removed"
	case n.Change == "Gains" && n.Added:
		return "node added: " + message(n.After)
	case n.Change == "Gains":
		return message(n.After)
	case n.Change == "Loses" && n.Why == "Outdated":
		why, _, _ := strings.Cut(message(n.After), ": no new pod")
		return "Outdated: the rolling update deletes " + n.Pod + " and the node takes no new pod (" + why + ")"
	case n.Change == "Loses" && n.Why != "":
		return n.Why + ": " + message(n.After)
	case n.Change == "Loses":
		return message(n.After)
	case n.Change == "Replaced" && n.Pod == "":
		return "gets a pod of the new template"
	case n.Change == "Replaced":
		return n.Pod + " replaced by a pod of the new template"
	case n.Change == "Keeps":
		return n.Pod + " stays"
	case n.Change == "Outdated":
		return n.Pod + " keeps the old template until it is deleted (OnDelete)"
	case n.Change == "NotYetReplaced" && n.Pod != "":
		return n.Pod + " not yet replaced when the simulation stopped"
	case n.Change == "NotYetReplaced":
		return "not yet replaced when the simulation stopped"
	case n.Change == "DecisionChanged":
		return message(n.After) + " (was: " + message(n.Before) + ")"
	}
	return ""
}

// withoutNote says, after a node's reason, what the cluster does to it
// without the edit, when that is something: the edit's change is against
// it, not against now.
func withoutNote(n schema.DiffNode) string {
	switch p := n.Pending.Change; {
	case p == "Gains" && n.Change == "Replaced":
		return "; without the edit one of the current template"
	case p == "Gains":
		return "; without the edit it gets a pod of the current template"
	case p == "Replaced" && n.Change == "Replaced":
		return "; without the edit by one of the current template"
	case p == "Replaced":
		return "; without the edit " + n.Pod + " is replaced by a pod of the current template"
	case p == "Loses":
		return "; without the edit it loses " + n.Pod
	case p == "Outdated":
		return "; without the edit " + n.Pod + " stays outdated"
	case p == "NotYetReplaced":
		return "; without the edit it is not yet replaced when the simulation stops"
	}
	return ""
}

// pendingReason is the REASON column of a node the cluster changes
// without the edit: the decision and the template are the cluster's.
func pendingReason(n schema.DiffNode) string {
	c, why := n.Pending.Change, n.Pending.Why
	switch {
	case c == "Gains":
		return message(n.Before)
	case c == "Loses" && why == "Outdated":
		cause, _, _ := strings.Cut(message(n.Before), ": no new pod")
		return "Outdated: the rolling update deletes " + n.Pod + " and the node takes no new pod (" + cause + ")"
	case c == "Loses" && why != "":
		return why + ": " + message(n.Before)
	case c == "Loses":
		return message(n.Before)
	case c == "Replaced":
		return n.Pod + " replaced by a pod of the current template"
	case c == "Outdated":
		return n.Pod + " keeps an old template until it is deleted (OnDelete)"
	case c == "NotYetReplaced" && n.Pod != "":
		return n.Pod + " not yet replaced when the simulation stopped"
	case c == "NotYetReplaced":
		return "not yet replaced when the simulation stopped"
	}
	return ""
}

// countsLine renders counts: the first five always, the others when some
// node has them.
func countsLine(ct schema.DiffCounts) string {
	s := fmt.Sprintf("%d unchanged, %d gain a pod, %d lose theirs, %d replaced, %d outdated",
		ct.Unchanged, ct.Gains, ct.Loses, ct.Replaced, ct.Outdated)
	if ct.NotYetReplaced > 0 {
		s += fmt.Sprintf(", %d not yet replaced", ct.NotYetReplaced)
	}
	if ct.Keeps > 0 {
		s += fmt.Sprintf(", %d keep their pod", ct.Keeps)
	}
	if ct.DecisionChanged > 0 {
		s += fmt.Sprintf(", %d with another decision", ct.DecisionChanged)
	}
	return s
}

// writeDiffTable renders the diff for people: the nodes the edit changes
// and their counts; the nodes the cluster changes anyway, without the
// edit, and theirs; then the rollout's steps with the edit.
func writeDiffTable(w io.Writer, doc schema.Diff) error {
	t := newTable(w, 3)
	changed := 0
	for _, n := range doc.Nodes {
		if n.Change != "Unchanged" {
			changed++
		}
	}
	if changed > 0 {
		t.row("CHANGE", "NODE", "REASON")
		for _, n := range doc.Nodes {
			if n.Change != "Unchanged" {
				t.row(n.Change, n.Name, diffReason(n))
			}
		}
		t.blank()
	}
	t.line(fmt.Sprintf("%d nodes, the edit: %s", len(doc.Nodes), countsLine(doc.Counts)))
	writeNewPods(t, doc)
	p := doc.Pending
	if p.Counts.Unchanged == len(doc.Nodes) {
		t.line("without the edit: nothing pending")
	} else {
		t.blank()
		t.row("PENDING", "NODE", "WITHOUT THE EDIT (what the cluster does anyway)")
		for _, n := range doc.Nodes {
			if n.Pending.Change != "Unchanged" {
				t.row(n.Pending.Change, n.Name, pendingReason(n))
			}
		}
		t.blank()
		rollout := fmt.Sprintf("%s in %s, %s simulated", plural(p.Steps, "step"), plural(p.Syncs, "sync"), p.Duration)
		if !p.Done {
			rollout = "not finished after " + rollout
		}
		t.line(fmt.Sprintf("without the edit: %s; %s", countsLine(p.Counts), rollout))
	}
	b := doc.Budgets
	budgets := fmt.Sprintf("maxUnavailable %d, maxSurge %d", b.MaxUnavailable, b.MaxSurge)
	if b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		budgets = "OnDelete: no rolling-update budgets" // a rolling update always has one
	}
	if doc.Done {
		t.line(fmt.Sprintf("rollout with the edit: %s in %s, %s simulated (new pods Ready after %s, deleted pods gone after %s); %d desired, %s",
			plural(doc.Steps, "step"), plural(doc.Syncs, "sync"), doc.Duration, doc.ReadyAfter, doc.GracePeriod, b.Desired, budgets))
	} else {
		// No prediction for a rollout the simulation did not finish.
		t.line(fmt.Sprintf("rollout with the edit: not finished after %s in %s (%s simulated); %d desired, %s",
			plural(doc.Steps, "step"), plural(doc.Syncs, "sync"), doc.Duration, b.Desired, budgets))
	}
	switch {
	case !doc.Settled && doc.Unsettled != "":
		t.line("does not settle: " + printable(doc.Unsettled))
	case !doc.Settled:
		t.line(fmt.Sprintf("does not settle within %d syncs", doc.Syncs))
	case !doc.Done:
		t.line("settles, but kubectl rollout status would not report it done")
	default:
		t.line("settles: kubectl rollout status would report it done")
	}
	return t.flush()
}

// plural renders "1 step", "2 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeNewPods renders what the scheduler does with the new pods of the
// edit: the nodes where one does not fit (it stays pending, or preempts),
// then a line with the pod's requests and priority and how many of the
// nodes that get it it fits. Nothing when nothing is known of any.
func writeNewPods(t *table, doc schema.Diff) {
	var first *schema.NewPod
	judged, misfit := 0, 0
	for _, n := range doc.Nodes {
		p := n.NewPod
		if p == nil {
			continue
		}
		if first == nil {
			first = p
		}
		if p.Scheduling != nil || len(p.Refused) > 0 {
			judged++
			if p.Scheduling == nil || p.Scheduling.Outcome != "Fits" {
				misfit++
			}
		}
	}
	if first == nil {
		return
	}
	if misfit > 0 {
		t.blank()
		t.row("NEW POD", "NODE", "SCHEDULER")
		for _, n := range doc.Nodes {
			p := n.NewPod
			if p == nil || (p.Scheduling == nil && len(p.Refused) == 0) || (p.Scheduling != nil && p.Scheduling.Outcome == "Fits") {
				continue
			}
			outcome := "NotCreated"
			if p.Scheduling != nil {
				outcome = p.Scheduling.Outcome
			}
			t.row(outcome, n.Name, newPodScheduler(p))
		}
		t.blank()
	}
	what := fmt.Sprintf("the new pod (requests %s, priority %s)", listString(first.Requests), priorityString(first))
	switch {
	case judged == 0:
		t.line(what + ": no node it goes to lists status.allocatable, fit not judged")
	case misfit == 0:
		t.line(fmt.Sprintf("%s: fits on each of the %s that get it", what, plural(judged, "node")))
	default:
		t.line(fmt.Sprintf("%s: does not fit on %d of the %s that get it", what, misfit, plural(judged, "node")))
	}
}
