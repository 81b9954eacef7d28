package apply_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/placement"
)

// TestRecordEvents: the Events of a sync, as upstream's controller records
// them (record.FakeRecorder prints "type reason message").
func TestRecordEvents(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}}}
	all := ds.DeepCopy()
	all.Spec.Selector = &metav1.LabelSelector{}
	quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("exceeded quota"))
	terminating := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Message: "namespace default is being terminated", Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}}}}
	tests := []struct {
		name, reason string
		ds           *appsv1.DaemonSet
		plan         daemonplan.Plan
		res          apply.Result
		want         []string
	}{
		{"nothing", "a sync without pod writes records nothing", ds, daemonplan.Plan{},
			apply.Result{Writes: []apply.Write{{Action: apply.UpdateStatus, Name: "agent"}}}, nil},
		{"selecting all", "upstream warns on an exactly empty selector, every sync", all, daemonplan.Plan{}, apply.Result{},
			[]string{"Warning SelectingAll This daemon set is selecting all pods. A non-empty selector is required."}},
		{"creates", "RealPodControl records each create with the name the API server gave, or its error", ds, daemonplan.Plan{},
			apply.Result{Writes: []apply.Write{{Action: apply.CreatePod, Name: "agent-x1", Node: "a"}, {Action: apply.CreatePod, Node: "b", Err: quota}}},
			[]string{"Normal SuccessfulCreate Created pod: agent-x1", "Warning FailedCreate Error creating: " + quota.Error()}},
		{"namespace terminating", "no FailedCreate when the namespace is being torn down", ds, daemonplan.Plan{},
			apply.Result{Writes: []apply.Write{{Action: apply.CreatePod, Node: "a", Err: terminating}}}, nil},
		{"failed pod", "FailedDaemonPod before the delete's own event", ds,
			daemonplan.Plan{Delete: []placement.Delete{{Pod: "agent-f", Node: "a", Reason: placement.Failed}}},
			apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-f", Node: "a"}}},
			[]string{"Warning FailedDaemonPod Found failed daemon pod default/agent-f on node a, will try to kill it", "Normal SuccessfulDelete Deleted pod: agent-f"}},
		{"succeeded pod", "SucceededDaemonPod, then a delete that fails", ds,
			daemonplan.Plan{Delete: []placement.Delete{{Pod: "agent-s", Node: "b", Reason: placement.Succeeded}}},
			apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-s", Node: "b", Err: quota}}},
			[]string{"Normal SucceededDaemonPod Found succeeded daemon pod default/agent-s on node b, will try to delete it", "Warning FailedDelete Error deleting: " + quota.Error()}},
		{"pod gone", "a delete answered NotFound records nothing, as upstream", ds,
			daemonplan.Plan{Delete: []placement.Delete{{Pod: "agent-o", Node: "a", Reason: placement.Outdated}}},
			apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-o", Node: "a", Note: apply.NotePodGone}}}, nil},
		{"failed pod not deleted", "Apply refused the delete (the pod is not Failed as read): no FailedDaemonPod either", ds,
			daemonplan.Plan{Delete: []placement.Delete{{Pod: "agent-f", Node: "a", Reason: placement.Failed}}},
			apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "agent-f", Node: "a", Err: apply.ErrUnjustifiedDelete}}}, nil},
		{"refused writes", "a write Apply refused to issue was never a write", ds, daemonplan.Plan{},
			apply.Result{Writes: []apply.Write{{Action: apply.DeletePod, Name: "ghost", Err: apply.ErrNotInSnapshot}, {Action: apply.DeletePod, Name: "foreign", Err: apply.ErrNotOwned}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			apply.RecordEvents(rec, tc.ds, tc.plan, tc.res)
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s:\ngot  %q\nwant %q", tc.reason, got, tc.want)
			}
		})
	}
	apply.RecordEvents(nil, ds, daemonplan.Plan{}, apply.Result{}) // a nil recorder records nothing
}

// TestApplyNotesPodGone: a delete the API server answers NotFound is done,
// with NotePodGone, so that no SuccessfulDelete is recorded for it.
func TestApplyNotesPodGone(t *testing.T) {
	c := readSnapshot(t, 1)
	c.Pods[0].OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: c.DaemonSet.UID, Controller: ptrTrue()}}
	c.Pods[0].Status.Phase = corev1.PodFailed
	p := plan(t, c)
	if len(p.Delete) != 1 {
		t.Fatalf("precondition: the plan deletes the failed pod, got %+v", p.Delete)
	}
	fc := fakeclient.New(c, now)
	fc.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "orphan")
	})
	res := apply.Apply(context.Background(), fc, c, p)
	i := slices.IndexFunc(res.Writes, func(w apply.Write) bool { return w.Action == apply.DeletePod })
	if i < 0 || res.Writes[i].Err != nil || res.Writes[i].Note != apply.NotePodGone {
		t.Errorf("writes %+v, want a DeletePod done with NotePodGone", res.Writes)
	}
}

func ptrTrue() *bool { b := true; return &b }

// TestRecordEventsOnlyForCreatesIssued reproduces issue 38's finding 8:
// RecordEvents recorded a FailedCreate warning for creates Apply refused
// before sending them (the DaemonSet should not run on the node, the node
// already has its pod), as if the API server had refused them. Only a
// create sent and refused gets FailedCreate; a refused one is reported in
// the Result, with its reason, and records no Event. The Result is
// Apply's own, against a fake API server.
func TestRecordEventsOnlyForCreatesIssued(t *testing.T) {
	quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("exceeded quota"))
	tests := []struct {
		name, reason string
		node         string
		noLabels     bool  // the create has no labels: upstream cannot create the pod
		serverErr    error // the API server's answer to the create
		wantErr      error // the create's error in the Result
		want         []string
	}{
		{"should not run", "the node has a taint the DaemonSet does not tolerate: refused before sending",
			"tainted", false, nil, apply.ErrShouldNotRun, nil},
		{"node has its pod", "node-01 runs the DaemonSet's pod: refused before sending",
			"node-01", false, nil, apply.ErrNodeHasPod, nil},
		{"node not in the snapshot", "refused before sending, as before",
			"ghost", false, nil, apply.ErrNotInSnapshot, nil},
		{"no labels", "a pod without labels is never sent; upstream's pod control records nothing for it either",
			"node-02", true, nil, convert.ErrNoLabels, nil},
		{"refused by the server", "a create sent and refused gets its FailedCreate",
			"node-02", false, quota, quota, []string{"Warning FailedCreate Error creating: " + quota.Error()}},
		{"created", "a create sent and done gets its SuccessfulCreate",
			"node-02", false, nil, nil, []string{"Normal SuccessfulCreate Created pod: agent-00001"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 3)
			c.Pods = nil
			cr := plan(t, c).Create[0] // the labels and tolerations of a real create
			addOwned(c)
			c.Nodes = append(c.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "tainted"},
				Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}}})
			cr.Node = tc.node
			if tc.noLabels {
				cr.Labels = nil
			}
			p := daemonplan.Plan{Namespace: "default", Name: "agent", Create: []placement.Create{cr}}
			fc := fakeclient.New(c, now)
			if tc.serverErr != nil {
				fc.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.serverErr
				})
			}
			res := apply.Apply(context.Background(), fc, c, p)
			if len(res.Writes) != 1 || !errors.Is(res.Writes[0].Err, tc.wantErr) || (tc.wantErr == nil) != (res.Writes[0].Err == nil) {
				t.Fatalf("%s: writes %+v, want one CreatePod with error %v", tc.reason, res.Writes, tc.wantErr)
			}
			rec := record.NewFakeRecorder(10)
			apply.RecordEvents(rec, c.DaemonSet, p, res)
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, e)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s:\ngot  %q\nwant %q", tc.reason, got, tc.want)
			}
		})
	}
}

// TestErrNotIssued: the error of every write Apply does not issue matches
// ErrNotIssued, and still only its own sentinel, so that callers (and
// RecordEvents) tell a refusal from an error the API server answered.
func TestErrNotIssued(t *testing.T) {
	sentinels := []error{apply.ErrOtherDaemonSet, apply.ErrNotInSnapshot, apply.ErrNotOwned, apply.ErrShouldNotRun,
		apply.ErrNodeHasPod, apply.ErrNotOrphan, apply.ErrCannotAdopt}
	for i, err := range sentinels {
		wrapped := fmt.Errorf("%w: node x", err)
		if !errors.Is(wrapped, apply.ErrNotIssued) || !errors.Is(wrapped, err) {
			t.Errorf("%v: does not match ErrNotIssued and itself", err)
		}
		for j, other := range sentinels {
			if i != j && errors.Is(wrapped, other) {
				t.Errorf("%v matches %v", err, other)
			}
		}
	}
	if quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("exceeded quota")); errors.Is(quota, apply.ErrNotIssued) {
		t.Errorf("an API server's answer matches ErrNotIssued")
	}
}
