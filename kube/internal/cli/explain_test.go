package cli

import (
	"strings"
	"testing"
)

// defectCluster is a DaemonSet without tolerations and four nodes: node-ok
// plain, node-cordoned cordoned (its unschedulable:NoSchedule taint),
// node-unreachable as the node lifecycle controller leaves an unreachable
// node (unreachable:NoSchedule and unreachable:NoExecute), node-notready
// likewise NotReady (not-ready:NoSchedule and not-ready:NoExecute), and node-batch
// tainted dedicated=batch:NoSchedule.
const defectCluster = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default, uid: u-agent, generation: 1}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Node
metadata: {name: node-ok}
---
apiVersion: v1
kind: Node
metadata: {name: node-cordoned}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: node-unreachable}
spec:
  taints:
  - {key: node.kubernetes.io/unreachable, effect: NoSchedule}
  - {key: node.kubernetes.io/unreachable, effect: NoExecute}
---
apiVersion: v1
kind: Node
metadata: {name: node-notready}
spec:
  taints:
  - {key: node.kubernetes.io/not-ready, effect: NoSchedule}
  - {key: node.kubernetes.io/not-ready, effect: NoExecute}
---
apiVersion: v1
kind: Node
metadata: {name: node-batch}
spec:
  taints: [{key: dedicated, value: batch, effect: NoSchedule}]
`

// TestExplainDefects reproduces the reported defects of explain and of
// plan -o wide: each case lists what the output must say and what it must
// not.
func TestExplainDefects(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		want, not    []string
	}{{
		name:   "unreachable node: no taint removal",
		reason: "node.kubernetes.io/unreachable is the node lifecycle controller's: removing it by hand is wrong, the node must become reachable",
		args:   []string{"explain", "node-unreachable"},
		want: []string{
			"Reason:                 UntoleratedNoSchedule\n",
			"Failing:                1. taint node.kubernetes.io/unreachable:NoSchedule is not tolerated: no new pod\n",
			"the node is unreachable",
			"node.kubernetes.io/unreachable:NoExecute is tolerated by the default daemon toleration",
		},
		not: []string{"kubectl taint node node-unreachable node.kubernetes.io/unreachable-"},
	}, {
		name:   "NotReady node: no taint removal",
		reason: "node.kubernetes.io/not-ready is the node lifecycle controller's; the node keeps its pod through the default NoExecute toleration",
		args:   []string{"explain", "node-notready"},
		want: []string{
			"Failing:                1. taint node.kubernetes.io/not-ready:NoSchedule is not tolerated: no new pod\n",
			"the node is not ready",
			"node.kubernetes.io/not-ready:NoExecute is tolerated by the default daemon toleration",
		},
		not: []string{"kubectl taint node node-notready"},
	}, {
		name:   "cordoned node: the default toleration is why",
		reason: "a cordoned node runs the pod only because every daemon pod tolerates node.kubernetes.io/unschedulable:NoSchedule",
		args:   []string{"explain", "node-cordoned"},
		want: []string{
			"ShouldRun:              true\n",
			"Failing:                nothing: the node meets every placement rule, through the default daemon toleration under Tolerated\n",
			"Tolerated:              node.kubernetes.io/unschedulable:NoSchedule is tolerated by the default daemon toleration {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}",
		},
	}, {
		name:   "plain node: nothing tolerated by default",
		reason: "a node without taints owes nothing to the default tolerations",
		args:   []string{"explain", "node-ok"},
		want:   []string{"Failing:                nothing: the node meets every placement rule\n"},
		not:    []string{"Tolerated:"},
	}, {
		name:   "user taint: the removal is still suggested",
		reason: "dedicated=batch is the user's taint: removing it is a fix",
		args:   []string{"explain", "node-batch"},
		want:   []string{"kubectl taint node node-batch dedicated-"},
	}, {
		name:   "plan -o wide names the taint",
		reason: "UntoleratedNoSchedule alone does not say which taint; the row names it key=value:Effect",
		args:   []string{"plan", "-o", "wide"},
		want: []string{
			"UntoleratedNoSchedule(dedicated=batch:NoSchedule)",
			"UntoleratedNoSchedule(node.kubernetes.io/unreachable:NoSchedule)",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "-f", "-", "--now", "2026-01-01T00:00:00Z")
			got := runCLI(t, defectCluster, args...)
			if got.code != exitOK || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing (%s)", got.code, got.stderr, tt.reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stdout, w) {
					t.Errorf("output lacks %q (%s); got:\n%s", w, tt.reason, got.stdout)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got.stdout, n) {
					t.Errorf("output has %q (%s); got:\n%s", n, tt.reason, got.stdout)
				}
			}
		})
	}
}
