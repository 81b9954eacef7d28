package apply_test

import (
	"context"
	"errors"
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
