package planner_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

const cluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: u1, generation: 1}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: OnDelete}
- {apiVersion: v1, kind: Node, metadata: {name: node-a}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-failed
    namespace: default
    labels: {app: agent}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u1, controller: true}]
  spec: {nodeName: node-a}
  status: {phase: Failed}
`

func ExamplePlan() {
	c, _ := load.Read(strings.NewReader(cluster))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := planner.Plan(c, now, planner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("delete", p.Delete[0].Pod, p.Delete[0].Reason)
	// The next sync carries the backoff: the failed pod's node waits.
	next, _ := planner.Plan(c, now.Add(500*time.Millisecond), planner.Options{Backoff: p.Backoff})
	fmt.Println("deletes", len(next.Delete), "requeue after", next.RequeueAfter)
	// With expectations pending only the status is refreshed.
	pending, _ := planner.Plan(c, now, planner.Options{ExpectationsPending: true})
	fmt.Println("deletes", len(pending.Delete), "observedGeneration", pending.Status.ObservedGeneration)
	// Output:
	// delete agent-failed Failed
	// deletes 0 requeue after 500ms
	// deletes 0 observedGeneration 0
}

func ExampleInput() {
	c, _ := load.Read(strings.NewReader(cluster))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in, opts, err := planner.Input(c, now, planner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A controller keeps one Planner per DaemonSet: from the second sync
	// on, it allocates per write, not per node.
	pl := daemonplan.NewPlanner(opts)
	p, err := pl.Sync(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(in.Nodes), "node,", len(in.Pods), "pod; delete", p.Delete[0].Pod, p.Delete[0].Reason)
	// Output:
	// 1 node, 1 pod; delete agent-failed Failed
}

func ExampleJSON() {
	c, _ := load.Read(strings.NewReader(cluster))
	p, _ := planner.Plan(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), planner.Options{})
	doc := planner.JSON(p, upstream.Latest)
	b, _ := json.Marshal(doc.Backoff)
	fmt.Println(doc.Delete[0].Pod, doc.Delete[0].Reason, doc.StatusChanged, doc.RequeueAfter)
	fmt.Println(string(b))
	// Output:
	// agent-failed Failed true 0s
	// [{"daemonSetUID":"u1","observedGeneration":0,"node":"node-a","delay":"1s","lastUpdate":"2026-01-01T00:00:00Z"}]
}
