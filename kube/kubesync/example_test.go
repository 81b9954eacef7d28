package kubesync_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/revision"
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

func ExampleSync() {
	c, _ := load.Read(strings.NewReader(cluster))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("delete", p.Delete[0].Pod, p.Delete[0].Reason)
	// The next sync carries the backoff: the failed pod's node waits.
	next, _ := kubesync.Sync(c, now.Add(500*time.Millisecond), kubesync.State{Backoff: p.Backoff}, kubesync.Options{})
	fmt.Println("deletes", len(next.Delete), "requeue after", next.RequeueAfter)
	// With expectations pending only the status is refreshed.
	pending, _ := kubesync.Sync(c, now, kubesync.State{ExpectationsPending: true}, kubesync.Options{})
	fmt.Println("deletes", len(pending.Delete), "observedGeneration", pending.Status.ObservedGeneration)
	// Output:
	// delete agent-failed Failed
	// deletes 0 requeue after 500ms
	// deletes 0 observedGeneration 0
}

func ExampleOptions() {
	c, _ := load.Read(strings.NewReader(cluster))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The core's switches are promoted from the embedded
	// daemonplan.Options; KubernetesVersion picks the revision hash.
	opts := kubesync.Options{KubernetesVersion: upstream.V1_34}
	opts.Strict = true
	p, err := kubesync.Sync(c, now, kubesync.State{}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	latest, _ := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
	fmt.Println("1.34:", p.Revisions.Create[0].Name, "latest:", latest.Revisions.Create[0].Name)
	// The hash is upstream's: the kube layer refuses another.
	opts.Hash = revision.DefaultHash
	_, err = kubesync.Sync(c, now, kubesync.State{}, opts)
	fmt.Println(err)
	// Output:
	// 1.34: agent-684f7ddf46 latest: agent-766f7784bd
	// kubesync: Options.Hash is set: the revision hash is upstream's of Options.KubernetesVersion
}

func ExampleInput() {
	c, _ := load.Read(strings.NewReader(cluster))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in, opts, err := kubesync.Input(c, now, kubesync.State{}, kubesync.Options{})
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
	p, _ := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	doc := kubesync.JSON(p, upstream.Latest)
	b, _ := json.Marshal(doc.Backoff)
	fmt.Println(doc.Delete[0].Pod, doc.Delete[0].Reason, doc.StatusChanged, doc.RequeueAfter)
	fmt.Println(string(b))
	// Output:
	// agent-failed Failed true 0s
	// [{"daemonSetUID":"u1","observedGeneration":0,"node":"node-a","delay":"1s","lastUpdate":"2026-01-01T00:00:00Z"}]
}
