package progressive_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/progressive"
)

// newRunClient is exampleCluster's fake API server with more DaemonSets
// without pods: one without the annotation, one annotated but on
// RollingUpdate, one done at its generation, one done at an older
// generation, one whose annotation does not parse.
func newRunClient() *fakeclient.Clientset {
	client := newExampleClient(exampleCluster)
	ds := func(ns, name string, strategy appsv1.DaemonSetUpdateStrategyType, annotation string, generation int64) {
		labels := map[string]string{"app": name}
		d := &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Generation: generation},
			Spec: appsv1.DaemonSetSpec{
				Selector:       &metav1.LabelSelector{MatchLabels: labels},
				Template:       corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}},
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: strategy},
			},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: generation},
		}
		if annotation != "" {
			d.Annotations = map[string]string{progressive.Annotation: annotation}
		}
		if _, err := client.AppsV1().DaemonSets(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}
	ds("default", "plain", appsv1.OnDeleteDaemonSetStrategyType, "", 1)
	ds("other", "rolling", appsv1.RollingUpdateDaemonSetStrategyType, `{"policy":{},"status":{"phase":"Canary"}}`, 1)
	ds("other", "done", appsv1.OnDeleteDaemonSetStrategyType, `{"policy":{},"status":{"phase":"Done","revision":"r","generation":3}}`, 3)
	ds("other", "done-old", appsv1.OnDeleteDaemonSetStrategyType, `{"policy":{},"status":{"phase":"Done","revision":"r","generation":2}}`, 3)
	ds("other", "broken", appsv1.OnDeleteDaemonSetStrategyType, `{"policy":{"maxUnavailable":0},"status":{"phase":"Canary"}}`, 1)
	return client
}

// TestStepAll: one StepAll looks at every annotated DaemonSet of the
// namespace (or all), in order, steps each once, and reports each one's
// outcome without stopping at the first error.
func TestStepAll(t *testing.T) {
	type want struct {
		skipped bool
		err     string // substring; "" for none
	}
	tests := []struct {
		name, reason, namespace string
		want                    map[string]want
	}{
		{"all namespaces", "every annotated DaemonSet, the plain one not; errors are each DaemonSet's own", "", map[string]want{
			"default/agent":  {},
			"other/broken":   {err: "policy.maxUnavailable: Invalid value: 0"},
			"other/done":     {skipped: true},
			"other/done-old": {},
			"other/rolling":  {err: "has updateStrategy RollingUpdate, not OnDelete"},
		}},
		{"one namespace", "only the namespace's DaemonSets are listed", "default", map[string]want{
			"default/agent": {},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := newRunClient()
			dr := progressive.Driver{Client: client}
			if _, err := dr.Start(ctx, "default", "agent", progressive.Policy{}); err != nil {
				t.Fatal(err)
			}
			got, err := dr.StepAll(ctx, tc.namespace, client.Now())
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, s := range got {
				key := s.Namespace + "/" + s.Name
				order = append(order, key)
				w, ok := tc.want[key]
				switch {
				case !ok:
					t.Errorf("%s: %s stepped", tc.reason, key)
				case s.Skipped != w.skipped:
					t.Errorf("%s: %s skipped %v, want %v", tc.reason, key, s.Skipped, w.skipped)
				case w.err == "" && s.Err != nil, w.err != "" && (s.Err == nil || !strings.Contains(s.Err.Error(), w.err)):
					t.Errorf("%s: %s: error %v, want %q", tc.reason, key, s.Err, w.err)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("%s: looked at %v, want %d DaemonSets", tc.reason, order, len(tc.want))
			}
			for i := 1; i < len(order); i++ {
				if order[i-1] >= order[i] {
					t.Errorf("%s: not in namespace/name order: %v", tc.reason, order)
				}
			}
			ds, err := client.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r, err := progressive.Parse(ds); err != nil || len(r.Status.InFlight) != 1 || r.Status.Generation != 2 {
				t.Errorf("%s: agent after StepAll: %+v, %v; want one delete in flight at generation 2", tc.reason, r, err)
			}
		})
	}
}

// TestStepAllSkipsUntilTemplateChange: a finished rollout is not stepped
// again until its template changes; then the next StepAll rolls the new
// revision out.
func TestStepAllSkipsUntilTemplateChange(t *testing.T) {
	c := newCluster(t, []string{"", ""}, "")
	dr := progressive.Driver{Client: c.fc}
	if _, err := dr.Start(ctx, ns, dsName, progressive.Policy{}); err != nil {
		t.Fatal(err)
	}
	stepAll := func() progressive.Stepped {
		t.Helper()
		got, err := dr.StepAll(ctx, "", c.fc.Now())
		if err != nil || len(got) != 1 {
			t.Fatalf("StepAll: %v, %v", got, err)
		}
		return got[0]
	}
	if s := stepAll(); s.Skipped || s.Result.Rollout.Status.Phase != progressive.PhaseDone {
		t.Fatalf("nothing to roll out: %+v, want a step to Done", s)
	}
	if s := stepAll(); !s.Skipped {
		t.Errorf("done at the same generation: not skipped")
	}
	c.setImage("agent:v2")
	c.tick()
	if s := stepAll(); s.Skipped || len(s.Result.Deletes) != 1 {
		t.Errorf("after the template change: skipped %v, deletes %v", s.Skipped, s.Result.Deletes)
	}
}

// StepAll steps every DaemonSet carrying the rollout annotation: the
// long-running mode (`rollout run`) calls it once per interval.
func ExampleDriver_StepAll() {
	ctx := context.Background()
	client := newRunClient()
	dr := progressive.Driver{Client: client}
	if _, err := dr.Start(ctx, "default", "agent", progressive.Policy{}); err != nil {
		panic(err)
	}
	got, err := dr.StepAll(ctx, "", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	for _, s := range got {
		var noe *progressive.NotOnDeleteError
		switch {
		case s.Skipped:
			fmt.Println(s.Namespace+"/"+s.Name, "skipped:", s.Result.Rollout.Status.Phase)
		case errors.As(s.Err, &noe):
			fmt.Println(s.Namespace+"/"+s.Name, "refused:", noe.Type)
		case s.Err != nil:
			fmt.Println(s.Namespace+"/"+s.Name, "error")
		default:
			fmt.Println(s.Namespace+"/"+s.Name, "stepped:", s.Result.Rollout.Status.Phase, len(s.Result.Deletes), "deleted")
		}
	}
	// Output:
	// default/agent stepped: Rest 1 deleted
	// other/broken error
	// other/done skipped: Done
	// other/done-old stepped: Rest 0 deleted
	// other/rolling refused: RollingUpdate
}
