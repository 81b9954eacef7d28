package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestDuplicateRevisionDeletes: when two revisions hold the current
// template, the sync deletes the extra ones (Plan.Revisions.DeleteDuplicates)
// besides the history cleanup (Plan.Revisions.Delete). -o json merges the
// two lists; -o name and the table must list every revision it deletes too.
// extra-dupcr-42 is such a cluster, recorded from upstream: both revisions
// in its expected.json delete list must show up.
func TestDuplicateRevisionDeletes(t *testing.T) {
	c := readCase(t, "extra-dupcr-42")
	want := c.Want.Revisions.Delete
	if len(want) < 2 {
		t.Fatalf("extra-dupcr-42 expects revision deletes %v; the test needs the duplicate among them", want)
	}
	args := []string{"plan", "-f", clusterFile(c), "--now", nowFlag(c), "--kubernetes-version", "1.34"}
	names := runCLI(t, "", append(args, "-o", "name")...)
	table := runCLI(t, "", append(args, "-o", "table")...)
	for _, got := range []result{names, table} {
		if got.code != exitOK {
			t.Fatalf("exit %d: %s", got.code, got.stderr)
		}
	}
	for _, rev := range want {
		if !strings.Contains(names.stdout, "controllerrevision.apps/"+rev+"\n") {
			t.Errorf("-o name lacks the deleted revision %s; got:\n%s", rev, names.stdout)
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(rev) + `\s+delete`).MatchString(table.stdout) {
			t.Errorf("the table lacks a delete row for revision %s; got:\n%s", rev, table.stdout)
		}
	}
}

// comparisonCluster is a node tainted level=5:NoSchedule and a DaemonSet
// that tolerates it only through the Lt operator (level < 10), which
// upstream honours with the TaintTolerationComparisonOperators gate on.
const comparisonCluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default, uid: u-agent, generation: 1}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: i}]
      tolerations: [{key: level, operator: Lt, value: "10", effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
spec:
  taints: [{key: level, value: "5", effect: NoSchedule}]
`

// TestExplainComparisonGate: explain's list of failing rules judges taints
// as the decision does. With the gate on the node is eligible and nothing
// fails; with it off the taint is untolerated and is the one failing rule.
func TestExplainComparisonGate(t *testing.T) {
	tests := []struct {
		name, reason string
		gate         []string
		want         []string
	}{{
		name:   "gate on",
		reason: "Lt tolerates level=5 with value 10: no rule fails",
		gate:   []string{"--feature-gates", "TaintTolerationComparisonOperators=true"},
		want: []string{"ShouldRun:              true\n",
			"Failing:                nothing: the node meets every placement rule\n"},
	}, {
		name:   "gate off",
		reason: "Lt tolerates nothing without the gate: the taint fails",
		want: []string{"ShouldRun:              false\n",
			"Failing:                1. taint level=5:NoSchedule is not tolerated: no new pod\n"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"explain", "-f", "-", "--now", "2026-01-01T00:00:00Z", "node-1"}, tt.gate...)
			got := runCLI(t, comparisonCluster, args...)
			if got.code != exitOK {
				t.Fatalf("exit %d: %s", got.code, got.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("explain lacks %q (%s); got:\n%s", w, tt.reason, got.stdout)
				}
			}
		})
	}
}
