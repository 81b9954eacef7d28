package plantest_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/sim"
)

// A plan checked, then broken the way a buggy planner would break it:
// deleting a second available old pod, beyond maxUnavailable 1, and a pod
// of another controller, appended out of order and left in Keep.
// daemonplan.CheckPlan's rules report the order, the foreign pod and the
// pod both kept and deleted; plantest's own recount, the budget.
func Example() {
	in := midUpdate(3, 1, 0, true)
	plan, err := daemonplan.Sync(in, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(plantest.Describe(plan))
	fmt.Println("violations:", plantest.CheckSync(in, plan))

	plan.Delete = append(plan.Delete,
		placement.Delete{Pod: "old-node-2", Node: "node-2", Reason: placement.Outdated},
		placement.Delete{Pod: "foreign", Node: "node-0", Reason: placement.Duplicate})
	err = plantest.CheckSync(in, plan)
	fmt.Println(err)
	fmt.Println("budget broken:", plantest.Violated(err, plantest.MaxUnavailable))
	// Output:
	// hash "6dcd6d447f": -old-node-0(node-0,Outdated)
	// violations: <nil>
	// Sorted: Delete is not sorted without repeats: "old-node-2" before "foreign"
	// Ownership: deletes pod foreign, which the DaemonSet does not claim
	// Ownership: keeps and deletes pod old-node-2
	// MaxUnavailable: 2 available old pods deleted [old-node-0 old-node-2]; maxUnavailable 1 with 0 of 3 visited nodes unavailable allows 1
	// budget broken: true
}

// Snapshots inside a property: here drawn once from a fixed seed, to show
// the shape of what a property sees.
func ExampleSnapshots() {
	c := plantest.Snapshots(plantest.Options{MaxNodes: 3, Rollout: true}).Example(1)
	fmt.Println("daemonset:", c.DaemonSet.Namespace+"/"+c.DaemonSet.Name)
	fmt.Println("at most 3 nodes:", len(c.Nodes) <= 3)
	fmt.Println("now:", c.Now.Format(time.RFC3339))
	fmt.Println("hash is the current revision's:", c.Hash == plantest.CurrentHash(c.DaemonSet))
	// Output:
	// daemonset: ns/ds
	// at most 3 nodes: true
	// now: 2025-06-01T12:00:00Z
	// hash is the current revision's: true
}

// CheckPermutation catches a planner whose output follows the input order:
// this one names node decisions by their position in the input.
func ExampleCheckPermutation() {
	in := midUpdate(2, 1, 0, false)
	reversed := in
	reversed.Nodes = slices.Clone(in.Nodes)
	slices.Reverse(reversed.Nodes)
	inputOrder := func(in daemonplan.Input) (daemonplan.Plan, error) {
		p, err := daemonplan.Sync(in, daemonplan.Options{})
		for i := range p.Nodes {
			p.Nodes[i].Node = in.Nodes[i].Name
		}
		return p, err
	}
	fmt.Println("Sync:", plantest.CheckPermutation(sync, in, reversed))
	err := plantest.CheckPermutation(inputOrder, in, reversed)
	fmt.Println("input order:", plantest.Violated(err, plantest.Determinism))
	// Output:
	// Sync: <nil>
	// input order: true
}

// printer is a TB for examples: it prints what a test would fail with.
type printer struct{}

func (printer) Helper()                           {}
func (printer) Fatalf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }

// Rollout drives a simulated cluster through an image update and checks
// every sync; Sync checks one.
func ExampleRollout() {
	ds := api.DaemonSet{Namespace: "default", Name: "agent", UID: "uid-agent",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(1), MaxSurge: api.Int(0)}}}
	tmpl := func(image string) sim.Template {
		return sim.Template{Image: image, PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "agent"}}}
	}
	nodes := []api.Node{{Name: "node-a"}, {Name: "node-b"}, {Name: "node-c"}}
	c := sim.New(ds, tmpl("v1"), nodes, plantest.Epoch)
	first := plantest.Sync(printer{}, c)
	fmt.Println("first sync:", plantest.Describe(first.Plan))
	fmt.Println("syncs to roll v1 out:", len(plantest.Rollout(printer{}, c, plantest.RolloutOptions{})))
	c.Update(tmpl("v2"), "")
	steps := plantest.Rollout(printer{}, c, plantest.RolloutOptions{})
	fmt.Println("syncs to roll v2 out:", len(steps))
	fmt.Println("last:", steps[len(steps)-1].Plan.Rollout.Message)
	// Output:
	// first sync: hash "7bf8587569": +node-a +node-b +node-c
	// syncs to roll v1 out: 2
	// syncs to roll v2 out: 7
	// last: daemon set "agent" successfully rolled out
}

// CheckConverged tells a settled cluster from one still rolling.
func ExampleCheckConverged() {
	in := midUpdate(2, 1, 0, false)
	plan := mustSync(in)
	fmt.Println(plantest.CheckConverged(in, plan))
	// Output:
	// Converged: node node-0: pod old-node-0 is of revision "558b45b64b", want "6dcd6d447f"
	// Converged: node node-1: pod old-node-1 is of revision "558b45b64b", want "6dcd6d447f"
}

// CheckPodsPerNode sees a duplicate the plan leaves on its node.
func ExampleCheckPodsPerNode() {
	in := midUpdate(1, 1, 0, false)
	twin := in.Pods[0]
	twin.Name, twin.Created = "twin", twin.Created.Add(time.Second)
	in.Pods = append(in.Pods, twin)
	plan := mustSync(in)
	fmt.Println(plantest.Describe(plan))
	plan.Delete = nil
	fmt.Println(plantest.CheckPodsPerNode(in, plan))
	// Output:
	// hash "6dcd6d447f": -twin(node-0,Duplicate)
	// PodsPerNode: node node-0 holds 2 running pods [old-node-0 twin]
}

// CheckBudgets counts what a surge step creates beside available old
// pods.
func ExampleCheckBudgets() {
	in := midUpdate(3, 0, 1, false)
	plan := mustSync(in)
	fmt.Println(plantest.Describe(plan))
	plan.Create = append(plan.Create, placement.Create{Node: "node-2"})
	fmt.Println(plantest.CheckBudgets(in, plan))
	// Output:
	// hash "6dcd6d447f": +node-0
	// MaxSurge: 2 new pods beside available old ones on [node-0 node-2]; maxSurge 1 with 0 nodes surging allows 1
}

// CheckStatus recounts the status from the snapshot.
func ExampleCheckStatus() {
	in := midUpdate(2, 1, 0, false)
	plan := mustSync(in)
	plan.Status.UpdatedNumberScheduled = 2
	fmt.Println(plantest.CheckStatus(in, plan))
	// Output:
	// StatusRecount: status {desired 2 current 2 ready 2 available 2 updated 2 unavailable 0 misscheduled 0 observedGeneration 2}, recount {desired 2 current 2 ready 2 available 2 updated 0 unavailable 0 misscheduled 0 observedGeneration 2}
}

// CheckStop: a failed sync cleans up no history.
func ExampleCheckStop() {
	in := midUpdate(2, 1, 0, false)
	plan := mustSync(in)
	plan.Errors = []error{fmt.Errorf("unable to create pods")}
	plan.Revisions.Delete = []string{in.Revisions[0].Name}
	fmt.Println(plantest.CheckStop(in, plan))
	// Output:
	// Stop: a sync that failed or waits on expectations cleans up old revision ds-558b45b64b
}

// CheckSteps checks a sequence of syncs, here the steps of a rollout, and
// names the step that broke.
func ExampleCheckSteps() {
	ds := api.DaemonSet{Namespace: "ns", Name: "ds", UID: "ds-uid",
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}}}
	c := sim.New(ds, sim.Template{Image: "v1", PodTemplate: api.PodTemplate{Labels: map[string]string{"app": "ds"}}},
		[]api.Node{{Name: "node-0"}, {Name: "node-1"}}, plantest.Epoch)
	steps := plantest.Rollout(printer{}, c, plantest.RolloutOptions{})
	fmt.Println(len(steps), "steps:", plantest.CheckSteps(steps))
	steps[1].Plan.Status.NumberReady = 0
	fmt.Println(plantest.CheckSteps(steps))
	// Output:
	// 2 steps: <nil>
	// StatusRecount: step 1: status {desired 2 current 2 ready 0 available 2 updated 2 unavailable 0 misscheduled 0 observedGeneration 1}, recount {desired 2 current 2 ready 2 available 2 updated 2 unavailable 0 misscheduled 0 observedGeneration 1}
}

// The part generators, drawn here from fixed seeds: a DaemonSet, its
// revisions, a node and a pod. Without Orphans every revision is the
// DaemonSet's, and the pod is its own and on the node given.
func ExampleRevisions() {
	opts := plantest.Options{Rollout: true}
	ds := plantest.DaemonSet(opts).Example(3)
	revisions := plantest.Revisions(opts, ds).Example(3)
	owned := true
	for _, r := range revisions {
		owned = owned && r.Namespace == ds.Namespace && r.Controller.UID == ds.UID
	}
	node := plantest.Node(opts, 4).Example(3)
	pod := plantest.Pod(opts, ds, 7, []string{node.Name}, []string{plantest.CurrentHash(ds)}).Example(3)
	target, _ := api.TargetNodeName(&pod)
	fmt.Println("daemonset:", ds.Namespace+"/"+ds.Name, ds.UID)
	fmt.Println("revisions owned by it:", owned, "at most 4:", len(revisions) <= 4)
	fmt.Println("node:", node.Name)
	fmt.Println("pod:", pod.Name, "owner", pod.Controller.UID, "on", target)
	// Output:
	// daemonset: ns/ds ds-uid
	// revisions owned by it: true at most 4: true
	// node: node-4
	// pod: pod-07 owner ds-uid on node-4
}

// Permutation reorders an input: same objects, another order.
func ExamplePermutation() {
	in := midUpdate(4, 1, 0, false)
	permuted := plantest.Permutation(in).Example(1)
	var names []string
	for _, n := range permuted.Nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	fmt.Println(names)
	// Output:
	// [node-0 node-1 node-2 node-3]
}

// A property over the progressive extensions draws them from Progressive;
// every combination it draws passes the options' own validation.
func ExampleProgressive() {
	valid := 0
	for seed := range 20 {
		if p := plantest.Progressive().Example(seed); len(p.Validate()) == 0 {
			valid++
		}
	}
	fmt.Println(valid, "of 20 valid")
	// Output: 20 of 20 valid
}
