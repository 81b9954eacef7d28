package progressive_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/progressive"
)

func count(n int) *intstr.IntOrString {
	v := intstr.FromInt(n)
	return &v
}

// rollout steps the driver and ticks the cluster until the rollout's
// phase is done, stop returns true, or ticks run out; after every step it
// checks the budget and that every delete is in the phase's scope.
func (c *cluster) rollout(ticks, budget int, stop func(progressive.StepResult) bool) progressive.StepResult {
	c.t.Helper()
	var res progressive.StepResult
	for range ticks {
		before := res.Rollout.Status
		res = c.step()
		for _, d := range res.Deletes {
			c.checkScope(before, res.Rollout.Status, d)
		}
		if n := c.unavailable(); n > budget {
			c.t.Fatalf("%d nodes unavailable after a step, budget %d; images %v", n, budget, c.images())
		}
		if res.Rollout.Status.Phase == progressive.PhaseDone || (stop != nil && stop(res)) {
			return res
		}
		c.tick()
		if n := c.unavailable(); n > budget {
			c.t.Fatalf("%d nodes unavailable after a tick, budget %d; images %v", n, budget, c.images())
		}
	}
	c.t.Fatalf("no end after %d ticks: phase %s, waiting %q, images %v", ticks, res.Rollout.Status.Phase, res.Waiting, c.images())
	return res
}

// checkScope fails the test for a delete on a node outside the zone of
// the phase the step was in.
func (c *cluster) checkScope(_, st progressive.RolloutState, d progressive.PodDelete) {
	c.t.Helper()
	if st.Phase != progressive.PhaseZone {
		return
	}
	node, err := c.fc.CoreV1().Nodes().Get(ctx, d.Node, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	if z := node.Labels["topology.kubernetes.io/zone"]; z != st.Zone {
		c.t.Errorf("pod %s deleted on node %s of zone %q in phase zone %s", d.Pod, d.Node, z, st.Zone)
	}
}

// zoneOf names node-i's zone in the tests' layout.
var zones6 = []string{"a", "b", "c", "a", "b", "c"}

// TestCanaryPromoteZones: a canary of 2 nodes waits for promote with no
// other node touched, then the zones go in the order given (c, a, b), one
// node at a time, never more than 1 node down.
func TestCanaryPromoteZones(t *testing.T) {
	c := newCluster(t, zones6, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{
		Canary: &progressive.CanaryPolicy{Nodes: count(2)},
		Zones:  &progressive.ZonesPolicy{Order: []string{"c", "a", "b"}},
	}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	res := c.rollout(60, 1, func(r progressive.StepResult) bool { return strings.Contains(r.Waiting, "promote") })
	if got := c.deleted; len(got) != 2 {
		t.Fatalf("canary deleted %v, want 2 pods", got)
	}
	// The canary waits: more steps delete nothing.
	for range 5 {
		c.tick()
		if res = c.step(); len(res.Deletes) > 0 {
			t.Fatalf("a step deleted %v before promote", res.Deletes)
		}
	}
	canary := v2Nodes(c)
	if _, err := progressive.Promote(ctx, c.fc, ns, dsName); err != nil {
		t.Fatal(err)
	}
	c.rollout(120, 1, nil)
	if got := c.images(); slices.ContainsFunc(got, func(s string) bool { return !strings.HasSuffix(s, "agent:v2") }) || len(got) != 6 {
		t.Errorf("at the end, images %v, want v2 on the 6 nodes", got)
	}
	// The order: the canary's nodes, then zone c, a, b.
	var order []string
	for _, node := range c.deletedOn {
		if !slices.Contains(canary, node) {
			order = append(order, zones6[nodeIndex(node)])
		}
	}
	if !slices.IsSortedFunc(order, func(x, y string) int { return rank(x) - rank(y) }) {
		t.Errorf("zones updated in the order %v, want c before a before b", order)
	}
	c.checkOthers()
}

func rank(z string) int { return strings.Index("cab", z) }

func nodeIndex(node string) int { return int(node[len("node-")] - '0') }

func v2Nodes(c *cluster) []string {
	var out []string
	for node, pods := range c.podsByNode() {
		if pods[0].Spec.Containers[0].Image == "agent:v2" {
			out = append(out, node)
		}
	}
	slices.Sort(out)
	return out
}

// TestPauseAndAbortStopDeletes: after pause no step deletes; after resume
// the rollout goes on; after abort no step deletes, and the template is
// left as it is.
func TestPauseAndAbortStopDeletes(t *testing.T) {
	c := newCluster(t, []string{"", "", "", "", "", ""}, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.rollout(20, 1, func(r progressive.StepResult) bool { return len(c.deleted) == 1 })
	if _, err := progressive.Pause(ctx, c.fc, ns, dsName, ""); err != nil {
		t.Fatal(err)
	}
	n := c.podDeletes()
	for range 10 {
		c.tick()
		if res := c.step(); !strings.Contains(res.Waiting, "paused") {
			t.Errorf("paused step waits for %q", res.Waiting)
		}
	}
	if got := c.podDeletes(); got != n {
		t.Fatalf("%d pod deletes while paused", got-n)
	}
	if _, err := progressive.Resume(ctx, c.fc, ns, dsName); err != nil {
		t.Fatal(err)
	}
	c.rollout(20, 1, func(r progressive.StepResult) bool { return len(c.deleted) == 3 })
	if _, err := progressive.Abort(ctx, c.fc, ns, dsName, ""); err != nil {
		t.Fatal(err)
	}
	n = c.podDeletes()
	for range 10 {
		c.tick()
		c.step()
	}
	if got := c.podDeletes(); got != n {
		t.Fatalf("%d pod deletes after abort", got-n)
	}
	if img := c.daemonSet().Spec.Template.Spec.Containers[0].Image; img != "agent:v2" {
		t.Errorf("abort changed the template to %s", img)
	}
}

// TestConflictDeletesNothing: a Conflict on the annotation write (another
// driver moved) means no delete at all in that step.
func TestConflictDeletesNothing(t *testing.T) {
	c := newCluster(t, []string{"", "", ""}, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.tick()
	c.fc.PrependReactor("patch", "daemonsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, dsName, errors.New("the object has been modified"))
	})
	res, err := progressive.Step(ctx, c.fc, ns, dsName, c.fc.Now())
	if !errors.Is(err, progressive.ErrConflict) {
		t.Fatalf("Step error %v, want ErrConflict", err)
	}
	if len(res.Deletes) > 0 || c.podDeletes() > 0 {
		t.Errorf("deletes after a Conflict: %v, %d", res.Deletes, c.podDeletes())
	}
}

// TestKilledBetweenWriteAndDelete: a driver that recorded its deletes and
// died before issuing them leaves them in flight; the next step counts
// them as unavailable, deletes exactly them, and nothing more, although
// a pod that turned unready meanwhile would go first (strict budgets)
// were the budget free.
func TestKilledBetweenWriteAndDelete(t *testing.T) {
	c := newCluster(t, []string{"", "", "", ""}, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{MaxUnavailable: count(2), StrictBudgets: true}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.tick()
	// The "killed" driver: its deletes never reach the server.
	c.fc.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("killed")
	})
	res, err := progressive.Step(ctx, c.fc, ns, dsName, c.fc.Now())
	if err != nil {
		t.Fatal(err)
	}
	var inFlight []string
	for _, f := range res.Rollout.Status.InFlight {
		inFlight = append(inFlight, f.Pod)
	}
	if len(inFlight) != 2 {
		t.Fatalf("in flight %v, want 2 pods", inFlight)
	}
	c.fc.ReactionChain = c.fc.ReactionChain[1:]
	c.tick()
	c.setUnready("node-3")
	res = c.step()
	var deleted []string
	for _, d := range res.Deletes {
		deleted = append(deleted, d.Pod)
	}
	if diff := cmp.Diff(inFlight, deleted); diff != "" {
		t.Errorf("deletes after the restart mismatch (-in flight +deleted):\n%s", diff)
	}
	c.tick() // the kubelet makes node-3's pod Ready again
	c.rollout(40, 2, nil)
}

// TestGatePausesNeverReady: a version whose pods never turn Ready: the
// canary's pods fail the ready gate, the rollout pauses by the gate, and
// no node beyond the canary is touched.
func TestGatePausesNeverReady(t *testing.T) {
	c := newCluster(t, zones6, "")
	c.never["agent:bad"] = true
	pol := progressive.Policy{
		Canary:         &progressive.CanaryPolicy{Nodes: count(2)},
		MaxUnavailable: count(2),
		Gates:          &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 30e9}},
	}
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, pol); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:bad")
	res := c.rollout(60, 2, func(r progressive.StepResult) bool { return r.Rollout.Status.Paused != nil })
	if p := res.Rollout.Status.Paused; p.By != progressive.ByGate || !strings.Contains(p.Reason, "not Ready") {
		t.Errorf("paused by %s: %s; want the ready gate", p.By, p.Reason)
	}
	for range 20 {
		c.tick()
		c.step()
	}
	if got := len(c.deleted); got != 2 {
		t.Errorf("%d pods deleted, want the 2 canaries only: %v", got, c.deleted)
	}
}

// TestOtherOwnersUntouched: pods with the DaemonSet's labels that another
// controller owns, or nobody, are never deleted, though they run an old
// template.
func TestOtherOwnersUntouched(t *testing.T) {
	other := `- apiVersion: v1
  kind: Pod
  metadata:
    name: impostor
    namespace: default
    uid: impostor-uid
    labels: {app: agent, controller-revision-hash: old}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]
  spec: {nodeName: node-0, containers: [{name: agent, image: agent:v0}]}
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
`
	c := newCluster(t, []string{"", "", ""}, other)
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.rollout(40, 1, nil)
	c.checkOthers()
	if len(c.otherPods) != 1 {
		t.Fatalf("other pods %v", c.otherPods)
	}
}

// TestRefusals: a DaemonSet on RollingUpdate is refused with the command
// that switches it; a policy with surge is refused at its field.
func TestRefusals(t *testing.T) {
	c := newCluster(t, []string{""}, "")
	ds := c.daemonSet().DeepCopy()
	ds.Spec.UpdateStrategy.Type = "RollingUpdate"
	if _, err := c.fc.AppsV1().DaemonSets(ns).Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{})
	var noe *progressive.NotOnDeleteError
	if !errors.As(err, &noe) || !strings.Contains(err.Error(), `kubectl patch daemonset agent -n default --type merge -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'`) {
		t.Errorf("Start on RollingUpdate: %v", err)
	}
	_, err = progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{MaxSurge: count(1)})
	if err == nil || !strings.Contains(err.Error(), "policy.maxSurge") {
		t.Errorf("Start with surge: %v", err)
	}
}

// TestTwoDrivers: two drivers read the same state and both decide the
// same deletes; both reach the annotation write before either writes.
// The resourceVersion precondition lets one through: the other gets
// ErrConflict and deletes nothing, so the budget holds. Then both drivers
// step at every tick until the rollout is done.
func TestTwoDrivers(t *testing.T) {
	c := newCluster(t, zones6, "")
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{MaxUnavailable: count(2), Zones: &progressive.ZonesPolicy{}}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.tick()
	var barrier sync.WaitGroup
	barrier.Add(2)
	errs := make([]error, 2)
	results := make([]progressive.StepResult, 2)
	var wg sync.WaitGroup
	for d := range 2 {
		wg.Go(func() {
			client := &patchBarrier{Interface: c.fc, before: func() { barrier.Done(); barrier.Wait() }}
			results[d], errs[d] = progressive.Step(ctx, client, ns, dsName, c.fc.Now())
		})
	}
	wg.Wait()
	conflicts := 0
	for d, err := range errs {
		switch {
		case errors.Is(err, progressive.ErrConflict):
			conflicts++
			if len(results[d].Deletes) > 0 {
				t.Errorf("driver %d met a Conflict and deleted %v", d, results[d].Deletes)
			}
		case err != nil:
			t.Fatalf("driver %d: %v", d, err)
		}
	}
	if conflicts != 1 || c.podDeletes() != 2 {
		t.Fatalf("%d conflicts and %d pod deletes, want 1 and 2", conflicts, c.podDeletes())
	}
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatalf("no end after 100 ticks: images %v", c.images())
		}
		c.tick()
		for d := range 2 {
			wg.Go(func() { results[d], errs[d] = progressive.Step(ctx, c.fc, ns, dsName, c.fc.Now()) })
		}
		wg.Wait()
		for d, err := range errs {
			if err != nil && !errors.Is(err, progressive.ErrConflict) {
				t.Fatalf("driver %d: %v", d, err)
			}
		}
		if n := c.unavailable(); n > 2 {
			t.Fatalf("%d nodes unavailable, budget 2; images %v", n, c.images())
		}
		if results[0].Rollout.Status.Phase == progressive.PhaseDone || results[1].Rollout.Status.Phase == progressive.PhaseDone {
			break
		}
	}
}

// patchBarrier is a client whose DaemonSet patches call before first.
type patchBarrier struct {
	kubernetes.Interface
	before func()
}

func (b *patchBarrier) AppsV1() typedappsv1.AppsV1Interface {
	return barrierApps{b.Interface.AppsV1(), b.before}
}

type barrierApps struct {
	typedappsv1.AppsV1Interface
	before func()
}

func (a barrierApps) DaemonSets(namespace string) typedappsv1.DaemonSetInterface {
	return barrierDaemonSets{a.AppsV1Interface.DaemonSets(namespace), a.before}
}

type barrierDaemonSets struct {
	typedappsv1.DaemonSetInterface
	before func()
}

func (d barrierDaemonSets) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*appsv1.DaemonSet, error) {
	d.before()
	return d.DaemonSetInterface.Patch(ctx, name, pt, data, opts, sub...)
}

// TestUndo: a bad version aborted after its canary; undo sets the
// template back to the previous revision and rolls it out without a
// canary, under the same budget.
func TestUndo(t *testing.T) {
	c := newCluster(t, []string{"", "", "", ""}, "")
	c.never["agent:bad"] = true
	pol := progressive.Policy{Canary: &progressive.CanaryPolicy{Nodes: count(1)}, Gates: &progressive.Gates{ReadyDeadline: metav1.Duration{Duration: 10e9}, OnFailure: progressive.ActionAbort}}
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, pol); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:bad")
	res := c.rollout(40, 1, func(r progressive.StepResult) bool { return r.Rollout.Status.Phase == progressive.PhaseAborted })
	if !strings.Contains(res.Rollout.Status.Reason, "not Ready") {
		t.Errorf("aborted for %q", res.Rollout.Status.Reason)
	}
	c.tick()
	to, err := progressive.Undo(ctx, c.fc, ns, dsName)
	if err != nil {
		t.Fatal(err)
	}
	if img := c.daemonSet().Spec.Template.Spec.Containers[0].Image; img != "agent:v1" || to != 1 {
		t.Fatalf("after undo to revision %d the template runs %s, want agent:v1 and revision 1", to, img)
	}
	c.rollout(40, 1, nil)
	if got := c.images(); slices.ContainsFunc(got, func(s string) bool { return !strings.HasSuffix(s, "agent:v1") }) {
		t.Errorf("after undo, images %v", got)
	}
}

// TestGateRestarts: a canary pod whose container restarted more often
// than gates.maxRestarts pauses the rollout by the gate; resume waives
// that pod and the rollout goes on.
func TestGateRestarts(t *testing.T) {
	c := newCluster(t, []string{"", "", ""}, "")
	two := int32(2)
	if _, err := progressive.Start(ctx, c.fc, ns, dsName, progressive.Policy{Gates: &progressive.Gates{MaxRestarts: &two}}); err != nil {
		t.Fatal(err)
	}
	c.setImage("agent:v2")
	c.rollout(20, 1, func(progressive.StepResult) bool { return len(v2Nodes(c)) == 1 })
	node := v2Nodes(c)[0]
	pod := c.podsByNode()[node][0]
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "agent", RestartCount: 3}}
	if _, err := c.fc.CoreV1().Pods(ns).UpdateStatus(ctx, &pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := c.step()
	if p := res.Rollout.Status.Paused; p == nil || p.By != progressive.ByGate || !strings.Contains(p.Reason, "restarted 3 times") {
		t.Fatalf("after 3 restarts, paused %+v", p)
	}
	n := c.podDeletes()
	for range 5 {
		c.tick()
		c.step()
	}
	if c.podDeletes() != n {
		t.Fatalf("deletes while paused by the gate")
	}
	if _, err := progressive.Resume(ctx, c.fc, ns, dsName); err != nil {
		t.Fatal(err)
	}
	c.rollout(40, 1, nil)
}
