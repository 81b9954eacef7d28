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
		Counts: schema.DiffCounts{
			Unchanged: rep.Counts.Unchanged, Gains: rep.Counts.Gains, Loses: rep.Counts.Loses,
			Replaced: rep.Counts.Replaced, Outdated: rep.Counts.Outdated, NotYetReplaced: rep.Counts.NotYetReplaced,
		},
		Budgets:     schema.DiffBudgets{Desired: rep.Budgets.Desired, MaxUnavailable: rep.Budgets.MaxUnavailable, MaxSurge: rep.Budgets.MaxSurge},
		Steps:       rep.Steps,
		Syncs:       rep.Syncs,
		Duration:    rep.Duration.String(),
		ReadyAfter:  readyAfter.String(),
		GracePeriod: grace.String(),
		Settled:     rep.Settled,
		Done:        rep.Done,
		Unsettled:   rep.Unsettled,
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
	case n.Change == "NotYetReplaced" && n.Pod != "":
		return n.Pod + " not yet replaced when the simulation stopped"
	case n.Change == "NotYetReplaced":
		return "not yet replaced when the simulation stopped"
	}
	return ""
}

// writeDiffTable renders the diff for people: the nodes that change, then
// the counts and the rollout's steps.
func writeDiffTable(w io.Writer, doc schema.Diff) error {
	t := newTable(w, 3)
	t.row("CHANGE", "NODE", "REASON")
	for _, n := range doc.Nodes {
		if n.Change == "Unchanged" {
			continue
		}
		t.row(n.Change, n.Name, diffReason(n))
	}
	ct := doc.Counts
	t.blank()
	counts := fmt.Sprintf("%d nodes: %d unchanged, %d gain a pod, %d lose theirs, %d replaced, %d outdated",
		len(doc.Nodes), ct.Unchanged, ct.Gains, ct.Loses, ct.Replaced, ct.Outdated)
	if ct.NotYetReplaced > 0 {
		counts += fmt.Sprintf(", %d not yet replaced", ct.NotYetReplaced)
	}
	t.line(counts)
	b := doc.Budgets
	budgets := fmt.Sprintf("maxUnavailable %d, maxSurge %d", b.MaxUnavailable, b.MaxSurge)
	if b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		budgets = "OnDelete: no rolling-update budgets" // a rolling update always has one
	}
	if doc.Done {
		t.line(fmt.Sprintf("rollout: %s in %s, %s simulated (new pods Ready after %s, deleted pods gone after %s); %d desired, %s",
			plural(doc.Steps, "step"), plural(doc.Syncs, "sync"), doc.Duration, doc.ReadyAfter, doc.GracePeriod, b.Desired, budgets))
	} else {
		// No prediction for a rollout the simulation did not finish.
		t.line(fmt.Sprintf("rollout: not finished after %s in %s (%s simulated); %d desired, %s",
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
