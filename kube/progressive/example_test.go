package progressive_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// exampleCluster is a DaemonSet on OnDelete whose template moved to v2
// while its three pods, ready, still run v1 (revision hash "v1hash").
var exampleCluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 2}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v2}]}
    updateStrategy: {type: OnDelete}
  status: {observedGeneration: 2}
- {apiVersion: v1, kind: Node, metadata: {name: node-a}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b}}
- {apiVersion: v1, kind: Node, metadata: {name: node-c}}
` + examplePod + strings.ReplaceAll(examplePod, "node-a", "node-b") + strings.ReplaceAll(examplePod, "node-a", "node-c")

const examplePod = `- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-node-a
    namespace: default
    uid: uid-node-a
    labels: {app: agent, controller-revision-hash: v1hash}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-uid, controller: true}]
  spec: {nodeName: node-a, containers: [{name: agent, image: agent:v1}]}
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
`

// The first step of a rollout with a canary of one node: it records the
// delete of one outdated pod in the annotation, then deletes it; the
// DaemonSet controller (not running here) would create its replacement.
func ExampleStep() {
	ctx := context.Background()
	s, err := load.Read(strings.NewReader(exampleCluster))
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	client := fakeclient.New(s, now)
	client.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "37"}

	one := intstr.FromInt32(1)
	if _, err := progressive.Start(ctx, client, "default", "agent", progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: &one}}); err != nil {
		panic(err)
	}
	res, err := progressive.Step(ctx, client, "default", "agent", now)
	if err != nil {
		panic(err)
	}
	fmt.Println("phase:", res.Rollout.Status.Phase, "in flight:", len(res.Rollout.Status.InFlight))
	for _, d := range res.Deletes {
		fmt.Println("deleted", d.Pod, "on", d.Node, d.Err)
	}
	for _, n := range res.Nodes {
		fmt.Println(n.Name, n.State)
	}
	// Output:
	// phase: Canary in flight: 1
	// deleted agent-node-a on node-a <nil>
	// node-a Deleting
	// node-b Outdated
	// node-c Outdated
}
