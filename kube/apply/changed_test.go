package apply_test

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// replicaSet is the controller reference of another controller.
var replicaSet = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: new(true)}}

// tester is what the helpers below need of a *testing.T or a *rapid.T.
type tester interface {
	Helper()
	Fatal(args ...any)
}

// store replaces the object of obj's name in fc as another client would:
// fc gives it a new resourceVersion. Tests call it before Apply, between
// the snapshot and the plan's writes.
func store(t tester, fc *fakeclient.Clientset, obj runtime.Object) {
	t.Helper()
	ctx := context.Background()
	var err error
	switch o := obj.(type) {
	case *corev1.Pod:
		o.ResourceVersion = ""
		_, err = fc.CoreV1().Pods(o.Namespace).Update(ctx, o, metav1.UpdateOptions{})
	case *appsv1.ControllerRevision:
		o.ResourceVersion = ""
		_, err = fc.AppsV1().ControllerRevisions(o.Namespace).Update(ctx, o, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// stampAll writes every pod and revision of c to fc again, with an
// annotation, so that each gets a resourceVersion, as objects of a real
// API server have.
func stampAll(t tester, fc *fakeclient.Clientset, c *load.Snapshot) {
	t.Helper()
	for _, p := range c.Pods {
		p = p.DeepCopy()
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, "example.com/stamp", "1")
		store(t, fc, p)
	}
	for _, r := range c.Revisions {
		r = r.DeepCopy()
		metav1.SetMetaDataAnnotation(&r.ObjectMeta, "example.com/stamp", "1")
		store(t, fc, r)
	}
}

// recreate deletes the pod of pod's name in fc and creates pod (another
// UID) in its place.
func recreate(t *testing.T, fc *fakeclient.Clientset, pod *corev1.Pod) {
	t.Helper()
	ctx := context.Background()
	if err := fc.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	pod.ResourceVersion = ""
	if _, err := fc.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestApplyObjectsChangedSinceTheSnapshot: between the snapshot a plan was
// made from and its Apply, another client changes the objects the plan
// writes. Apply writes nothing the DaemonSet does not control when it
// writes: a delete or relabel carries the UID and the resourceVersion at
// which the DaemonSet was seen to control the object, and on a conflict
// the object is read again and written only if the DaemonSet still
// controls it.
func TestApplyObjectsChangedSinceTheSnapshot(t *testing.T) {
	tests := []struct {
		name, reason string
		// noVersions leaves the snapshot's objects without
		// resourceVersions, as a hand-written snapshot has them.
		noVersions bool
		plan       daemonplan.Plan
		change     func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, old *appsv1.ControllerRevision)
		// untouched: the pod or revision ("revision/NAME") that must keep
		// its state; done: whether the planned write must still happen.
		untouched string
		wantErr   error
		done      bool
	}{
		{
			name:   "pod taken over",
			reason: "finding 1: same UID, a ReplicaSet as controller, new resourceVersion; the UID precondition alone let the delete through",
			plan:   daemonplan.Plan{Delete: []placement.Delete{{Pod: "mine", Node: "node-01", Reason: placement.Outdated}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.OwnerReferences = replicaSet
				store(t, fc, mine)
			},
			untouched: "mine", wantErr: apply.ErrNotOwned,
		},
		{
			name:       "pod taken over, snapshot without resourceVersions",
			reason:     "finding 1: with no resourceVersion to hold the delete to, Apply reads the pod first",
			noVersions: true,
			plan:       daemonplan.Plan{Delete: []placement.Delete{{Pod: "mine", Node: "node-01", Reason: placement.Outdated}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.OwnerReferences = replicaSet
				store(t, fc, mine)
			},
			untouched: "mine", wantErr: apply.ErrNotOwned,
		},
		{
			name:   "pod status changed",
			reason: "a kubelet's status update gives the pod a new resourceVersion; still the DaemonSet's, it is deleted after a fresh read",
			plan:   daemonplan.Plan{Delete: []placement.Delete{{Pod: "mine", Node: "node-01", Reason: placement.Outdated}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.Status.Phase = corev1.PodRunning
				store(t, fc, mine)
			},
			done: true,
		},
		{
			name:   "revision taken over",
			reason: "finding 1: revision deletes had the same gap",
			plan:   daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Delete: []string{"agent-old"}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, _ *corev1.Pod, old *appsv1.ControllerRevision) {
				old.OwnerReferences = replicaSet
				store(t, fc, old)
			},
			untouched: "revision/agent-old", wantErr: apply.ErrNotOwned,
		},
		{
			name:       "updated revision taken over, snapshot without resourceVersions",
			reason:     "found by FuzzApply: an update without a resourceVersion replaced the ReplicaSet's revision with the snapshot's copy, the DaemonSet's owner reference back on it",
			noVersions: true,
			plan:       daemonplan.Plan{Revisions: daemonplan.RevisionWrites{Update: []revision.Revision{{Name: "agent-old", Revision: 5}}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, _ *corev1.Pod, old *appsv1.ControllerRevision) {
				old.OwnerReferences = replicaSet
				store(t, fc, old)
			},
			untouched: "revision/agent-old", wantErr: apply.ErrNotOwned,
		},
		{
			name:   "relabelled pod taken over",
			reason: "finding 2: the relabel patch carried no UID nor resourceVersion",
			plan:   daemonplan.Plan{Relabel: []revision.PodRelabel{{Pod: "mine", Hash: "new-hash"}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.OwnerReferences = replicaSet
				store(t, fc, mine)
			},
			untouched: "mine", wantErr: apply.ErrNotOwned,
		},
		{
			name:   "relabelled pod replaced",
			reason: "finding 2: another pod took the name (another UID); the patch relabelled it",
			plan:   daemonplan.Plan{Relabel: []revision.PodRelabel{{Pod: "mine", Hash: "new-hash"}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.UID, mine.OwnerReferences = "new-uid", replicaSet
				recreate(t, fc, mine)
			},
			untouched: "mine", wantErr: apply.ErrNotInSnapshot,
		},
		{
			name:   "relabelled pod replaced by another of the DaemonSet's",
			reason: "finding 2: a pod of the same name and owner but another UID is not the pod the plan relabels",
			plan:   daemonplan.Plan{Relabel: []revision.PodRelabel{{Pod: "mine", Hash: "new-hash"}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.UID = "new-uid"
				recreate(t, fc, mine)
			},
			untouched: "mine", wantErr: apply.ErrNotInSnapshot,
		},
		{
			name:   "relabelled pod's status changed",
			reason: "a new resourceVersion alone: still the DaemonSet's, relabelled after a fresh read",
			plan:   daemonplan.Plan{Relabel: []revision.PodRelabel{{Pod: "mine", Hash: "new-hash"}}},
			change: func(t *testing.T, fc *fakeclient.Clientset, mine *corev1.Pod, _ *appsv1.ControllerRevision) {
				mine.Status.Phase = corev1.PodRunning
				store(t, fc, mine)
			},
			done: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 2)
			addOwned(c)
			fc := fakeclient.New(c, now)
			if !tc.noVersions {
				// The snapshot as an informer holds it: with the stored
				// resourceVersions.
				after, err := fc.Snapshot(context.Background(), "default", "agent")
				if err != nil {
					t.Fatal(err)
				}
				stampAll(t, fc, after)
				if c, err = fc.Snapshot(context.Background(), "default", "agent"); err != nil {
					t.Fatal(err)
				}
			}
			mine, old := podIn(c, "mine").DeepCopy(), revisionIn(c, "agent-old").DeepCopy()
			tc.change(t, fc, mine, old)
			before, err := fc.Snapshot(context.Background(), "default", "agent")
			if err != nil {
				t.Fatal(err)
			}
			p := tc.plan
			p.Namespace, p.Name = "default", "agent"
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, p)
			after, err := fc.Snapshot(context.Background(), "default", "agent")
			if err != nil {
				t.Fatal(err)
			}
			if tc.done {
				if err := res.Err(); err != nil {
					t.Errorf("%s: Apply: %v", tc.reason, err)
				}
				if len(fc.Writes()) == 0 {
					t.Errorf("%s: nothing written", tc.reason)
				}
				return
			}
			if !errors.Is(res.Err(), tc.wantErr) {
				t.Errorf("%s: Err() = %v, want %v", tc.reason, res.Err(), tc.wantErr)
			}
			var was, is metav1.Object
			if name, ok := cutRevision(tc.untouched); ok {
				was, is = objOrNil(revisionIn(before, name)), objOrNil(revisionIn(after, name))
			} else {
				was, is = objOrNil(podIn(before, tc.untouched)), objOrNil(podIn(after, tc.untouched))
			}
			switch {
			case is == nil:
				t.Errorf("%s: %s was deleted", tc.reason, tc.untouched)
			case was.GetResourceVersion() != is.GetResourceVersion():
				t.Errorf("%s: %s was written (resourceVersion %s, then %s; labels %v)", tc.reason, tc.untouched, was.GetResourceVersion(), is.GetResourceVersion(), is.GetLabels())
			}
		})
	}
}

func cutRevision(s string) (string, bool) {
	const prefix = "revision/"
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

func objOrNil[T interface {
	*corev1.Pod | *appsv1.ControllerRevision
	metav1.Object
}](o T) metav1.Object {
	if o == nil {
		return nil
	}
	return o
}

func podIn(c *load.Snapshot, name string) *corev1.Pod {
	for _, p := range c.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func revisionIn(c *load.Snapshot, name string) *appsv1.ControllerRevision {
	for _, r := range c.Revisions {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// TestApplyChecksCreates: Apply creates a pod only on a node of the
// snapshot that the DaemonSet should run on and that has no live pod of
// the DaemonSet there (one, with surge), once per node; a stale or altered
// plan created pods on a node the snapshot does not hold, twice (finding
// 3).
func TestApplyChecksCreates(t *testing.T) {
	tainted := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "tainted"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}}}
	tests := []struct {
		name, reason string
		surge        bool
		creates      []string
		issued       int
		refused      []error // the creates refused, in plan order
	}{
		{"node not in the snapshot", "a stale plan names a node gone, or never there, twice",
			false, []string{"ghost", "ghost"}, 0, []error{apply.ErrNotInSnapshot, apply.ErrNotInSnapshot}},
		{"node with the DaemonSet's pod", "node-01 runs mine, a live pod the DaemonSet controls",
			false, []string{"node-01"}, 0, []error{apply.ErrNodeHasPod}},
		{"surge allows one more", "with maxSurge, one new pod next to the old one",
			true, []string{"node-01"}, 1, nil},
		{"tainted node", "the DaemonSet does not tolerate the node's taint: it should not run there",
			false, []string{"tainted"}, 0, []error{apply.ErrShouldNotRun}},
		{"same node twice", "the first create fills the node; the second is refused, even with surge",
			true, []string{"node-02", "node-02"}, 1, []error{apply.ErrNodeHasPod}},
		{"free node", "node-02 has no pod: the create is justified",
			false, []string{"node-02"}, 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 3)
			c.Pods = nil
			template := plan(t, c).Create[0] // the labels and tolerations of a real create
			addOwned(c)
			c.Nodes = append(c.Nodes, tainted.DeepCopy())
			if tc.surge {
				c.DaemonSet.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{
					MaxUnavailable: new(intstr.FromInt32(0)), MaxSurge: new(intstr.FromInt32(1))}
			}
			p := daemonplan.Plan{Namespace: "default", Name: "agent"}
			for _, n := range tc.creates {
				cr := template
				cr.Node = n
				p.Create = append(p.Create, cr)
			}
			fc := fakeclient.New(c, now)
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, p)
			var refused []error
			for _, w := range res.Writes {
				if w.Err != nil {
					refused = append(refused, w.Err)
				}
			}
			if len(refused) != len(tc.refused) {
				t.Fatalf("%s: refused %v, want %v", tc.reason, refused, tc.refused)
			}
			for i := range refused {
				if !errors.Is(refused[i], tc.refused[i]) {
					t.Errorf("%s: create refused with %v, want %v", tc.reason, refused[i], tc.refused[i])
				}
			}
			if got := len(fc.Writes()); got != tc.issued || len(res.Created) != tc.issued {
				t.Errorf("%s: %d creates issued, %d created, want %d", tc.reason, got, len(res.Created), tc.issued)
			}
		})
	}
}
