// Command rollout is daemonplan's demo: it runs the DaemonSet controller's
// decisions against two simulated clusters and prints what
// `kubectl rollout status` would print while pods roll.
//
//	go run ./examples/rollout
//
// The first cluster is the fluentd-elasticsearch DaemonSet of the
// Kubernetes documentation, tolerating the control-plane taint, on three
// nodes. The second has three dozen nodes with mixed labels and taints; it
// rolls an image update with maxUnavailable, another with maxSurge, rolls
// back with --to-revision and prints the rollout history. Then it turns on
// daemonplan's progressive delivery (docs/progressive-delivery.md): a
// canary of three nodes, one per zone, that waits for a verdict, then a
// zone-by-zone rollout; and a canary that crashes, fails by itself and is
// rolled back.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
)

var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// out is where the demo prints (a test reads it).
var out io.Writer = os.Stdout

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rollout:", err)
		os.Exit(1)
	}
}

func run() error {
	fmt.Fprintln(out, "# Cluster 1: fluentd-elasticsearch on a control plane and two workers")
	c1 := sim.New(fluentd(), fluentdTemplate("quay.io/fluentd_elasticsearch/fluentd:v5.0.1"), threeNodes(), start)
	explain(c1)
	if err := rollOut(c1, 20); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n# Cluster 2: node-agent on 36 nodes with mixed labels and taints")
	c2 := sim.New(nodeAgent(), agentTemplate("registry.example.com/agent:v1.0"), manyNodes(36), start)
	leftOut(c2)
	if err := rollOut(c2, 40); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n$ kubectl set image ds/node-agent agent=registry.example.com/agent:v1.1   # maxUnavailable: 3")
	c2.Update(agentTemplate("registry.example.com/agent:v1.1"), "image v1.1, maxUnavailable 3")
	if err := rollOut(c2, 60); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n$ kubectl patch ds/node-agent ... maxSurge: 25%, maxUnavailable: 0 && kubectl set image ... agent:v1.2")
	c2.SetStrategy(api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(0), MaxSurge: api.Percent("25%")}})
	c2.Update(agentTemplate("registry.example.com/agent:v1.2"), "image v1.2, maxSurge 25%")
	if err := rollOut(c2, 60); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n$ kubectl rollout undo ds/node-agent --to-revision=1")
	res, err := c2.Rollback(1)
	if err != nil {
		return err
	}
	if res.Outcome == revision.RolledBack {
		fmt.Fprintln(out, "daemonset.apps/node-agent rolled back")
	} else {
		fmt.Fprintln(out, res.Message)
	}
	if err := rollOut(c2, 60); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n$ kubectl rollout history ds/node-agent")
	table, err := revision.HistoryTable(&c2.DaemonSet, c2.Revisions)
	if err != nil {
		return err
	}
	fmt.Fprint(out, table)
	// kubectl's history omits revision 1 without a word: the rollback
	// gave its template the next number instead of a copy.
	newest := int64(0)
	for _, r := range c2.Revisions {
		newest = max(newest, r.Revision)
	}
	fmt.Fprintf(out, "(revision 1 is not listed: rolling back to it made its template revision %d, as kubectl rollout undo does)\n", newest)

	fmt.Fprintln(out, "\n# Progressive delivery: a canary of 3 nodes, one per zone, then zone by zone")
	verdicts := map[string]rollout.Verdict{}
	restarts := map[string]int32{}
	c2.Options.Progressive = rollout.Progressive{
		Canary: &rollout.Canary{Nodes: api.Int(3), SpreadKeys: []string{rollout.LabelZone}, Verdicts: verdicts,
			AutoFail: &rollout.AutoFail{MaxRestarts: 2}, Restarts: restarts},
		Zones: &rollout.Zones{},
	}
	fmt.Fprintln(out, "$ kubectl set image ds/node-agent agent=registry.example.com/agent:v1.3   # maxSurge 25% of each zone")
	c2.Update(agentTemplate("registry.example.com/agent:v1.3"), "image v1.3, canary then zones")
	if err := rollOutProgressive(c2, verdicts, 80); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n$ kubectl set image ds/node-agent agent=registry.example.com/agent:v1.4   # v1.4 crash-loops")
	c2.FateOf = func(_ string, p *api.Pod) sim.Fate {
		if p.Labels[api.LabelTemplateGeneration] == c2.DaemonSet.Annotations[api.AnnotationTemplateGeneration] {
			restarts[p.Name] = 3 // what the caller observes of the new pods
		}
		return sim.BecomeReady
	}
	c2.Update(agentTemplate("registry.example.com/agent:v1.4"), "image v1.4")
	if err := rollOutProgressive(c2, verdicts, 80); err != nil {
		return err
	}
	c2.FateOf = nil
	return nil
}

// rollOutProgressive is rollOut with progressive delivery: it prints what
// the extensions decided when it changes, promotes a canary that waits
// for a verdict, and rolls back a canary that failed.
func rollOutProgressive(c *sim.Cluster, verdicts map[string]rollout.Verdict, maxSyncs int) error {
	lastStatus, lastNote := "", ""
	for i := 0; i < maxSyncs; i++ {
		plan, err := c.Sync()
		if err != nil {
			return err
		}
		for _, e := range plan.Errors {
			fmt.Fprintf(out, "  sync error: %v\n", e)
		}
		if note := progressNote(plan.Progress); note != lastNote && note != "" {
			fmt.Fprintln(out, "  ", note)
			lastNote = note
		}
		if len(plan.Create)+len(plan.Delete) > 0 {
			fmt.Fprintf(out, "  t=%-5s sync: create %d, delete %d  (%s) on %s\n", c.Now.Sub(start), len(plan.Create), len(plan.Delete),
				summary(plan.Delete), nodesOf(plan))
		}
		if msg := strings.TrimSuffix(plan.Rollout.Message, "\n"); msg != lastStatus {
			fmt.Fprintln(out, msg)
			lastStatus = msg
		}
		switch cp := plan.Progress.Canary; {
		case plan.Progress.Held == rollout.CanaryWaiting:
			fmt.Fprintf(out, "$ # canaries %v look healthy: promote revision %s\n", cp.Nodes, plan.Hash)
			verdicts[plan.Hash] = rollout.Promote
		case cp != nil && cp.Phase == rollout.PhaseAborted && cp.RollbackTo > 0:
			fmt.Fprintf(out, "$ # canary failed (%s)\n$ kubectl rollout undo ds/%s --to-revision=%d\n", cp.Reason, c.DaemonSet.Name, cp.RollbackTo)
			verdicts[plan.Hash] = rollout.Abort
			verdicts[cp.RollbackHash] = rollout.Promote
			if _, err := c.Rollback(cp.RollbackTo); err != nil {
				return err
			}
		case plan.Rollout.Done && len(plan.Create)+len(plan.Delete) == 0 && plan.Progress.Held == rollout.NotHeld:
			return nil
		}
		c.Advance(5 * time.Second)
	}
	return fmt.Errorf("rollout of %s did not finish in %d syncs", c.DaemonSet.Name, maxSyncs)
}

// progressNote renders the canary and the zone order.
func progressNote(p rollout.Progress) string {
	var parts []string
	if c := p.Canary; c != nil && c.Phase != rollout.PhasePromoted {
		parts = append(parts, fmt.Sprintf("canary %s on %v", c.Phase, c.Nodes))
	}
	if z := p.Zones; z != nil && len(z.Active) > 0 {
		parts = append(parts, fmt.Sprintf("zones updating %v, waiting %v", z.Active, z.Waiting))
	}
	return strings.Join(parts, "; ")
}

// nodesOf lists the nodes a plan writes to.
func nodesOf(p daemonplan.Plan) string {
	seen := map[string]bool{}
	var nodes []string
	for _, c := range p.Create {
		if !seen[c.Node] {
			seen[c.Node] = true
			nodes = append(nodes, c.Node)
		}
	}
	for _, d := range p.Delete {
		if !seen[d.Node] {
			seen[d.Node] = true
			nodes = append(nodes, d.Node)
		}
	}
	slices.Sort(nodes)
	return strings.Join(nodes, " ")
}

// rollOut syncs and advances the clock until the rollout is done, printing
// each new rollout status line and what each sync did.
func rollOut(c *sim.Cluster, maxSyncs int) error {
	last := ""
	for i := 0; i < maxSyncs; i++ {
		plan, err := c.Sync()
		if err != nil {
			return err
		}
		for _, e := range plan.Errors {
			fmt.Fprintf(out, "  sync error: %v\n", e)
		}
		if len(plan.Create)+len(plan.Delete) > 0 {
			fmt.Fprintf(out, "  t=%-4s sync: create %d, delete %d  (%s)\n", c.Now.Sub(start), len(plan.Create), len(plan.Delete), summary(plan.Delete))
		}
		if msg := strings.TrimSuffix(plan.Rollout.Message, "\n"); msg != last {
			fmt.Fprintln(out, msg)
			last = msg
		}
		if plan.Rollout.Done && len(plan.Create)+len(plan.Delete) == 0 {
			return nil
		}
		c.Advance(5 * time.Second)
	}
	return fmt.Errorf("rollout of %s did not finish in %d syncs", c.DaemonSet.Name, maxSyncs)
}

func summary(ds []placement.Delete) string {
	counts := map[placement.DeleteReason]int{}
	var order []placement.DeleteReason
	for _, d := range ds {
		if counts[d.Reason] == 0 {
			order = append(order, d.Reason)
		}
		counts[d.Reason]++
	}
	var parts []string
	for _, r := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
	}
	if len(parts) == 0 {
		return "new pods"
	}
	return strings.Join(parts, ", ")
}

// leftOut says how many nodes of c should run the pod and, by reason, why
// the others should not, with the first such node's message: "create 28"
// on 36 nodes needs the 8.
func leftOut(c *sim.Cluster) {
	e := placement.NewEligibility(&c.DaemonSet, placement.Options{})
	counts := map[placement.Reason]int{}
	first := map[placement.Reason]string{}
	var order []placement.Reason
	run := 0
	for i := range c.Nodes {
		d := e.Decide(&c.Nodes[i])
		if d.ShouldRun {
			run++
			continue
		}
		if counts[d.Reason] == 0 {
			order = append(order, d.Reason)
			first[d.Reason] = c.Nodes[i].Name + ": " + d.Message()
		}
		counts[d.Reason]++
	}
	fmt.Fprintf(out, "  %d of %d nodes should run the pod; %d should not:\n", run, len(c.Nodes), len(c.Nodes)-run)
	for _, r := range order {
		fmt.Fprintf(out, "    %d %-22s e.g. %s\n", counts[r], r, first[r])
	}
}

// explain prints the decision for every node of c.
func explain(c *sim.Cluster) {
	e := placement.NewEligibility(&c.DaemonSet, placement.Options{})
	for i := range c.Nodes {
		d := e.Decide(&c.Nodes[i])
		fmt.Fprintf(out, "  %-14s %-22s %s\n", c.Nodes[i].Name, d.Reason, d.Message())
	}
}

func fluentd() api.DaemonSet {
	return api.DaemonSet{
		Namespace: "kube-system", Name: "fluentd-elasticsearch", UID: "uid-fluentd",
		Selector:             &api.LabelSelector{MatchLabels: map[string]string{"name": "fluentd-elasticsearch"}},
		UpdateStrategy:       api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(1)}},
		RevisionHistoryLimit: ptr(int32(10)),
	}
}

func fluentdTemplate(image string) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{
		Labels:        map[string]string{"name": "fluentd-elasticsearch"},
		RestartPolicy: "Always",
		Tolerations: []api.Toleration{
			{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
			{Key: "node-role.kubernetes.io/master", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		},
	}}
}

func threeNodes() []api.Node {
	return []api.Node{
		{Name: "control-plane", Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""},
			Taints: []api.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}}},
		{Name: "worker-1", Labels: map[string]string{"kubernetes.io/os": "linux"}},
		{Name: "worker-2", Labels: map[string]string{"kubernetes.io/os": "linux"}},
	}
}

func nodeAgent() api.DaemonSet {
	return api.DaemonSet{
		Namespace: "default", Name: "node-agent", UID: "uid-node-agent",
		Selector:             &api.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}},
		UpdateStrategy:       api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(3)}},
		RevisionHistoryLimit: ptr(int32(10)),
		MinReadySeconds:      5,
	}
}

func agentTemplate(image string) sim.Template {
	return sim.Template{Image: image, PodTemplate: api.PodTemplate{
		Labels:        map[string]string{"app": "node-agent"},
		RestartPolicy: "Always",
		NodeSelector:  map[string]string{"kubernetes.io/os": "linux"},
		Tolerations:   []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}},
	}}
}

// manyNodes builds n nodes: every seventh runs Windows, every fifth is
// dedicated to infra (tolerated), every eleventh is dedicated to gpu
// workloads (not tolerated), and every thirteenth is cordoned.
func manyNodes(n int) []api.Node {
	nodes := make([]api.Node, n)
	for i := range nodes {
		os := "linux"
		if i%7 == 6 {
			os = "windows"
		}
		node := api.Node{
			Name:   fmt.Sprintf("node-%03d", i),
			Labels: map[string]string{"kubernetes.io/os": os, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%c", 'a'+i%3)},
		}
		switch {
		case i%11 == 10:
			node.Taints = append(node.Taints, api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule})
		case i%5 == 4:
			node.Taints = append(node.Taints, api.Taint{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule})
		}
		if i%13 == 12 {
			node.Taints = append(node.Taints, api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule})
		}
		nodes[i] = node
	}
	return nodes
}

func ptr[T any](v T) *T { return &v }
