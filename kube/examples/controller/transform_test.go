package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/daemonplan/daemonplan/kube/internal/bigdump"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// filler fills objects at random from seed, every field present (no nil,
// one element per list and map) with valid quantities and non-zero
// times, so that a field the transform keeps shows in the JSON.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 1).MaxDepth(20).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.Unix(1_700_000_000+c.Int63n(1_000_000), 0).Rfc3339Copy()
		},
		func(r *runtime.RawExtension, c randfill.Continue) { r.Raw = []byte(`{"k":"v"}`) },
		func(s *string, c randfill.Continue) { *s = "s" + c.String(4) },
	)
}

// jsonPaths returns the paths of the fields present in obj's JSON,
// descending into objects but not into the fields of whole (kept as a
// whole: maps with random keys, lists of structs), lists written as
// "[]".
func jsonPaths(t *testing.T, obj any, whole ...string) []string {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if slices.Contains(whole, path) {
			out = append(out, path)
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(strings.TrimPrefix(path+"."+k, "."), e)
			}
		case []any:
			for _, e := range v {
				walk(path+"[]", e)
			}
		case nil:
		default:
			// A zero value is printed for a field without omitempty in a
			// struct kept as a zero value: not kept.
			if v != "" && v != 0.0 && v != false {
				out = append(out, path)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTrimFields lists every field the transform keeps of a node and a
// pod filled with every field there is: a field added to the list (or
// lost from it) changes this list, and so is a decision someone made.
func TestTrimFields(t *testing.T) {
	whole := []string{"metadata.labels", "metadata.ownerReferences", "spec.taints",
		"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"}
	for seed := range int64(5) {
		var node corev1.Node
		var pod corev1.Pod
		filler(seed).Fill(&node)
		filler(seed).Fill(&pod)
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, Reason: "r", Message: "m",
			LastTransitionTime: metav1.Unix(1, 0), LastProbeTime: metav1.Unix(2, 0)})
		for _, tc := range []struct {
			name string
			got  any
			want []string
		}{
			{"node", trimNode(&node), []string{"apiVersion", "kind", "metadata.labels", "metadata.name", "metadata.resourceVersion", "metadata.uid",
				"spec.taints"}},
			{"pod", trimPod(&pod), []string{"apiVersion", "kind", "metadata.creationTimestamp", "metadata.deletionTimestamp", "metadata.labels",
				"metadata.name", "metadata.namespace", "metadata.ownerReferences", "metadata.resourceVersion", "metadata.uid",
				"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", "spec.nodeName",
				"status.conditions[].lastTransitionTime", "status.conditions[].status", "status.conditions[].type", "status.phase"}},
		} {
			if diff := cmp.Diff(tc.want, jsonPaths(t, tc.got, whole...)); diff != "" {
				t.Errorf("seed %d: %s fields kept mismatch (-want +got):\n%s", seed, tc.name, diff)
			}
		}
	}
}

// TestTrimObjects checks the transform by kind: a node and a pod become
// new objects and their input is unchanged; a DaemonSet and a revision
// lose their managedFields only; a second pass changes nothing; anything
// else passes through.
func TestTrimObjects(t *testing.T) {
	var node corev1.Node
	var pod corev1.Pod
	var ds appsv1.DaemonSet
	var cr appsv1.ControllerRevision
	for _, o := range []any{&node, &pod, &ds, &cr} {
		filler(1).Fill(o)
	}
	nodeBefore, podBefore := node.DeepCopy(), pod.DeepCopy()
	dsWant, crWant := ds.DeepCopy(), cr.DeepCopy()
	dsWant.ManagedFields, crWant.ManagedFields = nil, nil
	for _, tc := range []struct {
		name string
		in   any
		want any
	}{
		{"node: its trimmed copy", &node, trimNode(nodeBefore)},
		{"pod: its trimmed copy", &pod, trimPod(podBefore)},
		{"DaemonSet: all but managedFields", &ds, dsWant},
		{"revision: all but managedFields", &cr, crWant},
		{"tombstone: unchanged (client-go never passes one)", "not an object", "not an object"},
	} {
		got, err := trim(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: trim mismatch (-want +got):\n%s", tc.name, diff)
		}
		again, err := trim(got)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("%s: trim is not idempotent (-once +twice):\n%s", tc.name, diff)
		}
	}
	if diff := cmp.Diff(nodeBefore, &node); diff != "" {
		t.Errorf("trim changed its node (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(podBefore, &pod); diff != "" {
		t.Errorf("trim changed its pod (-before +after):\n%s", diff)
	}
}

// trimmed is s as the controller's informers hold it.
func trimmed(t *testing.T, s *load.Snapshot) *load.Snapshot {
	t.Helper()
	out := &load.Snapshot{}
	do := func(obj any) any {
		got, err := trim(obj)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	out.DaemonSet = do(s.DaemonSet.DeepCopy()).(*appsv1.DaemonSet)
	for _, n := range s.Nodes {
		out.Nodes = append(out.Nodes, do(n).(*corev1.Node))
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, do(p).(*corev1.Pod))
	}
	for _, r := range s.Revisions {
		out.Revisions = append(out.Revisions, do(r.DeepCopy()).(*appsv1.ControllerRevision))
	}
	return out
}

// noisy is s with every node and pod field the transform drops set at
// random (from seed), and the kept ones as they were: a plan that reads a
// dropped field reads noise here.
func noisy(s *load.Snapshot, seed int64) *load.Snapshot {
	out := &load.Snapshot{DaemonSet: s.DaemonSet, Revisions: s.Revisions}
	f := randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 2).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(1_700_000_000+c.Int63n(1_000_000), 0) },
		func(r *runtime.RawExtension, c randfill.Continue) { r.Raw = []byte(`{"k":"v"}`) },
	)
	for _, n := range s.Nodes {
		kept := trimNode(n)
		var x corev1.Node
		f.Fill(&x)
		x.TypeMeta = kept.TypeMeta
		x.Name, x.UID, x.ResourceVersion, x.Labels = kept.Name, kept.UID, kept.ResourceVersion, kept.Labels
		x.Spec.Taints = kept.Spec.Taints
		out.Nodes = append(out.Nodes, &x)
	}
	for _, p := range s.Pods {
		kept := trimPod(p)
		var x corev1.Pod
		f.Fill(&x)
		x.TypeMeta = kept.TypeMeta
		m := &x.ObjectMeta
		m.Name, m.Namespace, m.UID, m.ResourceVersion, m.Labels = kept.Name, kept.Namespace, kept.UID, kept.ResourceVersion, kept.Labels
		m.OwnerReferences, m.CreationTimestamp, m.DeletionTimestamp = kept.OwnerReferences, kept.CreationTimestamp, kept.DeletionTimestamp
		x.Spec.NodeName = kept.Spec.NodeName
		if x.Spec.Affinity == nil {
			x.Spec.Affinity = &corev1.Affinity{}
		}
		if x.Spec.Affinity.NodeAffinity == nil {
			x.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		x.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		if kept.Spec.Affinity != nil {
			x.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = kept.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		x.Status.Phase = kept.Status.Phase
		// The random conditions, none of them Ready, after the kept Ready
		// condition with random reason, message and probe time.
		conds := slices.DeleteFunc(x.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
		if len(kept.Status.Conditions) > 0 {
			var ready corev1.PodCondition
			f.Fill(&ready)
			k := kept.Status.Conditions[0]
			ready.Type, ready.Status, ready.LastTransitionTime = k.Type, k.Status, k.LastTransitionTime
			conds = append([]corev1.PodCondition{ready}, conds...)
		}
		x.Status.Conditions = conds
		out.Pods = append(out.Pods, &x)
	}
	return out
}

// TestTrimKeepsThePlan is the transform's guard: on every conformance
// case (the real controller's observed syncs) and on bigdump's cluster
// (objects with every part a real cluster's have), the plan of the objects as
// recorded, as the transform leaves them, and with everything it drops
// replaced by random values, are the same plan. A rule that
// reads a field the transform drops fails here instead of deciding from
// a zero value in the controller.
func TestTrimKeepsThePlan(t *testing.T) {
	conformance.SkipIfAbsent(t)
	check := func(name string, cl *load.Snapshot, c conformance.Case, v upstream.Version) {
		opts := kubesync.Options{KubernetesVersion: v}
		want := planJSON(t, cl, c, opts, v)
		variants := map[string]*load.Snapshot{"trimmed": trimmed(t, cl), "noise": noisy(cl, int64(len(c.Cluster)+len(cl.Nodes)))}
		for _, vn := range slices.Sorted(maps.Keys(variants)) {
			if diff := cmp.Diff(want, planJSON(t, variants[vn], c, opts, v)); diff != "" {
				t.Errorf("%s, %s: plan mismatch (-recorded objects +%s):\n%s", name, vn, vn, diff)
			}
		}
	}
	var dump bytes.Buffer
	if err := bigdump.Write(&dump, 50); err != nil {
		t.Fatal(err)
	}
	cl, err := load.Read(&dump)
	if err != nil {
		t.Fatal(err)
	}
	check("bigdump", cl, conformance.Case{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, upstream.V1_37)
	n := 0
	for _, set := range conformance.Sets() {
		v, err := upstream.ParseVersion(set.Version)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := conformance.Cases(set.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			cl, err := load.Read(bytes.NewReader(c.Cluster))
			if err != nil {
				t.Fatal(err)
			}
			check("v"+set.Version+"/"+c.Name, cl, c, v)
			n++
		}
	}
	t.Logf("%d cases, each planned from 3 versions of its objects", n)
}

func planJSON(t *testing.T, s *load.Snapshot, c conformance.Case, opts kubesync.Options, v upstream.Version) string {
	t.Helper()
	p, err := kubesync.Sync(s, c.Now, kubesync.State{}, opts)
	if err != nil {
		return "error: " + err.Error()
	}
	data, err := json.MarshalIndent(kubesync.JSON(p, v), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
