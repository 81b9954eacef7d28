package progressive_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// newExampleClient is the fake API server of exampleCluster.
func newExampleClient(yaml string) *fakeclient.Clientset {
	s, err := load.Read(strings.NewReader(yaml))
	if err != nil {
		panic(err)
	}
	client := fakeclient.New(s, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	client.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "37"}
	return client
}

// A DaemonSet on RollingUpdate is refused, with the command that switches
// it to OnDelete.
func ExampleStart() {
	client := newExampleClient(strings.Replace(exampleCluster, "{type: OnDelete}", "{type: RollingUpdate}", 1))
	_, err := progressive.Start(context.Background(), client, "default", "agent", progressive.Policy{})
	fmt.Println(err)
	// Output:
	// daemonset default/agent has updateStrategy RollingUpdate, not OnDelete: its own controller would roll it out beside daemonplan. Switch it first:
	//   kubectl patch daemonset agent -n default --type merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'
}

// Pause stops every delete until Resume; Inspect shows what a step would
// decide, without writing.
func ExamplePause() {
	ctx := context.Background()
	client := newExampleClient(exampleCluster)
	if _, err := progressive.Start(ctx, client, "default", "agent", progressive.Policy{}); err != nil {
		panic(err)
	}
	if _, err := progressive.Pause(ctx, client, "default", "agent", "change freeze"); err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res, err := progressive.Inspect(ctx, client, "default", "agent", now)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Waiting)
	if _, err := progressive.Resume(ctx, client, "default", "agent"); err != nil {
		panic(err)
	}
	res, err = progressive.Step(ctx, client, "default", "agent", now)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(res.Deletes), "pod deleted, budget", res.InUse, "of", res.Budget)
	// Output:
	// paused by User: change freeze
	// 1 pod deleted, budget 1 of 1
}

// Abort stops the rollout for good: the template is left as it is.
func ExampleAbort() {
	ctx := context.Background()
	client := newExampleClient(exampleCluster)
	if _, err := progressive.Start(ctx, client, "default", "agent", progressive.Policy{}); err != nil {
		panic(err)
	}
	r, err := progressive.Abort(ctx, client, "default", "agent", "bad version")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status.Phase, r.Status.Reason)
	// Output:
	// Aborted bad version
}

// Parse reads the rollout from the DaemonSet's annotation.
func ExampleParse() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		progressive.Annotation: `{"policy":{"maxUnavailable":2},"status":{"phase":"Zone","zone":"b","revision":"7d9f"}}`,
	}}}
	r, err := progressive.Parse(ds)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status.Phase, r.Status.Zone, r.Status.Revision, r.Policy.MaxUnavailable.String())
	// Output:
	// Zone b 7d9f 2
}

// Before any replacement was measured, the ETA takes the time per node
// from the timeline model: the grace period (30 s without one in the
// template), 10 s to Ready, minReadySeconds.
func ExampleETA() {
	ctx := context.Background()
	client := newExampleClient(exampleCluster)
	if _, err := progressive.Start(ctx, client, "default", "agent", progressive.Policy{}); err != nil {
		panic(err)
	}
	res, err := progressive.Inspect(ctx, client, "default", "agent", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.ETA.Source, res.ETA.Remaining)
	fmt.Println(res.ETA)
	// Output:
	// Model 2m0s
	// 2m0s for 3 nodes, 1 at a time, 40s per node (nothing measured yet: the timeline model, grace period 30s + ready after 10s + minReadySeconds 0s)
}

// With SwitchStrategy, a DaemonSet on RollingUpdate is switched to
// OnDelete by the write that starts the rollout; its strategy is kept in
// the state, and written back by the step that finds the rollout done.
func ExampleDriver_StartWith() {
	ctx := context.Background()
	client := newExampleClient(strings.Replace(exampleCluster, "{type: OnDelete}", "{type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}", 1))
	dr := progressive.Driver{Client: client}
	r, err := dr.StartWith(ctx, "default", "agent", progressive.Policy{}, progressive.StartOptions{SwitchStrategy: true})
	if err != nil {
		panic(err)
	}
	ds, err := client.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("now:", ds.Spec.UpdateStrategy.Type)
	fmt.Println("restored at the end:", r.Status.Restore.Type, r.Status.Restore.RollingUpdate.MaxUnavailable)
	// Output:
	// now: OnDelete
	// restored at the end: RollingUpdate 2
}
