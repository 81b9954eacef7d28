package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

// genSpec describes a generated cluster: nodes settled on one DaemonSet.
type genSpec struct {
	nodes                    int
	maxUnavailable, maxSurge intstr.IntOrString
	minReadySeconds          int32
	grace                    *int64 // the template's terminationGracePeriodSeconds
	image                    string
	noStrategy               bool // no updateStrategy at all (the API server's default applies)
}

// fataler is what genCluster needs of a testing.T or a rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// daemonSet is the spec's DaemonSet, as the API server stores it.
func (g genSpec) daemonSet() *appsv1.DaemonSet {
	mu, ms := g.maxUnavailable, g.maxSurge
	strategy := appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &mu, MaxSurge: &ms}}
	if g.noStrategy {
		strategy = appsv1.DaemonSetUpdateStrategy{}
	}
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent", UID: "uid-agent", Generation: 1,
			Annotations: map[string]string{"deprecated.daemonset.template.generation": "1"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: "agent", Image: g.image}},
					TerminationGracePeriodSeconds: g.grace,
				},
			},
			UpdateStrategy:  strategy,
			MinReadySeconds: g.minReadySeconds,
		},
	}
}

// genCluster returns the spec's cluster as `kubectl get -o json` lists it:
// the DaemonSet, the nodes (node-000000, ...), one Ready pod of the
// DaemonSet's template on each, created an hour before now, and the
// ControllerRevision of that template; the status is the one the
// controller last wrote. No giant file is committed: tests and the
// measurements in docs/whatif.md generate them.
func genCluster(t fataler, g genSpec, now time.Time) []byte {
	ds := g.daemonSet()
	snap := &load.Snapshot{DaemonSet: ds}
	for i := range g.nodes {
		snap.Nodes = append(snap.Nodes, &corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%06d", i), UID: types.UID(fmt.Sprintf("uid-node-%d", i))},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		})
	}
	in, opts, err := kubesync.Input(snap, now, kubesync.State{}, kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := daemonplan.Sync(in, opts)
	if err != nil || len(plan.Create) == 0 || len(plan.Revisions.Create) != 1 {
		t.Fatalf("generating: %v, %d creates, %d revisions", err, len(plan.Create), len(plan.Revisions.Create))
	}
	items := []runtime.Object{ds}
	for _, n := range snap.Nodes {
		items = append(items, n)
	}
	created := metav1.NewTime(now.Add(-time.Hour))
	for i, n := range snap.Nodes {
		cr := plan.Create[0]
		cr.Node = n.Name
		pod, err := convert.NewPod(ds, cr)
		if err != nil {
			t.Fatal(err)
		}
		pod.GenerateName = ""
		pod.Name = "agent-" + strconv.Itoa(100000+i)
		pod.UID = types.UID("uid-pod-" + strconv.Itoa(i))
		pod.CreationTimestamp = created
		pod.Spec.NodeName = n.Name
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: created}}}
		items = append(items, pod)
	}
	rev := convert.NewControllerRevision(ds, plan.Revisions.Create[0])
	rev.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}
	rev.UID = "uid-revision-1"
	items = append(items, rev)
	n := int32(g.nodes)
	ds.Status = appsv1.DaemonSetStatus{CurrentNumberScheduled: n, DesiredNumberScheduled: n, NumberReady: n,
		NumberAvailable: n, UpdatedNumberScheduled: n, ObservedGeneration: 1}
	list := struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []runtime.Object `json:"items"`
	}{"v1", "List", items}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteGeneratedCluster writes a generated cluster and the DaemonSet
// with a new image for the measurements of docs/whatif.md, when
// DAEMONPLAN_GEN_DIR is set (DAEMONPLAN_GEN_NODES nodes, default 8000;
// DAEMONPLAN_GEN_MAX_UNAVAILABLE, default 1, e.g. 10%):
//
//	DAEMONPLAN_GEN_DIR=/tmp/gen DAEMONPLAN_GEN_NODES=100000 DAEMONPLAN_GEN_MAX_UNAVAILABLE=10% \
//	  go test ./internal/cli -run TestWriteGeneratedCluster
func TestWriteGeneratedCluster(t *testing.T) {
	dir := os.Getenv("DAEMONPLAN_GEN_DIR")
	if dir == "" {
		t.Skip("DAEMONPLAN_GEN_DIR not set")
	}
	nodes := 8000
	if s := os.Getenv("DAEMONPLAN_GEN_NODES"); s != "" {
		var err error
		if nodes, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	mu := intstr.FromInt32(1)
	if s := os.Getenv("DAEMONPLAN_GEN_MAX_UNAVAILABLE"); s != "" {
		mu = intstr.Parse(s)
	}
	g := genSpec{nodes: nodes, maxUnavailable: mu, maxSurge: intstr.FromInt32(0), image: "agent:v1"}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/cluster.json", genCluster(t, g, now), 0o644); err != nil {
		t.Fatal(err)
	}
	g.image = "agent:v2"
	ds, err := json.Marshal(g.daemonSet())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/agent-v2.json", ds, 0o644); err != nil {
		t.Fatal(err)
	}
}
