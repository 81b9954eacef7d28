package progressive_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// t0 is the clusters' clock at the start.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// cluster is a fake API server with a DaemonSet controller on OnDelete
// (daemonplan's own controller code: kubesync and apply, the same
// decisions as upstream's) and a kubelet that makes pods Ready
// readyDelay after their creation, unless their image is in never.
type cluster struct {
	t          tb
	fc         *fakeclient.Clientset
	readyDelay time.Duration
	never      map[string]bool
	// deleted lists every pod delete the API server accepted, by pod
	// name, in order; deletes are the writes of the driver only (the
	// controller under OnDelete deletes nothing in these tests).
	deleted []string
	// deletedOn are the nodes of deleted, in the same order.
	deletedOn []string
	// otherPods are pods the DaemonSet does not own, which nobody may
	// touch.
	otherPods []string
}

const ns, dsName = "default", "agent"

// tb is what the harness needs of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// newCluster builds nodes named node-0.. with the zones given (one per
// node; "" for none), the DaemonSet agent on OnDelete with image v1, and
// runs the controller until every node has a ready v1 pod.
func newCluster(t tb, zones []string, extra string) *cluster {
	t.Helper()
	var b strings.Builder
	b.WriteString(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1, resourceVersion: "1"}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: OnDelete}
`)
	for i, z := range zones {
		labels := ""
		if z != "" {
			labels = fmt.Sprintf(", labels: {topology.kubernetes.io/zone: %s}", z)
		}
		fmt.Fprintf(&b, "- {apiVersion: v1, kind: Node, metadata: {name: node-%d%s}}\n", i, labels)
	}
	b.WriteString(extra)
	s, err := load.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, fc: fakeclient.New(s, t0), readyDelay: 2 * time.Second, never: map[string]bool{}}
	for _, p := range s.Pods {
		c.otherPods = append(c.otherPods, p.Name)
	}
	c.fc.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: "37"}
	for range 10 {
		c.tick()
	}
	if n := c.unavailable(); n != 0 {
		t.Fatalf("the cluster did not settle: %d nodes unavailable", n)
	}
	return c
}

// ctx is the tests' context.
var ctx = context.Background()

// controller runs one sync of the DaemonSet controller (OnDelete: it
// creates pods on nodes without one and writes the status).
func (c *cluster) controller() {
	c.t.Helper()
	s, err := c.fc.Snapshot(ctx, ns, dsName)
	if err != nil {
		c.t.Fatal(err)
	}
	p, err := kubesync.Sync(s, c.fc.Now(), kubesync.State{}, kubesync.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := apply.Apply(ctx, c.fc, s, p).Err(); err != nil {
		c.t.Fatal(err)
	}
}

// kubelet binds pods to the node their affinity names and makes them
// Ready readyDelay after their creation, unless their image is in never.
func (c *cluster) kubelet() {
	c.t.Helper()
	pods, err := c.fc.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	now := c.fc.Now()
	for i := range pods.Items {
		p := &pods.Items[i]
		if ready(p) || c.never[p.Spec.Containers[0].Image] || now.Sub(p.CreationTimestamp.Time) < c.readyDelay {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}}
		if _, err := c.fc.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			c.t.Fatal(err)
		}
	}
}

// tick is one second of the cluster: the controller, the kubelet, the
// clock.
func (c *cluster) tick() {
	c.controller()
	c.kubelet()
	c.fc.Advance(time.Second)
}

func ready(p *corev1.Pod) bool {
	for _, cd := range p.Status.Conditions {
		if cd.Type == corev1.PodReady {
			return cd.Status == corev1.ConditionTrue
		}
	}
	return false
}

// pods lists the pods by node: the DaemonSet's, live.
func (c *cluster) podsByNode() map[string][]corev1.Pod {
	c.t.Helper()
	pods, err := c.fc.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[string][]corev1.Pod{}
	for _, p := range pods.Items {
		if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].UID != "ds-uid" {
			continue
		}
		node := p.Spec.NodeName
		if node == "" {
			node = p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
		}
		out[node] = append(out[node], p)
	}
	return out
}

// unavailable counts the nodes without a Ready pod of the DaemonSet.
func (c *cluster) unavailable() int {
	c.t.Helper()
	nodes, err := c.fc.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	byNode := c.podsByNode()
	n := 0
	for _, node := range nodes.Items {
		if !slices.ContainsFunc(byNode[node.Name], func(p corev1.Pod) bool { return ready(&p) && p.DeletionTimestamp == nil }) {
			n++
		}
	}
	return n
}

// images returns each node's pod images, "node-0=agent:v2", sorted.
func (c *cluster) images() []string {
	var out []string
	for node, pods := range c.podsByNode() {
		for _, p := range pods {
			out = append(out, node+"="+p.Spec.Containers[0].Image)
		}
	}
	slices.Sort(out)
	return out
}

// setImage changes the DaemonSet's template.
func (c *cluster) setImage(image string) {
	c.t.Helper()
	ds, err := c.fc.AppsV1().DaemonSets(ns).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	ds = ds.DeepCopy()
	ds.Spec.Template.Spec.Containers[0].Image = image
	ds.Generation++
	if _, err := c.fc.AppsV1().DaemonSets(ns).Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

// daemonSet reads the DaemonSet.
func (c *cluster) daemonSet() *appsv1.DaemonSet {
	c.t.Helper()
	ds, err := c.fc.AppsV1().DaemonSets(ns).Get(ctx, dsName, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return ds
}

// step runs one driver step at the cluster's clock, records the deletes
// it issued, and fails the test on an error other than a Conflict.
func (c *cluster) step() progressive.StepResult {
	c.t.Helper()
	res, err := progressive.Step(ctx, c.fc, ns, dsName, c.fc.Now())
	if err != nil {
		c.t.Fatalf("Step: %v", err)
	}
	for _, d := range res.Deletes {
		if d.Err != nil {
			c.t.Errorf("delete %s: %v", d.Pod, d.Err)
			continue
		}
		c.deleted = append(c.deleted, d.Pod)
		c.deletedOn = append(c.deletedOn, d.Node)
	}
	return res
}

// podDeletes counts the pod deletes the fake API server received.
func (c *cluster) podDeletes() int {
	n := 0
	for _, a := range c.fc.Actions() {
		if a.GetVerb() == "delete" && a.GetResource().Resource == "pods" {
			n++
		}
	}
	return n
}

// checkOthers fails the test if a pod the DaemonSet does not own was
// written.
func (c *cluster) checkOthers() {
	c.t.Helper()
	for _, a := range c.fc.Writes() {
		var name string
		switch w := a.(type) {
		case k8stesting.DeleteAction:
			name = w.GetName()
		case k8stesting.PatchAction:
			name = w.GetName()
		default:
			continue
		}
		if a.GetResource().Resource == "pods" && slices.Contains(c.otherPods, name) {
			c.t.Errorf("pod %s of another owner was written: %s", name, a.GetVerb())
		}
	}
}

// setUnready makes the DaemonSet's pod on node not Ready.
func (c *cluster) setUnready(node string) {
	c.t.Helper()
	for _, p := range c.podsByNode()[node] {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(c.fc.Now())}}
		c.never[p.Spec.Containers[0].Image] = true
		if _, err := c.fc.CoreV1().Pods(ns).UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err != nil {
			c.t.Fatal(err)
		}
		delete(c.never, p.Spec.Containers[0].Image)
	}
}
