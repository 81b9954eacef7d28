package convert_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// FuzzConvert decodes objects from the fuzzer's bytes (as the loader does)
// and converts each one, checking that conversion never changes its input,
// gives the same result twice, and keeps what the planner decides on:
// names and UIDs, the controller reference (the first one marked
// controller, UID kept, empty or not), deletion, readiness, the node,
// taints, labels, budgets, and the exact revision data.
func FuzzConvert(f *testing.F) {
	cases, err := conformance.SmallestCases(3)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Cluster)
	}
	if b, err := os.ReadFile("testdata/cluster.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","ownerReferences":[{"kind":"ReplicaSet","name":"a","uid":""},{"kind":"DaemonSet","name":"b","controller":true}]},"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"Ready","status":"True"}]}}`))
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"9223372036854775807%","maxSurge":3}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := load.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, ds := range objs.DaemonSets {
			before := ds.DeepCopy()
			got, err := convert.DaemonSet(ds)
			if !equality.Semantic.DeepEqual(before, ds) {
				t.Fatalf("DaemonSet changed its input")
			}
			if err != nil {
				continue
			}
			again, _ := convert.DaemonSet(ds)
			if d := cmp.Diff(got, again); d != "" {
				t.Fatalf("DaemonSet converts differently twice:\n%s", d)
			}
			data, _ := upstream.RevisionData(ds)
			if !bytes.Equal(got.TemplateData, data) {
				t.Fatalf("TemplateData is not upstream's revision data")
			}
			if got.Name != ds.Name || got.Namespace != ds.Namespace || got.UID != string(ds.UID) || got.Deleting != (ds.DeletionTimestamp != nil) {
				t.Fatalf("identity lost: %s/%s %q deleting %v", got.Namespace, got.Name, got.UID, got.Deleting)
			}
			if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil {
				checkBudget(t, ru.MaxUnavailable, got.UpdateStrategy.RollingUpdate.MaxUnavailable)
				checkBudget(t, ru.MaxSurge, got.UpdateStrategy.RollingUpdate.MaxSurge)
			}
			if hf, err := convert.HashFunc(ds, upstream.Latest); err != nil {
				t.Fatalf("HashFunc: %v", err)
			} else {
				_ = hf(got, ds.Status.CollisionCount)
			}
		}
		for _, n := range objs.Nodes {
			before := n.DeepCopy()
			got := convert.Node(n)
			if !equality.Semantic.DeepEqual(before, n) {
				t.Fatalf("Node changed its input")
			}
			if got.Name != n.Name || len(got.Taints) != len(n.Spec.Taints) || !equality.Semantic.DeepEqual(got.Labels, n.Labels) {
				t.Fatalf("node %q converted to %+v", n.Name, got)
			}
			for i, tt := range n.Spec.Taints {
				if g := got.Taints[i]; g.Key != tt.Key || g.Value != tt.Value || string(g.Effect) != string(tt.Effect) {
					t.Fatalf("taint %d: %+v from %+v", i, g, tt)
				}
			}
		}
		for _, p := range objs.Pods {
			before := p.DeepCopy()
			got := convert.Pod(p)
			if !equality.Semantic.DeepEqual(before, p) {
				t.Fatalf("Pod changed its input")
			}
			if got.Name != p.Name || got.Namespace != p.Namespace || got.UID != string(p.UID) || got.NodeName != p.Spec.NodeName ||
				got.Deleting != (p.DeletionTimestamp != nil) {
				t.Fatalf("pod identity lost: %+v", got)
			}
			checkController(t, p.OwnerReferences, got.Controller)
			ready := false
			for _, c := range p.Status.Conditions {
				if c.Type == "Ready" {
					ready = c.Status == "True"
					break
				}
			}
			if got.Ready != ready {
				t.Fatalf("pod %s: Ready %v, want %v", p.Name, got.Ready, ready)
			}
		}
		for _, cr := range objs.Revisions {
			before := cr.DeepCopy()
			got := convert.Revision(cr)
			if !equality.Semantic.DeepEqual(before, cr) {
				t.Fatalf("Revision changed its input")
			}
			if got.Name != cr.Name || got.Revision != cr.Revision || !bytes.Equal(got.Data, upstream.StoredData(cr.Data.Raw)) {
				t.Fatalf("revision %s converted to %+v", cr.Name, got)
			}
			checkController(t, cr.OwnerReferences, got.Controller)
		}
	})
}

// checkController: the controller is the first owner reference marked
// controller, with its UID as it is, or nil.
func checkController(t *testing.T, refs []metav1.OwnerReference, got *api.OwnerRef) {
	t.Helper()
	var want *api.OwnerRef
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			want = &api.OwnerRef{Kind: r.Kind, Name: r.Name, UID: string(r.UID)}
			break
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("controller mismatch (-want +got):\n%s", d)
	}
}

func checkBudget(t *testing.T, in *intstr.IntOrString, got *api.IntOrPercent) {
	t.Helper()
	switch {
	case in == nil:
		if got != nil {
			t.Fatalf("budget from nothing: %+v", got)
		}
	case in.Type == intstr.String:
		if got == nil || !got.IsString || got.StrVal != in.StrVal {
			t.Fatalf("budget %q converted to %+v", in.StrVal, got)
		}
	default:
		if got == nil || got.IsString || got.IntVal != in.IntVal {
			t.Fatalf("budget %d converted to %+v", in.IntVal, got)
		}
	}
}
