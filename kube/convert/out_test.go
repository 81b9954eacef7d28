package convert_test

import (
	"bytes"
	"strings"
	"testing"

	upstreampkg "github.com/daemonplan/daemonplan/kube/upstream"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// TestNewPodConformance builds the pod of every create daemonplan plans for
// the conformance cases and compares it with the pod the real controller
// created on that node (labels and tolerations, in order, are recorded in
// expected.json and its alternatives), and checks the rules the cases do
// not record: generateName, the owner reference and the pinned affinity.
func TestNewPodConformance(t *testing.T) {
	conformance.SkipIfAbsent(t)
	var cases []conformance.Case
	var versions []upstreampkg.Version
	for _, set := range conformance.Sets() {
		v, err := upstreampkg.ParseVersion(set.Version)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := conformance.Cases(set.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			cases = append(cases, c)
			versions = append(versions, v)
		}
	}
	var compared int
	for i, tc := range cases {
		cl, err := load.Read(bytes.NewReader(tc.Cluster))
		if err != nil {
			t.Fatalf("%s: load.Read: %v", tc.Name, err)
		}
		p, err := kubesync.Sync(cl, tc.Now, kubesync.State{}, kubesync.Options{KubernetesVersion: versions[i]})
		if err != nil {
			t.Fatalf("%s: Plan: %v", tc.Name, err)
		}
		upstream := map[string]conformance.Create{}
		for _, c := range tc.Want.Create {
			upstream[c.Node] = c
		}
		for _, alt := range tc.Want.Alternatives {
			for _, c := range alt.Create {
				upstream[c.Node] = c
			}
		}
		ds := cl.DaemonSet
		for _, c := range p.Create {
			pod, err := convert.NewPod(ds, c)
			if err != nil {
				t.Errorf("%s: NewPod(%s): %v", tc.Name, c.Node, err)
				continue
			}
			checkPodShape(t, tc.Name, ds, c.Node, pod)
			want, ok := upstream[c.Node]
			if !ok {
				continue // Plan's own conformance test reports a create upstream never chose.
			}
			compared++
			if diff := cmp.Diff(want.Labels, pod.Labels); diff != "" {
				t.Errorf("%s: pod labels on %s mismatch (-upstream +NewPod):\n%s", tc.Name, c.Node, diff)
			}
			if diff := cmp.Diff(want.Tolerations, schemaTolerations(pod.Spec.Tolerations)); diff != "" {
				t.Errorf("%s: pod tolerations on %s mismatch (-upstream +NewPod):\n%s", tc.Name, c.Node, diff)
			}
		}
	}
	if compared == 0 {
		t.Fatal("no create compared: the cases hold creates, so the test is broken")
	}
	t.Logf("%d created pods compared with upstream's", compared)
}

func checkPodShape(t *testing.T, name string, ds *appsv1.DaemonSet, node string, pod *corev1.Pod) {
	t.Helper()
	if pod.GenerateName != ds.Name+"-" || pod.Name != "" {
		t.Errorf("%s: name %q generateName %q, want generateName %q", name, pod.Name, pod.GenerateName, ds.Name+"-")
	}
	want := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if diff := cmp.Diff(want, pod.OwnerReferences); diff != "" {
		t.Errorf("%s: owner references mismatch (-want +got):\n%s", name, diff)
	}
	na := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	pin := []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}
	if diff := cmp.Diff(pin, na); diff != "" {
		t.Errorf("%s: required node affinity mismatch (-want +got):\n%s", name, diff)
	}
}

func schemaTolerations(ts []corev1.Toleration) []conformance.Toleration {
	out := make([]conformance.Toleration, 0, len(ts))
	for _, t := range ts {
		out = append(out, conformance.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	return out
}

func TestReplaceNodeNameNodeAffinity(t *testing.T) {
	pin := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}
	pinned := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{pin}}
	preferred := []corev1.PreferredSchedulingTerm{{Weight: 5, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
	podAff := &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}}}
	tests := []struct {
		name, reason string
		in, want     *corev1.Affinity
	}{
		{"nil", "a new affinity holding only the pin", nil, &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"no node affinity", "pod affinity is kept, node affinity added",
			&corev1.Affinity{PodAffinity: podAff},
			&corev1.Affinity{PodAffinity: podAff, NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"preferred only", "preferred terms are kept and the required selector set",
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred, RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"two required terms", "every user term is replaced by the one pin, as upstream does",
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: preferred,
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gpu", Operator: corev1.NodeSelectorOpExists}}},
					{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"n2"}}}},
				}}}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred, RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before *corev1.Affinity
			if tc.in != nil {
				before = tc.in.DeepCopy()
			}
			got := convert.ReplaceNodeNameNodeAffinity(tc.in, "n1")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReplaceNodeNameNodeAffinity() mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("input changed:\n%s", diff)
			}
		})
	}
}

func TestNewPod(t *testing.T) {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u1"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}, Annotations: map[string]string{"a": "b"}, Finalizers: []string{"f"}},
			Spec: corev1.PodSpec{
				Containers:  []corev1.Container{{Name: "c", Image: "i"}},
				Tolerations: []corev1.Toleration{{Key: "user", Operator: corev1.TolerationOpExists}},
			},
		}},
	}
	before := ds.DeepCopy()
	c := placement.Create{
		Node:        "n1",
		Labels:      map[string]string{"app": "agent", api.LabelRevisionHash: "h", api.LabelTemplateGeneration: "1"},
		Tolerations: []api.Toleration{{Key: "user", Operator: api.TolerationOpExists}, {Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}},
	}
	pod, err := convert.NewPod(ds, c)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "agent-", Namespace: "ns",
			Labels:          c.Labels,
			Annotations:     map[string]string{"a": "b"},
			Finalizers:      []string{"f"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "u1", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "i"}},
			Tolerations: []corev1.Toleration{
				{Key: "user", Operator: corev1.TolerationOpExists},
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			},
			Affinity: convert.ReplaceNodeNameNodeAffinity(nil, "n1"),
		},
	}
	if diff := cmp.Diff(want, pod); diff != "" {
		t.Errorf("NewPod() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Errorf("NewPod changed the DaemonSet:\n%s", diff)
	}
	pod.Labels["x"], pod.Annotations["x"] = "y", "y"
	if _, ok := c.Labels["x"]; ok || ds.Spec.Template.Annotations["x"] != "" {
		t.Error("the pod shares maps with its inputs")
	}

	if _, err := convert.NewPod(ds, placement.Create{Node: "n1"}); err != convert.ErrNoLabels {
		t.Errorf("NewPod(no labels) error = %v, want ErrNoLabels", err)
	}
	// upstream getPodsPrefix checks "<name>-" with its last two characters
	// masked as "a": only a name invalid already is used bare.
	for _, name := range []string{strings.Repeat("a", 253), "Agent", strings.Repeat("a", 255)} {
		bad := ds.DeepCopy()
		bad.Name = name
		want := name + "-"
		if name != strings.Repeat("a", 253) {
			want = name
		}
		if pod, _ := convert.NewPod(bad, c); pod.GenerateName != want {
			t.Errorf("generateName of %q = %q, want %q (upstream getPodsPrefix)", name, pod.GenerateName, want)
		}
	}
}

func TestNewControllerRevisionAndStatus(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u1"}}
	r := revision.Revision{Name: "agent-h", Labels: map[string]string{"app": "agent", api.LabelRevisionHash: "h"}, Annotations: map[string]string{"k": "v"}, Revision: 3, Data: []byte(`{"spec":{}}`)}
	got := convert.NewControllerRevision(ds, r)
	want := &appsv1.ControllerRevision{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "agent-h", Namespace: "ns", Labels: r.Labels, Annotations: r.Annotations,
			OwnerReferences: []metav1.OwnerReference{convert.ControllerRef(ds)},
		},
		Data:     runtime.RawExtension{Raw: []byte(`{"spec":{}}`)},
		Revision: 3,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewControllerRevision() mismatch (-want +got):\n%s", diff)
	}

	cur := want.DeepCopy()
	cur.ResourceVersion = "7"
	up := convert.UpdatedControllerRevision(cur, revision.Revision{Labels: map[string]string{api.LabelRevisionHash: "h2"}, Revision: 9})
	if up.Revision != 9 || up.Labels[api.LabelRevisionHash] != "h2" || up.ResourceVersion != "7" || cur.Revision != 3 {
		t.Errorf("UpdatedControllerRevision = revision %d labels %v rv %q (input revision now %d)", up.Revision, up.Labels, up.ResourceVersion, cur.Revision)
	}

	old := appsv1.DaemonSetStatus{NumberReady: 1, Conditions: []appsv1.DaemonSetCondition{{Type: "X"}}}
	st := convert.DaemonSetStatus(old, api.Status{CurrentNumberScheduled: 1, NumberMisscheduled: 2, DesiredNumberScheduled: 3, NumberReady: 4, ObservedGeneration: 5, UpdatedNumberScheduled: 6, NumberAvailable: 7, NumberUnavailable: 8, CollisionCount: ptr(int32(9))})
	wantSt := appsv1.DaemonSetStatus{CurrentNumberScheduled: 1, NumberMisscheduled: 2, DesiredNumberScheduled: 3, NumberReady: 4, ObservedGeneration: 5, UpdatedNumberScheduled: 6, NumberAvailable: 7, NumberUnavailable: 8, CollisionCount: ptr(int32(9)), Conditions: old.Conditions}
	if diff := cmp.Diff(wantSt, st); diff != "" {
		t.Errorf("DaemonSetStatus() mismatch (-want +got):\n%s", diff)
	}
}
