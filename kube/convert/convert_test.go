package convert_test

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/conformance"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/resource"
	"github.com/daemonplan/daemonplan/revision"
)

func ptr[T any](v T) *T { return &v }

func readSnapshot(t *testing.T) *load.Snapshot {
	t.Helper()
	f, err := os.Open("testdata/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := load.Read(f)
	if err != nil {
		t.Fatalf("load.Read: %v", err)
	}
	return c
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestDaemonSet(t *testing.T) {
	c := readSnapshot(t)
	before := c.DaemonSet.DeepCopy()
	got, err := convert.DaemonSet(c.DaemonSet)
	if err != nil {
		t.Fatalf("DaemonSet: %v", err)
	}
	if !reflect.DeepEqual(before, c.DaemonSet) {
		t.Error("DaemonSet changed its input")
	}
	wantData, err := upstream.RevisionData(c.DaemonSet)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.TemplateData, wantData) {
		t.Errorf("TemplateData = %s, want RevisionData %s", got.TemplateData, wantData)
	}
	got.TemplateData = nil
	want := &api.DaemonSet{
		Namespace:   "kube-system",
		Name:        "agent",
		UID:         "ds-uid",
		Generation:  3,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		Deleting:    true,
		Selector: &api.LabelSelector{
			MatchLabels:      map[string]string{"app": "agent"},
			MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.SelectorOpNotIn, Values: []string{"web"}}},
		},
		Template: api.PodTemplate{
			Labels:       map[string]string{"app": "agent"},
			Annotations:  map[string]string{"note": "<b>"},
			NodeName:     "node-1",
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{
				{
					MatchExpressions: []api.NodeSelectorRequirement{{Key: "gen", Operator: api.SelectorOpGt, Values: []string{"3"}}},
					MatchFields:      []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"node-1"}}},
				},
				{},
			}},
			Tolerations: []api.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				{Key: "dedicated", Value: "infra"},
			},
			HostNetwork:           true,
			RestartPolicy:         "OnFailure",
			ActiveDeadlineSeconds: ptr(int64(60)),
			Containers: []api.Container{{
				Name: "agent", Image: "agent:v1",
				Resources: api.Resources{
					Requests: resource.List{"cpu": resource.MustParse("100m")},
					Limits:   resource.List{"memory": resource.MustParse("1536Mi")},
				},
				Ports: []api.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100, Protocol: "TCP", HostIP: "10.0.0.1"}},
			}},
			InitContainers: []api.Container{{
				Name: "proxy", Image: "proxy:2", RestartPolicy: api.ContainerRestartPolicyAlways,
				Resources: api.Resources{Requests: resource.List{"cpu": resource.MustParse("50m"), "example.com/gpu": resource.MustParse("1")}},
			}},
			Overhead:  resource.List{"cpu": resource.MustParse("10m")},
			Resources: api.Resources{Limits: resource.List{"cpu": resource.MustParse("2")}},
		},
		UpdateStrategy: api.UpdateStrategy{
			Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{
				MaxUnavailable: api.Percent("25%"),
				MaxSurge:       api.Int(0),
			},
		},
		MinReadySeconds:      5,
		RevisionHistoryLimit: ptr(int32(4)),
		Status: api.Status{
			CurrentNumberScheduled: 1, NumberMisscheduled: 2, DesiredNumberScheduled: 3, NumberReady: 4,
			ObservedGeneration: 5, UpdatedNumberScheduled: 6, NumberAvailable: 7, NumberUnavailable: 8,
			CollisionCount: ptr(int32(9)),
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DaemonSet() mismatch (-want +got):\n%s", d)
	}
}

func TestDaemonSetMinimal(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		ds     *appsv1.DaemonSet
		want   *api.DaemonSet
	}{
		{
			name:   "zero",
			reason: "nil selector, affinity, budgets and limits stay nil; an empty strategy type stays empty",
			ds:     &appsv1.DaemonSet{},
			want:   &api.DaemonSet{},
		},
		{
			name:   "OnDelete without rollingUpdate",
			reason: "RollingUpdate params are nil when the API object has none",
			ds: &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}},
				}},
			}},
			want: &api.DaemonSet{UpdateStrategy: api.UpdateStrategy{Type: api.OnDelete}},
		},
		{
			name:   "empty required node affinity",
			reason: "a required selector with no terms is kept: it matches nothing",
			ds: &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{
				Selector: nil,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{},
					}},
				}},
			}},
			want: &api.DaemonSet{Template: api.PodTemplate{
				RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convert.DaemonSet(tt.ds)
			if err != nil {
				t.Fatalf("DaemonSet: %v", err)
			}
			if len(got.TemplateData) == 0 {
				t.Errorf("%s: TemplateData is empty", tt.reason)
			}
			got.TemplateData = nil
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s: DaemonSet() mismatch (-want +got):\n%s", tt.reason, d)
			}
		})
	}
}

func TestNodes(t *testing.T) {
	c := readSnapshot(t)
	want := []api.Node{
		{Name: "node-1", Labels: map[string]string{"gen": "4"}, Taints: []api.Taint{
			{Key: "node.kubernetes.io/not-ready", Effect: api.TaintEffectNoExecute},
			{Key: "dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		}},
		{Name: "node-2"},
	}
	if d := cmp.Diff(want, convert.Nodes(c.Nodes)); d != "" {
		t.Errorf("Nodes() mismatch (-want +got):\n%s", d)
	}
}

func TestPods(t *testing.T) {
	c := readSnapshot(t)
	before := make([]*corev1.Pod, len(c.Pods))
	for i, p := range c.Pods {
		before[i] = p.DeepCopy()
	}
	want := []api.Pod{
		{
			Namespace:  "kube-system",
			Name:       "agent-abcde",
			UID:        "pod-uid",
			Labels:     map[string]string{"app": "agent", api.LabelRevisionHash: "5d8f9c"},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"},
			RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
				MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"node-2"}}},
			}}},
			Phase:      api.PodRunning,
			Ready:      true,
			ReadySince: at("2025-06-01T10:01:00Z"),
			Created:    at("2025-06-01T08:00:00Z"),
			Deleting:   true,
		},
		{
			Namespace:  "kube-system",
			Name:       "orphan",
			NodeName:   "node-1",
			Phase:      api.PodPending,
			ReadySince: at("2025-06-01T10:01:00Z"),
		},
	}
	got := convert.Pods(c.Pods)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Pods() mismatch (-want +got):\n%s", d)
	}
	if got[0].Created.Location() != time.UTC {
		t.Errorf("Created in %v, want UTC", got[0].Created.Location())
	}
	if !reflect.DeepEqual(before, c.Pods) {
		t.Error("Pods changed its input")
	}
}

func TestRevisions(t *testing.T) {
	c := readSnapshot(t)
	want := []revision.Revision{{
		Namespace:   "kube-system",
		Name:        "agent-5d8f9c",
		Labels:      map[string]string{api.LabelRevisionHash: "5d8f9c"},
		Annotations: map[string]string{api.AnnotationChangeCause: "rollout"},
		Controller:  &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"},
		Revision:    2,
		Data:        []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}}}}}`),
	}}
	if d := cmp.Diff(want, convert.Revisions(c.Revisions)); d != "" {
		t.Errorf("Revisions() mismatch (-want +got):\n%s", d)
	}
}

func TestHashFunc(t *testing.T) {
	c := readSnapshot(t)
	snap, err := convert.DaemonSet(c.DaemonSet)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range upstream.Versions() {
		h, err := convert.HashFunc(c.DaemonSet, v)
		if err != nil {
			t.Fatalf("HashFunc(ds, %v) error = %v", v, err)
		}
		for _, cc := range []*int32{nil, ptr(int32(0)), ptr(int32(9))} {
			want, _ := v.Hash(&c.DaemonSet.Spec.Template, cc)
			if got := h(snap, cc); got != want {
				t.Errorf("HashFunc(ds, %v)(snap, %v) = %q, want %q", v, cc, got, want)
			}
		}
	}
	if _, err := convert.HashFunc(c.DaemonSet, upstream.Version(0)); err == nil {
		t.Error("HashFunc(ds, Version(0)) error = nil, want an unsupported-version error")
	}
}

// TestConformanceCasesConvert converts every conformance cluster and checks
// that each existing revision upstream kept as current is recognised by the
// core rule, Data == TemplateData.
func TestConformanceCasesConvert(t *testing.T) {
	conformance.SkipIfAbsent(t)
	cases, err := conformance.Cases(conformance.CasesDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		cl, err := load.Read(bytes.NewReader(tc.Cluster))
		if err != nil {
			t.Fatalf("%s: load.Read: %v", tc.Name, err)
		}
		ds, err := convert.DaemonSet(cl.DaemonSet)
		if err != nil {
			t.Fatalf("%s: DaemonSet: %v", tc.Name, err)
		}
		nodes, pods, revs := convert.Nodes(cl.Nodes), convert.Pods(cl.Pods), convert.Revisions(cl.Revisions)
		if len(nodes) != len(tc.Want.Nodes) {
			t.Errorf("%s: %d nodes, expected.json lists %d", tc.Name, len(nodes), len(tc.Want.Nodes))
		}
		if len(pods) != len(cl.Pods) {
			t.Errorf("%s: %d pods from %d", tc.Name, len(pods), len(cl.Pods))
		}
		created := len(tc.Want.Revisions.Create) > 0 || len(tc.Want.Unmapped) > 0
		var current int
		for _, r := range revs {
			if bytes.Equal(r.Data, ds.TemplateData) {
				current++
			}
		}
		if created != (current == 0) {
			t.Errorf("%s: %d revisions equal TemplateData, but upstream created one: %t", tc.Name, current, created)
		}
	}
}
