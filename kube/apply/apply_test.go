package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// TestApplyConformance applies daemonplan's plan for every conformance
// cluster to a fake clientset holding that cluster and checks that
//
//  1. every write succeeds, and the writes are exactly the plan's: one per
//     entry, of the entry's kind and name, pod deletes with the pod's UID
//     as a precondition;
//  2. the state after is what the next plan expects: nothing left to adopt,
//     release, relabel or create among revisions, no node that got a pod
//     gets another, every deleted pod is gone, and the stored status is the
//     planned one.
func TestApplyConformance(t *testing.T) {
	conformance.SkipIfAbsent(t)
	cases, err := conformance.Cases(conformance.CasesDir())
	if err != nil {
		t.Fatal(err)
	}
	var applied, writes int
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			cl, err := load.Read(bytes.NewReader(tc.Cluster))
			if err != nil {
				t.Fatal(err)
			}
			p, err := kubesync.Sync(cl, tc.Now, kubesync.State{}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Errors) > 0 {
				t.Skipf("upstream's sync fails here: %v", p.Errors)
			}
			ctx := context.Background()
			fc := fakeclient.New(cl, tc.Now)
			res := apply.Apply(ctx, fc, cl, p)
			if err := res.Err(); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkWritesArePlan(t, p, res, fc)
			applied++
			writes += len(res.Writes)

			after, err := fc.Snapshot(ctx, cl.DaemonSet.Namespace, cl.DaemonSet.Name)
			if err != nil {
				t.Fatal(err)
			}
			next, err := kubesync.Sync(after, tc.Now, kubesync.State{Backoff: p.Backoff}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			leftover := map[string]any{
				"adopt": next.Adopt, "release": next.Release, "relabel": next.Relabel,
				"revisions.create": next.Revisions.Create, "revisions.adopt": next.Revisions.Adopt,
				"revisions.release": next.Revisions.Release, "revisions.update": next.Revisions.Update,
			}
			for what, v := range leftover {
				if n := lenOf(v); n > 0 {
					t.Errorf("after Apply the next plan still has %d %s: %v", n, what, v)
				}
			}
			created := map[string]bool{}
			for _, c := range p.Create {
				created[c.Node] = true
			}
			for _, c := range next.Create {
				if created[c.Node] {
					t.Errorf("node %s got a pod and the next plan creates another", c.Node)
				}
			}
			for _, d := range p.Delete {
				for _, pod := range after.Pods {
					if pod.Name == d.Pod {
						t.Errorf("pod %s was deleted but is still there", d.Pod)
					}
				}
			}
			if p.StatusChanged {
				want := convert.DaemonSetStatus(cl.DaemonSet.Status, p.Status)
				if diff := cmp.Diff(want, after.DaemonSet.Status); diff != "" {
					t.Errorf("stored status mismatch (-planned +stored):\n%s", diff)
				}
			}
		})
	}
	if applied == 0 || writes == 0 {
		t.Fatalf("applied %d plans with %d writes: the test checks nothing", applied, writes)
	}
	t.Logf("%d plans applied, %d writes", applied, writes)
}

func lenOf(v any) int { return reflect.ValueOf(v).Len() }

// checkWritesArePlan compares the writes the fake clientset recorded with
// the plan's entries.
func checkWritesArePlan(t *testing.T, p daemonplan.Plan, res apply.Result, fc *fakeclient.Clientset) {
	t.Helper()
	var want []string
	for _, n := range p.Revisions.Adopt {
		want = append(want, "patch controllerrevisions "+n)
	}
	for _, n := range p.Revisions.Release {
		want = append(want, "patch controllerrevisions "+n)
	}
	for _, r := range p.Revisions.Update {
		want = append(want, "update controllerrevisions "+r.Name)
	}
	for _, r := range p.Revisions.Create {
		want = append(want, "create controllerrevisions "+r.Name)
	}
	for _, r := range p.Relabel {
		want = append(want, "patch pods "+r.Pod)
	}
	for _, n := range slices.Concat(p.Revisions.DeleteDuplicates, p.Revisions.Delete) {
		want = append(want, "delete controllerrevisions "+n)
	}
	for _, n := range p.Adopt {
		want = append(want, "patch pods "+n)
	}
	for _, n := range p.Release {
		want = append(want, "patch pods "+n)
	}
	for _, c := range p.Create {
		want = append(want, "create pods "+c.Node)
	}
	for _, d := range p.Delete {
		want = append(want, "delete pods "+d.Pod)
	}
	if p.StatusChanged {
		want = append(want, "update daemonsets/status "+p.Name)
	}
	var got []string
	for _, a := range fc.Writes() {
		key := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			key += "/" + a.GetSubresource()
		}
		// CreateAction and UpdateAction have the same methods: tell them
		// apart by verb, not by type.
		switch a := a.(type) {
		case k8stesting.CreateAction:
			if pod, ok := a.GetObject().(*corev1.Pod); ok && a.GetVerb() == "create" {
				key += " " + nodeOf(pod)
			} else {
				key += " " + a.GetObject().(metav1.Object).GetName()
			}
		case k8stesting.PatchAction:
			key += " " + a.GetName()
		case k8stesting.DeleteAction:
			key += " " + a.GetName()
			if a.GetResource().Resource == "pods" {
				if pre := a.GetDeleteOptions().Preconditions; pre == nil || pre.UID == nil || *pre.UID == "" {
					t.Errorf("delete of pod %s without a UID precondition", a.GetName())
				}
			}
		}
		got = append(got, key)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("writes mismatch (-plan +issued):\n%s", diff)
	}
	if len(res.Writes) != len(want) {
		t.Errorf("Result lists %d writes, the plan holds %d", len(res.Writes), len(want))
	}
}

func nodeOf(pod *corev1.Pod) string {
	return pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
}

const cluster = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
    updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
- apiVersion: v1
  kind: Pod
  metadata: {name: orphan, namespace: default, uid: orphan-uid, labels: {app: agent}}
  spec: {nodeName: node-00}
  status: {phase: Running}
`

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// readSnapshot returns the cluster above with n nodes.
func readSnapshot(t *testing.T, n int) *load.Snapshot {
	t.Helper()
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c.Nodes = append(c.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + twoDigits(i)}})
	}
	return c
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

func TestApplySlowStartStopsAtFailedBatch(t *testing.T) {
	tests := []struct {
		name, reason      string
		nodes, quota      int
		wantCalls, wantOK int
	}{
		{"no failure", "every create issued, in batches 1, 2, 4, 3", 10, 100, 10, 10},
		{"quota of 4", "batches 1, 2 succeed, the third (4) has one failure; the last batch (3) is not issued", 10, 4, 7, 4},
		{"first fails", "the first batch of one fails; nothing else is issued", 10, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, tc.nodes)
			c.Pods = nil
			p := plan(t, c)
			fc := fakeclient.New(c, now)
			calls := 0
			fc.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				calls++ // creates of one batch run in parallel, but the fake serialises reactors
				if calls > tc.quota {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("quota exceeded"))
				}
				return false, nil, nil
			})
			res := apply.Apply(context.Background(), fc, c, p)
			if calls != tc.wantCalls || len(res.Created) != tc.wantOK {
				t.Errorf("%s: %d create calls, %d created; want %d and %d", tc.reason, calls, len(res.Created), tc.wantCalls, tc.wantOK)
			}
			if res.NotAttempted != tc.nodes-tc.wantCalls {
				t.Errorf("NotAttempted = %d, want %d", res.NotAttempted, tc.nodes-tc.wantCalls)
			}
			if (res.Err() != nil) != (tc.wantOK < tc.nodes) {
				t.Errorf("Err() = %v", res.Err())
			}
		})
	}
}

func TestApplyStopsWhenDaemonSetCannotAdopt(t *testing.T) {
	c := readSnapshot(t, 2)
	p := plan(t, c)
	if len(p.Adopt) != 1 {
		t.Fatalf("precondition: the plan adopts the orphan, got %v", p.Adopt)
	}
	tests := []struct {
		name, reason string
		change       func(fc *fakeclient.Clientset)
	}{
		{"gone", "the DaemonSet was deleted since the snapshot", func(fc *fakeclient.Clientset) {
			_ = fc.AppsV1().DaemonSets("default").Delete(context.Background(), "agent", metav1.DeleteOptions{})
		}},
		{"replaced", "a DaemonSet of the same name with another UID", func(fc *fakeclient.Clientset) {
			ds := c.DaemonSet.DeepCopy()
			ds.UID = "other"
			_, _ = fc.AppsV1().DaemonSets("default").Update(context.Background(), ds, metav1.UpdateOptions{})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeclient.New(c, now)
			tc.change(fc)
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, p)
			if !errors.Is(res.Err(), apply.ErrCannotAdopt) {
				t.Errorf("%s: Err() = %v, want ErrCannotAdopt", tc.reason, res.Err())
			}
			// The revision is created first (upstream constructs history
			// before it claims pods); nothing follows the failed check.
			for _, w := range fc.Writes() {
				if w.GetResource().Resource != "controllerrevisions" {
					t.Errorf("%s: %s %s issued after the failed check", tc.reason, w.GetVerb(), w.GetResource().Resource)
				}
			}
		})
	}
}

func TestApplyRefusesWhatTheSnapshotLacks(t *testing.T) {
	c := readSnapshot(t, 1)
	p := plan(t, c)
	// Only writes naming objects the snapshot lacks.
	p = daemonplan.Plan{
		Namespace: p.Namespace, Name: p.Name,
		Revisions: daemonplan.RevisionWrites{Delete: []string{"not-there"}},
		Delete:    []placement.Delete{{Pod: "ghost", Node: "node-00", Reason: placement.Outdated}},
	}
	fc := fakeclient.New(c, now)
	fc.ClearActions()
	res := apply.Apply(context.Background(), fc, c, p)
	if !errors.Is(res.Err(), apply.ErrNotInSnapshot) || len(res.Writes) != 2 {
		t.Errorf("Apply = %+v, want two writes refused with ErrNotInSnapshot", res.Writes)
	}
	if w := fc.Writes(); len(w) > 0 {
		t.Errorf("writes issued for objects not in the snapshot: %v", w)
	}
}

func TestApplyRetriesStatusOnConflict(t *testing.T) {
	c := readSnapshot(t, 1)
	p := plan(t, c)
	fc := fakeclient.New(c, now)
	conflicts := 1
	fc.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("stale"))
		}
		return false, nil, nil
	})
	res := apply.Apply(context.Background(), fc, c, p)
	if err := res.Err(); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	ds, _ := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if ds.Status.DesiredNumberScheduled != 1 || ds.Status.ObservedGeneration != 1 {
		t.Errorf("status after one conflict = %+v, want the planned one", ds.Status)
	}
}

func TestApplyCreateRevisionAlreadyExists(t *testing.T) {
	c := readSnapshot(t, 1)
	p := plan(t, c)
	if len(p.Revisions.Create) != 1 {
		t.Fatalf("precondition: the plan creates one revision, got %v", p.Revisions.Create)
	}
	planned := convert.NewControllerRevision(c.DaemonSet, p.Revisions.Create[0])
	tests := []struct {
		name, reason string
		existing     func(r *appsv1.ControllerRevision) // changes the planned revision into the one stored
		getFails     bool
		wantDone     bool
	}{
		{"same", "an earlier sync created it and the snapshot does not show it yet", func(*appsv1.ControllerRevision) {}, false, true},
		{"same, indented", "stored data is compared in its compact form, as upstream.StoredData", func(r *appsv1.ControllerRevision) {
			var buf bytes.Buffer
			_ = json.Indent(&buf, r.Data.Raw, "", "  ")
			r.Data.Raw = buf.Bytes()
		}, false, true},
		{"other data", "a name collision: another template hashed to the same name", func(r *appsv1.ControllerRevision) {
			r.Data.Raw = []byte(`{"spec":{"template":{"$patch":"replace"}}}`)
		}, false, false},
		{"other controller", "the same template owned by another controller is not the DaemonSet's", func(r *appsv1.ControllerRevision) {
			r.OwnerReferences[0].UID = "other-uid"
		}, false, false},
		{"orphan", "the same template without a controller is not the DaemonSet's until adopted", func(r *appsv1.ControllerRevision) {
			r.OwnerReferences = nil
		}, false, false},
		{"read fails", "the revision cannot be read back, so whether it matches is unknown", func(*appsv1.ControllerRevision) {}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeclient.New(c, now)
			stored := planned.DeepCopy()
			tc.existing(stored)
			if _, err := fc.AppsV1().ControllerRevisions("default").Create(context.Background(), stored, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			fc.ClearActions()
			if tc.getFails {
				fc.PrependReactor("get", "controllerrevisions", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("connection refused")
				})
			}
			res := apply.Apply(context.Background(), fc, c, p)
			i := slices.IndexFunc(res.Writes, func(w apply.Write) bool { return w.Action == apply.CreateRevision })
			if i < 0 {
				t.Fatalf("no CreateRevision in %+v", res.Writes)
			}
			w := res.Writes[i]
			if w.Name != planned.Name {
				t.Errorf("%s: CreateRevision named %q, want %q", tc.reason, w.Name, planned.Name)
			}
			if tc.wantDone {
				if w.Err != nil || w.Note != apply.NoteRevisionExists {
					t.Errorf("%s: CreateRevision = %+v, want done with NoteRevisionExists", tc.reason, w)
				}
				if err := res.Err(); err != nil {
					t.Errorf("%s: Err() = %v, want nil", tc.reason, err)
				}
			} else if !apierrors.IsAlreadyExists(w.Err) || w.Note != "" {
				t.Errorf("%s: CreateRevision = %+v, want the AlreadyExists error and no note", tc.reason, w)
			}
			for _, a := range fc.Writes() {
				if a.GetResource().Resource == "controllerrevisions" && a.GetVerb() != "create" {
					t.Errorf("%s: %s of a revision; the existing one must be left alone", tc.reason, a.GetVerb())
				}
			}
		})
	}
}

func TestActionString(t *testing.T) {
	if got := apply.CreatePod.String(); got != "CreatePod" {
		t.Errorf("CreatePod.String() = %q", got)
	}
	if got := apply.Action(0).String(); got != "Action(0)" {
		t.Errorf("Action(0).String() = %q", got)
	}
}

// addForeign adds to c a pod, "theirs", and a revision, "their-rev", both
// selected by the DaemonSet's selector and controlled by a ReplicaSet.
func addForeign(c *load.Snapshot) {
	other := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "other-uid", Controller: new(true)}}
	c.Pods = append(c.Pods, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default", UID: "theirs-uid", Labels: map[string]string{"app": "agent"}, OwnerReferences: other},
		Spec:       corev1.PodSpec{NodeName: "node-00"},
	})
	c.Revisions = append(c.Revisions, &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "their-rev", Namespace: "default", UID: "rev-uid", Labels: map[string]string{"app": "agent"}, OwnerReferences: other},
		Revision:   1,
	})
}

// TestApplyRefusesWhatTheDaemonSetDoesNotOwn: given a plan that names pods
// and revisions of the snapshot the DaemonSet does not control (a plan made
// from another snapshot), Apply issues no delete, relabel or update for
// them; a pod the same plan adopts first is the DaemonSet's to delete.
func TestApplyRefusesWhatTheDaemonSetDoesNotOwn(t *testing.T) {
	c := readSnapshot(t, 1)
	addForeign(c)
	p := daemonplan.Plan{
		Namespace: "default", Name: "agent",
		Revisions: daemonplan.RevisionWrites{Delete: []string{"their-rev"}, Update: []revision.Revision{{Name: "their-rev", Revision: 2}}},
		Relabel:   []revision.PodRelabel{{Pod: "theirs", Hash: "h"}},
		Delete: []placement.Delete{
			{Pod: "theirs", Node: "node-00", Reason: placement.Duplicate},
			{Pod: "orphan", Node: "node-00", Reason: placement.Duplicate},
		},
	}
	fc := fakeclient.New(c, now)
	fc.ClearActions()
	allRefused(t, apply.Apply(context.Background(), fc, c, p), 5, apply.ErrNotOwned)
	if w := fc.Writes(); len(w) > 0 {
		t.Errorf("writes issued for objects the DaemonSet does not own: %v", w)
	}

	// Without UIDs on both sides, a controller reference names nothing.
	noUID := *c
	noUID.DaemonSet = c.DaemonSet.DeepCopy()
	noUID.DaemonSet.UID = ""
	blank := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", Controller: new(true)}}
	noUID.Pods = append(slices.Clone(c.Pods), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "blank", Namespace: "default", UID: "blank-uid", OwnerReferences: blank},
		Spec:       corev1.PodSpec{NodeName: "node-00"},
	})
	res := apply.Apply(context.Background(), fc, &noUID, daemonplan.Plan{Namespace: p.Namespace, Name: p.Name,
		Delete: []placement.Delete{{Pod: "blank", Node: "node-00", Reason: placement.Duplicate}}})
	if len(res.Writes) != 1 || !errors.Is(res.Writes[0].Err, apply.ErrNotOwned) {
		t.Errorf("empty UIDs: writes %+v, want the delete refused with ErrNotOwned", res.Writes)
	}

	// Adopted first, the orphan is the DaemonSet's (and without a revision
	// hash, outdated).
	p = daemonplan.Plan{Namespace: p.Namespace, Name: p.Name, Adopt: []string{"orphan"},
		Delete: []placement.Delete{{Pod: "orphan", Node: "node-00", Reason: placement.Outdated}}}
	res = apply.Apply(context.Background(), fc, c, p)
	if err := res.Err(); err != nil || len(res.Writes) != 2 {
		t.Errorf("adopt then delete: writes %+v, err %v; want both done", res.Writes, err)
	}
}

// TestApplyStopsAfterAFailedClaim: an adopt patch that fails ends the
// Apply after the claim patches, as upstream's sync returns before manage
// creates or deletes (and before history cleanup and the rolling update);
// an orphan gone since the snapshot is no failure (upstream's claim
// ignores NotFound), and the rest of the plan is issued.
func TestApplyStopsAfterAFailedClaim(t *testing.T) {
	c := readSnapshot(t, 2)
	p := plan(t, c)
	if len(p.Adopt) != 1 || len(p.Create) != 1 || !p.StatusChanged {
		t.Fatalf("precondition: the plan adopts the orphan, creates one pod and updates the status; got adopt %v, %d creates, status changed %v", p.Adopt, len(p.Create), p.StatusChanged)
	}
	pods := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name, reason string
		patchErr     error
		wantErr      bool // Result.Err is not nil
		wantRest     bool // the create and the status update are issued
	}{
		{"conflict", "another controller claimed the orphan first: upstream's sync fails",
			apierrors.NewConflict(pods, "orphan", errors.New("the object has been modified")), true, false},
		{"server error", "a transient failure fails the claim the same way",
			apierrors.NewInternalError(errors.New("etcd timeout")), true, false},
		{"gone", "the orphan was deleted since the snapshot: not adopted, not a failure",
			apierrors.NewNotFound(pods, "orphan"), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := fakeclient.New(c, now)
			fc.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.patchErr
			})
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, p)
			if got := res.Err() != nil; got != tc.wantErr {
				t.Errorf("%s: Err() = %v, want an error: %v", tc.reason, res.Err(), tc.wantErr)
			}
			created, status := wrote(fc, "create", "pods", ""), wrote(fc, "update", "daemonsets", "status")
			if created != tc.wantRest || status != tc.wantRest {
				t.Errorf("%s: pod created %v, status updated %v; want both %v", tc.reason, created, status, tc.wantRest)
			}
		})
	}
}

// TestApplyStopsAfterAFailedRevisionClaim: a revision's adopt patch that
// fails ends the Apply, as upstream's history construction fails before
// anything else of the sync.
func TestApplyStopsAfterAFailedRevisionClaim(t *testing.T) {
	c, err := load.Read(strings.NewReader(cluster + `- apiVersion: apps/v1
  kind: ControllerRevision
  metadata: {name: agent-orphan, namespace: default, uid: rev-uid, labels: {app: agent}}
  data: {spec: {template: {spec: {containers: [{name: agent, image: agent:v0}]}}}}
  revision: 1
`))
	if err != nil {
		t.Fatal(err)
	}
	c.Nodes = append(c.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-00"}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-01"}})
	p := plan(t, c)
	if len(p.Revisions.Adopt) != 1 {
		t.Fatalf("precondition: the plan adopts the orphan revision, got %v", p.Revisions.Adopt)
	}
	fc := fakeclient.New(c, now)
	fc.PrependReactor("patch", "controllerrevisions", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "controllerrevisions"}, "agent-orphan", errors.New("modified"))
	})
	fc.ClearActions()
	res := apply.Apply(context.Background(), fc, c, p)
	if res.Err() == nil {
		t.Error("Err() = nil, want the failed adoption")
	}
	for _, w := range fc.Writes() {
		if w.GetVerb() != "patch" || w.GetResource().Resource != "controllerrevisions" {
			t.Errorf("%s %s %s issued after the failed revision claim", w.GetVerb(), w.GetResource().Resource, w.GetSubresource())
		}
	}
}

// TestApplyAdoptsOnlyOrphans: a plan made from another snapshot may name,
// for adoption, a pod or revision that another controller holds in this
// one: the adopt is refused with ErrNotOrphan and nothing is written to it.
func TestApplyAdoptsOnlyOrphans(t *testing.T) {
	c := readSnapshot(t, 1)
	addForeign(c)
	p := daemonplan.Plan{Namespace: "default", Name: "agent",
		Revisions: daemonplan.RevisionWrites{Adopt: []string{"their-rev"}}, Adopt: []string{"theirs"}}
	fc := fakeclient.New(c, now)
	fc.ClearActions()
	allRefused(t, apply.Apply(context.Background(), fc, c, p), 2, apply.ErrNotOrphan)
	for _, w := range fc.Writes() {
		if w.GetVerb() == "patch" {
			t.Errorf("patch of %s issued to an object another controller holds", w.GetResource().Resource)
		}
	}
}

// addOwned adds to c a pod the DaemonSet controls on node-01 ("mine") and
// an old revision it controls ("agent-old"), for plans made by hand.
func addOwned(c *load.Snapshot) {
	ours := []metav1.OwnerReference{convert.ControllerRef(c.DaemonSet)}
	c.Pods = append(c.Pods, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default", UID: "mine-uid", Labels: map[string]string{"app": "agent"}, OwnerReferences: ours},
		Spec:       corev1.PodSpec{NodeName: "node-01"},
	})
	c.Revisions = append(c.Revisions, &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-old", Namespace: "default", UID: "old-uid", Labels: map[string]string{"app": "agent"}, OwnerReferences: ours},
		Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:v0"}]}}}}`)},
		Revision:   1,
	})
}

// TestApplyStopsAfterAFailedHistoryWrite: a revision update or create, or
// a pod relabel, that the API server refuses ends the Apply there, as
// upstream's history construction fails the sync before manage, the
// rolling update and the status update.
func TestApplyStopsAfterAFailedHistoryWrite(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "", errors.New("denied"))
	tests := []struct {
		name, reason   string
		verb, resource string
		refused        apply.Action
	}{
		{"update refused", "renumbering the old revision fails: upstream's constructHistory returns", "update", "controllerrevisions", apply.UpdateRevision},
		{"create refused", "the current revision cannot be created: no pod may carry its hash", "create", "controllerrevisions", apply.CreateRevision},
		{"relabel refused", "upstream's dedupCurHistories returns on a failed pod patch", "patch", "pods", apply.RelabelPod},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 2)
			p := plan(t, c)
			if len(p.Revisions.Create) != 1 || len(p.Create) == 0 || !p.StatusChanged {
				t.Fatalf("precondition: the plan creates the revision and pods and updates the status; got %+v", p)
			}
			addOwned(c)
			p.Revisions.Update = []revision.Revision{{Name: "agent-old", Revision: 5}}
			p.Relabel = []revision.PodRelabel{{Pod: "mine", Hash: p.Hash}}
			fc := fakeclient.New(c, now)
			fc.PrependReactor(tc.verb, tc.resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "" {
					return false, nil, nil
				}
				// The orphan's adoption, a strategic merge patch issued
				// before the relabel, goes through.
				if pa, ok := a.(k8stesting.PatchAction); ok && pa.GetPatchType() != types.MergePatchType {
					return false, nil, nil
				}
				return true, nil, forbidden
			})
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, p)
			if !errors.Is(res.Err(), forbidden) {
				t.Errorf("%s: Err() = %v, want the refused write", tc.reason, res.Err())
			}
			writes := fc.Writes()
			if len(writes) == 0 {
				t.Fatalf("%s: nothing written", tc.reason)
			}
			if last := writes[len(writes)-1]; last.GetVerb() != tc.verb || last.GetResource().Resource != tc.resource {
				t.Errorf("%s: last write %s %s, want the refused %s %s", tc.reason, last.GetVerb(), last.GetResource().Resource, tc.verb, tc.resource)
			}
			if w := res.Writes[len(res.Writes)-1]; w.Action != tc.refused || w.Err == nil {
				t.Errorf("%s: want the refused %s last, got writes %+v", tc.reason, tc.refused, res.Writes)
			}
		})
	}
}

// TestApplySkipsCleanupAfterAFailedPodWrite: a pod create or delete that
// the API server refuses skips the history cleanup, as upstream's manage
// and rolling update return their error before cleanupHistory; the status
// is written all the same. A pod already gone is no failure.
func TestApplySkipsCleanupAfterAFailedPodWrite(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name, reason string
		verb         string
		err          error
		wantCleanup  bool
	}{
		{"create refused", "a create over quota fails manage", "create", apierrors.NewForbidden(pods, "", errors.New("quota exceeded")), false},
		{"delete refused", "a delete the server fails fails manage", "delete", apierrors.NewInternalError(errors.New("etcd timeout")), false},
		{"pod gone", "a delete of a pod already gone is no error upstream either", "delete", apierrors.NewNotFound(pods, "mine"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Three nodes: the create on node-01, where addOwned puts a
			// pod after the plan was made, is refused (ErrNodeHasPod, no
			// failure); node-02's is issued.
			c := readSnapshot(t, 3)
			p := plan(t, c)
			addOwned(c)
			p.Delete = []placement.Delete{{Pod: "mine", Node: "node-01", Reason: placement.Outdated}}
			p.Revisions.Delete = []string{"agent-old"}
			fc := fakeclient.New(c, now)
			fc.PrependReactor(tc.verb, "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			fc.ClearActions()
			apply.Apply(context.Background(), fc, c, p)
			cleanup, status := wrote(fc, "delete", "controllerrevisions", ""), wrote(fc, "update", "daemonsets", "status")
			if cleanup != tc.wantCleanup || !status {
				t.Errorf("%s: history cleaned up %v, status updated %v; want %v and true", tc.reason, cleanup, status, tc.wantCleanup)
			}
		})
	}
}

// wrote reports whether fc saw a write of verb to resource (and
// subresource, "" for the object itself).
func wrote(fc *fakeclient.Clientset, verb, resource, subresource string) bool {
	for _, w := range fc.Writes() {
		if w.GetVerb() == verb && w.GetResource().Resource == resource && w.GetSubresource() == subresource {
			return true
		}
	}
	return false
}

// plan is the plan for c at now, with zero options.
func plan(t *testing.T, c *load.Snapshot) daemonplan.Plan {
	t.Helper()
	p, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allRefused checks that res holds n writes, each refused with want.
func allRefused(t *testing.T, res apply.Result, n int, want error) {
	t.Helper()
	if len(res.Writes) != n {
		t.Fatalf("Apply wrote %+v, want %d writes refused with %v", res.Writes, n, want)
	}
	for _, w := range res.Writes {
		if !errors.Is(w.Err, want) {
			t.Errorf("%s %s: err %v, want %v", w.Action, w.Name, w.Err, want)
		}
	}
}

// TestApplyAdoptsBeforeRelabelling: with two revisions of the current
// template, upstream de-duplicates them holding the DaemonSet's pods as
// it claims them, so an orphan is adopted before it is relabelled to the
// revision kept. Apply relabelled first and refused the orphan as not
// owned, leaving it with the hash of the revision deleted.
func TestApplyAdoptsBeforeRelabelling(t *testing.T) {
	c := readSnapshot(t, 2)
	data, err := upstream.RevisionData(c.DaemonSet)
	if err != nil {
		t.Fatal(err)
	}
	ours := []metav1.OwnerReference{convert.ControllerRef(c.DaemonSet)}
	for i, hash := range []string{"hash-a", "hash-b"} {
		c.Revisions = append(c.Revisions, &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: "agent-" + hash, Namespace: "default", UID: types.UID("uid-" + hash),
				Labels: map[string]string{"app": "agent", api.LabelRevisionHash: hash}, OwnerReferences: ours},
			Data:     runtime.RawExtension{Raw: data},
			Revision: int64(i + 1),
		})
	}
	c.Pods[0].Labels[api.LabelRevisionHash] = "hash-a"
	p := plan(t, c)
	if !slices.Contains(p.Adopt, "orphan") || !slices.ContainsFunc(p.Relabel, func(r revision.PodRelabel) bool { return r.Pod == "orphan" }) {
		t.Fatalf("precondition: the plan adopts and relabels the orphan; got adopt %v relabel %v", p.Adopt, p.Relabel)
	}
	fc := fakeclient.New(c, now)
	res := apply.Apply(context.Background(), fc, c, p)
	if err := res.Err(); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	checkWritesArePlan(t, p, res, fc)
	after, err := fc.Snapshot(context.Background(), "default", "agent")
	if err != nil {
		t.Fatal(err)
	}
	next := plan(t, after)
	if len(next.Adopt)+len(next.Relabel)+len(next.Revisions.DeleteDuplicates) > 0 {
		t.Errorf("after Apply the next plan still adopts %v, relabels %v, deletes duplicate revisions %v", next.Adopt, next.Relabel, next.Revisions.DeleteDuplicates)
	}
}

// TestApplyRefusesAPlanForAnotherDaemonSet: a plan names its DaemonSet;
// applied to the snapshot of another, its creates would make pods from the
// wrong template and its status land on the wrong object. Apply issues
// nothing, and says why.
func TestApplyRefusesAPlanForAnotherDaemonSet(t *testing.T) {
	c := readSnapshot(t, 2)
	p := plan(t, c)
	if len(p.Create) == 0 || !p.StatusChanged {
		t.Fatalf("precondition: the plan creates pods and writes the status; got %+v", p)
	}
	tests := []struct {
		name, reason  string
		namespace, ds string
	}{
		{"other name", "another DaemonSet of the namespace", "default", "other"},
		{"other namespace", "a DaemonSet of the same name elsewhere", "kube-system", "agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := p
			q.Namespace, q.Name = tt.namespace, tt.ds
			fc := fakeclient.New(c, now)
			fc.ClearActions()
			res := apply.Apply(context.Background(), fc, c, q)
			if !errors.Is(res.Refused, apply.ErrOtherDaemonSet) || !errors.Is(res.Err(), apply.ErrOtherDaemonSet) {
				t.Errorf("%s: Refused = %v, Err() = %v; want ErrOtherDaemonSet", tt.reason, res.Refused, res.Err())
			}
			if w := fc.Writes(); len(w) > 0 || len(res.Writes) > 0 {
				t.Errorf("%s: %d writes issued, %d reported; want none", tt.reason, len(w), len(res.Writes))
			}
		})
	}
	if res := apply.Apply(context.Background(), fakeclient.New(c, now), &load.Snapshot{}, p); res.Refused == nil {
		t.Errorf("a snapshot without a DaemonSet: Refused = nil, want an error")
	}
}

// TestApplyStatusRetryKeepsNewerFields reproduces issue 26's
// "observedGeneration written backwards" against a fake clientset whose
// status write conflicts once and whose re-read returns a DaemonSet newer
// than the snapshot (the tracker never checks resourceVersions, so the
// conflict is a reactor). The retry writes the plan's counters onto the
// fresh object and never moves observedGeneration or collisionCount
// backwards: upstream's storeDaemonSetStatus keeps the fresh
// observedGeneration when the sync did not observe the generation, and
// never touches collisionCount but to bump it on a count that is not
// stale.
func TestApplyStatusRetryKeepsNewerFields(t *testing.T) {
	ptr := func(i int32) *int32 { return &i }
	tests := []struct {
		name, reason string
		// the snapshot's DaemonSet: generation, status.observedGeneration
		// and collisionCount; expectations pending
		gen, observed int64
		pending       bool
		// the plan's collisionCount, when set (a bumped count)
		planCount *int32
		// the DaemonSet read again after the conflict
		freshGen, freshObserved int64
		freshCount              *int32
		// what is stored after Apply, and the write's note
		wantObserved int64
		wantCount    *int32
		wantNote     string
	}{
		{"pending keeps fresh generation", "a sync with expectations pending keeps the input's observedGeneration (3); the fresh status observed 4: upstream keeps 4",
			4, 3, true, nil, 4, 4, ptr(2), 4, ptr(2), ""},
		{"pending from zero", "the issue's 1 → 0: a first pending sync on a DaemonSet whose status the controller had written since",
			1, 0, true, nil, 1, 1, nil, 1, nil, ""},
		{"observed generation written", "the sync observed generation 3 and the fresh status observed 2: 3 is written, as upstream",
			3, 2, false, nil, 3, 2, nil, 3, nil, ""},
		{"newer status not overwritten", "the sync observed generation 3 but the fresh status observed 4: writing 3 would go backwards, nothing is written",
			3, 3, false, nil, 4, 4, ptr(1), 4, ptr(1), apply.NoteStatusNewer},
		{"fresh collision count kept", "the plan did not bump the count; the fresh one (2) is kept, not the snapshot's (nil)",
			3, 2, false, nil, 3, 2, ptr(2), 3, ptr(2), ""},
		{"bump on a current count", "the plan bumped the count from the snapshot's nil to 1 and the fresh count is still nil: 1 is written",
			3, 2, false, ptr(1), 3, 2, nil, 3, ptr(1), ""},
		{"bump on a stale count", "the plan bumped nil to 1 but the fresh count is already 1 (bumped since): upstream's stale check keeps the fresh one",
			3, 2, false, ptr(1), 3, 2, ptr(1), 3, ptr(1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 1)
			c.Pods = nil
			c.DaemonSet.Generation = tc.gen
			c.DaemonSet.Status.ObservedGeneration = tc.observed
			p, err := kubesync.Sync(c, now, kubesync.State{ExpectationsPending: tc.pending}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.planCount != nil {
				p.Status.CollisionCount = tc.planCount
			}
			// Only the status write: the revision and pod writes are
			// another test's business.
			p.Create, p.Revisions = nil, daemonplan.RevisionWrites{}
			if !p.StatusChanged {
				t.Fatalf("precondition: the plan writes a status")
			}
			fc := fakeclient.New(c, now)
			fresh := c.DaemonSet.DeepCopy()
			fresh.Generation = tc.freshGen
			fresh.Status.ObservedGeneration = tc.freshObserved
			fresh.Status.CollisionCount = tc.freshCount
			if _, err := fc.AppsV1().DaemonSets("default").Update(context.Background(), fresh, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := fc.AppsV1().DaemonSets("default").UpdateStatus(context.Background(), fresh, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			conflicts := 1
			fc.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() == "status" && conflicts > 0 {
					conflicts--
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("the object has been modified"))
				}
				return false, nil, nil
			})
			res := apply.Apply(context.Background(), fc, c, p)
			if err := res.Err(); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			w := res.Writes[len(res.Writes)-1]
			if w.Action != apply.UpdateStatus || w.Note != tc.wantNote {
				t.Errorf("%s: last write %+v, want UpdateStatus with note %q", tc.reason, w, tc.wantNote)
			}
			ds, err := fc.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.Status.ObservedGeneration != tc.wantObserved || !reflect.DeepEqual(ds.Status.CollisionCount, tc.wantCount) {
				t.Errorf("%s: stored observedGeneration %d, collisionCount %v; want %d and %v",
					tc.reason, ds.Status.ObservedGeneration, fmtCount(ds.Status.CollisionCount), tc.wantObserved, fmtCount(tc.wantCount))
			}
			if tc.wantNote == "" && ds.Status.DesiredNumberScheduled != p.Status.DesiredNumberScheduled {
				t.Errorf("%s: the retry did not write the plan's counters: %+v", tc.reason, ds.Status)
			}
			if (res.DaemonSet != nil) != (tc.wantNote == "") {
				t.Errorf("Result.DaemonSet = %v, want it set only when a status was written", res.DaemonSet)
			}
		})
	}
}

func fmtCount(c *int32) string {
	if c == nil {
		return "nil"
	}
	return strconv.Itoa(int(*c))
}

// TestApplyStatusRetrySkipsNoOp: after a conflict, a fresh DaemonSet that
// already holds the planned status (another sync's write) gets no write.
func TestApplyStatusRetrySkipsNoOp(t *testing.T) {
	c := readSnapshot(t, 1)
	// With a resourceVersion the status is written first, without a read.
	c.DaemonSet.ResourceVersion = "1"
	p := plan(t, c)
	p.Create, p.Adopt, p.Delete, p.Revisions = nil, nil, nil, daemonplan.RevisionWrites{}
	fc := fakeclient.New(c, now)
	written := convert.DaemonSetWithStatus(c.DaemonSet, p.Status)
	if _, err := fc.AppsV1().DaemonSets("default").UpdateStatus(context.Background(), written, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	statusWrites := 0
	fc.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" {
			statusWrites++
			if statusWrites == 1 {
				return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "agent", errors.New("the object has been modified"))
			}
		}
		return false, nil, nil
	})
	res := apply.Apply(context.Background(), fc, c, p)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if statusWrites != 1 || res.Writes[len(res.Writes)-1].Note != apply.NoteStatusCurrent {
		t.Errorf("%d status writes, last write %+v; want one (the conflict) and NoteStatusCurrent", statusWrites, res.Writes[len(res.Writes)-1])
	}
}
