package kubetrack_test

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/rounds"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/kubetrack"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// errorText compares errors by their text: plans build their errors anew.
var errorText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
})

const ns = "ns"

var start = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// model holds the objects the Tracker was given, as informers' caches
// would: the DaemonSet, and nodes, pods and revisions by key.
type model struct {
	p         *kubetrack.Tracker
	ds        *appsv1.DaemonSet
	nodes     map[string]*corev1.Node
	pods      map[string]*corev1.Pod // by namespace/name
	revisions map[string]*appsv1.ControllerRevision
	now       time.Time
	st        kubesync.State
	last      daemonplan.Plan
	rv        int
}

func newModel(t *rapid.T) *model {
	p, err := kubetrack.NewTracker(ns, "agent", kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &model{p: p, nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{},
		revisions: map[string]*appsv1.ControllerRevision{}, now: start}
}

// snapshot is what a controller's listers hold: every node, and the pods
// and revisions of the DaemonSet's namespace, in map order.
func (m *model) snapshot() *load.Snapshot {
	s := &load.Snapshot{DaemonSet: m.ds}
	s.Nodes = slices.Collect(maps.Values(m.nodes))
	for _, pod := range m.pods {
		if pod.Namespace == ns {
			s.Pods = append(s.Pods, pod)
		}
	}
	for _, cr := range m.revisions {
		if cr.Namespace == ns {
			s.Revisions = append(s.Revisions, cr)
		}
	}
	return s
}

func (m *model) version() string { m.rv++; return strconv.Itoa(m.rv) }

func (m *model) nodeNames() []string {
	return append(slices.Sorted(maps.Keys(m.nodes)), "node-9", "")
}

func (m *model) uid() types.UID {
	if m.ds == nil {
		return "uid-1"
	}
	return m.ds.UID
}

// currentHash is upstream's hash of the DaemonSet's template, or "none".
func (m *model) currentHash() string {
	if m.ds == nil {
		return "none"
	}
	h, _ := upstream.Latest.Hash(&m.ds.Spec.Template, m.ds.Status.CollisionCount)
	return h
}

func genDaemonSet(t *rapid.T, m *model) *appsv1.DaemonSet {
	gen := rapid.Int64Range(1, 3).Draw(t, "generation")
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent", UID: types.UID(rapid.SampledFrom([]string{"uid-1", "uid-1", "uid-2"}).Draw(t, "uid")),
			Generation: gen, ResourceVersion: m.version(),
			Annotations: map[string]string{api.AnnotationTemplateGeneration: strconv.FormatInt(gen, 10)}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{
					Containers:    []corev1.Container{{Name: "agent", Image: rapid.SampledFrom([]string{"agent:v1", "agent:v2"}).Draw(t, "image")}},
					RestartPolicy: corev1.RestartPolicyAlways,
				},
			},
			MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: rapid.Int64Range(0, gen).Draw(t, "observed")},
	}
	if rapid.Bool().Draw(t, "nodeSelector") {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	}
	if rapid.Bool().Draw(t, "tolerates") {
		ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	if rapid.IntRange(0, 4).Draw(t, "onDelete") == 0 {
		ds.Spec.UpdateStrategy.Type = appsv1.OnDeleteDaemonSetStrategyType
	} else {
		ru := &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromInt32(0))}
		switch rapid.IntRange(0, 2).Draw(t, "budget") {
		case 1:
			ru.MaxUnavailable = ptr(intstr.FromString("50%"))
		case 2:
			ru.MaxUnavailable, ru.MaxSurge = ptr(intstr.FromInt32(0)), ptr(intstr.FromInt32(1))
		}
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: ru}
	}
	if rapid.IntRange(0, 5).Draw(t, "collided") == 0 {
		ds.Status.CollisionCount = ptr(int32(1))
	}
	return ds
}

func genNode(t *rapid.T, m *model) *corev1.Node {
	name := fmt.Sprintf("node-%d", rapid.IntRange(0, 5).Draw(t, "node"))
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: m.version(), Labels: map[string]string{
		"kubernetes.io/os": rapid.SampledFrom([]string{"linux", "linux", "windows"}).Draw(t, "os"), "kubernetes.io/hostname": name}}}
	if rapid.IntRange(0, 3).Draw(t, "tainted") == 0 {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

func genPod(t *rapid.T, m *model) *corev1.Pod {
	namespace := ns
	if rapid.IntRange(0, 7).Draw(t, "otherNamespace") == 0 {
		namespace = "other"
	}
	name := fmt.Sprintf("pod-%d", rapid.IntRange(0, 7).Draw(t, "pod"))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(namespace + "-" + name + "-" + m.version()), ResourceVersion: m.version(),
			CreationTimestamp: metav1.NewTime(start.Add(-time.Duration(rapid.IntRange(1, 100).Draw(t, "age")) * time.Minute)),
			Labels: map[string]string{
				"app":                 rapid.SampledFrom([]string{"agent", "agent", "agent", "other"}).Draw(t, "app"),
				api.LabelRevisionHash: rapid.SampledFrom([]string{m.currentHash(), m.currentHash(), "old"}).Draw(t, "hash"),
			}},
		Spec:   corev1.PodSpec{NodeName: rapid.SampledFrom(m.nodeNames()).Draw(t, "nodeName")},
		Status: corev1.PodStatus{Phase: rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodPending, corev1.PodFailed, corev1.PodSucceeded}).Draw(t, "phase")},
	}
	if rapid.IntRange(0, 5).Draw(t, "orphan") > 0 {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: m.uid(), Controller: ptr(true)}}
	}
	if rapid.IntRange(0, 2).Draw(t, "ready") > 0 {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(m.now.Add(-time.Duration(rapid.IntRange(0, 20).Draw(t, "readyFor")) * time.Second))}}
	}
	if rapid.IntRange(0, 7).Draw(t, "deleting") == 0 {
		pod.DeletionTimestamp = ptr(metav1.NewTime(m.now))
	}
	return pod
}

// oldRevision is a revision of the DaemonSet with another image, numbered
// rev.
func oldRevision(m *model, rev int64) *appsv1.ControllerRevision {
	old := m.ds.DeepCopy()
	old.Spec.Template.Spec.Containers[0].Image = "agent:v0"
	hash, _ := upstream.Latest.Hash(&old.Spec.Template, nil)
	data, _ := upstream.RevisionData(old)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent-" + hash, ResourceVersion: m.version(),
			Labels:          map[string]string{"app": "agent", api.LabelRevisionHash: hash},
			OwnerReferences: []metav1.OwnerReference{convert.ControllerRef(m.ds)}},
		Data: runtime.RawExtension{Raw: data}, Revision: rev,
	}
}

func (m *model) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"SetDaemonSet": func(t *rapid.T) {
			ds := genDaemonSet(t, m)
			switch change := rapid.IntRange(0, 2).Draw(t, "change"); {
			case m.ds == nil || change == 0:
			case change == 1:
				// The controller's own status write: the last plan's status.
				ds = convert.DaemonSetWithStatus(m.ds, m.last.Status)
				ds.ResourceVersion = m.version()
			default:
				// One field outside the template changes (the Tracker keeps
				// its conversion only while none does).
				ds = m.ds.DeepCopy()
				ds.ResourceVersion = m.version()
				switch rapid.IntRange(0, 3).Draw(t, "field") {
				case 0:
					ds.Generation++
				case 1:
					ds.Annotations = map[string]string{"example.com/note": "changed"}
				case 2:
					ds.DeletionTimestamp = ptr(metav1.NewTime(m.now))
				case 3:
					ds.Spec.MinReadySeconds += 5
				}
			}
			m.ds = ds
			m.p.SetDaemonSet(ds)
		},
		"DeleteDaemonSet": func(t *rapid.T) {
			if rapid.IntRange(0, 5).Draw(t, "deleteDS") > 0 {
				t.Skip("rare")
			}
			m.ds = nil
			m.p.DeleteDaemonSet(ns, "agent")
		},
		"SetNode": func(t *rapid.T) {
			n := genNode(t, m)
			if old := m.nodes[n.Name]; old != nil && rapid.Bool().Draw(t, "sameResourceVersion") {
				// Labels changed without a new resourceVersion: the
				// Tracker decides the node again all the same.
				n.ResourceVersion = old.ResourceVersion
			}
			m.nodes[n.Name] = n
			m.p.SetNode(n)
		},
		"DeleteNode": func(t *rapid.T) {
			name := rapid.SampledFrom(m.nodeNames()).Draw(t, "deleteNode")
			delete(m.nodes, name)
			m.p.DeleteNode(name)
		},
		"SetPod": func(t *rapid.T) {
			pod := genPod(t, m)
			m.pods[pod.Namespace+"/"+pod.Name] = pod
			m.p.SetPod(pod)
		},
		"DeletePod": func(t *rapid.T) {
			if len(m.pods) == 0 {
				t.Skip("no pod")
			}
			key := rapid.SampledFrom(slices.Sorted(maps.Keys(m.pods))).Draw(t, "deletePod")
			pod := m.pods[key]
			delete(m.pods, key)
			m.p.DeletePod(pod.Namespace, pod.Name)
		},
		"ApplyRevisions": func(t *rapid.T) {
			// The last plan's revision creates and updates, as a
			// controller writes them.
			if m.ds == nil || len(m.last.Revisions.Create)+len(m.last.Revisions.Update) == 0 {
				t.Skip("no revision write")
			}
			for _, r := range m.last.Revisions.Create {
				cr := convert.NewControllerRevision(m.ds, r)
				cr.ResourceVersion = m.version()
				m.revisions[cr.Name] = cr
				m.p.SetRevision(cr)
			}
			for _, r := range m.last.Revisions.Update {
				if cur := m.revisions[r.Name]; cur != nil {
					cr := convert.UpdatedControllerRevision(cur, r)
					cr.ResourceVersion = m.version()
					m.revisions[cr.Name] = cr
					m.p.SetRevision(cr)
				}
			}
		},
		"SetOldRevision": func(t *rapid.T) {
			if m.ds == nil {
				t.Skip("no DaemonSet")
			}
			cr := oldRevision(m, rapid.Int64Range(1, 3).Draw(t, "revision"))
			if rapid.IntRange(0, 5).Draw(t, "otherNamespaceRevision") == 0 {
				cr.Namespace = "other"
			}
			m.revisions[cr.Namespace+"/"+cr.Name] = cr
			m.p.SetRevision(cr)
		},
		"DeleteRevision": func(t *rapid.T) {
			if len(m.revisions) == 0 {
				t.Skip("no revision")
			}
			key := rapid.SampledFrom(slices.Sorted(maps.Keys(m.revisions))).Draw(t, "deleteRevision")
			cr := m.revisions[key]
			delete(m.revisions, key)
			m.p.DeleteRevision(cr.Namespace, cr.Name)
		},
		"Advance": func(t *rapid.T) {
			m.now = m.now.Add(rapid.SampledFrom([]time.Duration{0, time.Second, 5 * time.Second, 11 * time.Second, -3 * time.Second}).Draw(t, "advance"))
			m.st = kubesync.State{ExpectationsPending: rapid.IntRange(0, 4).Draw(t, "pending") == 0}
			if rapid.Bool().Draw(t, "carryBackoff") {
				m.st.Backoff = m.last.Backoff
			}
		},
		"": m.check,
	}
}

// check compares the Tracker's plans with kubesync.Sync on the model's
// objects. cmp.Diff runs only to explain a difference: it is slow.
func (m *model) check(t *rapid.T) {
	want, werr := kubesync.Sync(m.snapshot(), m.now, m.st, kubesync.Options{})
	got, gerr := m.p.FullPlan(m.now, m.st)
	same := func(a, b any) bool { return reflect.DeepEqual(a, b) || cmp.Diff(a, b, errorText) == "" }
	switch {
	case m.ds == nil:
		if !errors.Is(gerr, kubetrack.ErrNoDaemonSet) || werr == nil {
			t.Fatalf("no DaemonSet: Sync returns %v, FullPlan %v", werr, gerr)
		}
		return
	case errors.Is(werr, daemonplan.ErrInvalidInput):
		// The findings name objects by their index in the input, and
		// the listers' order is not the Tracker's.
		if !errors.Is(gerr, daemonplan.ErrInvalidInput) {
			t.Fatalf("Sync refuses the input (%v); FullPlan() returns %v", werr, gerr)
		}
		return
	}
	if !same(werr, gerr) {
		t.Fatalf("FullPlan() error mismatch (-Sync +Tracker):\n%s", cmp.Diff(werr, gerr, errorText))
	}
	if !same(want, got) {
		t.Fatalf("FullPlan() mismatch (-Sync +Tracker):\n%s", cmp.Diff(want, got, errorText))
	}
	m.last = want
	short, serr := m.p.Plan(m.now, m.st)
	want.Nodes, want.Keep = nil, nil
	if !same(werr, serr) || !same(want, short) {
		t.Fatalf("Plan() mismatch (-Sync without Nodes and Keep +Tracker):\n%s%s", cmp.Diff(werr, serr, errorText), cmp.Diff(want, short, errorText))
	}
}

// TestPlannerMatchesSync: after every event of a random sequence (the
// DaemonSet, nodes (some relabelled under the same resourceVersion), pods
// and revisions added, changed and deleted, among
// them the controller's own status and revision writes; objects of
// another namespace; the clock moved, the backoff and expectations set),
// the Tracker's FullPlan equals kubesync.Sync on a snapshot of the same
// objects in lister order, field for field, and Plan equals it but for
// Nodes and Keep. DAEMONPLAN_KUBEREPLAN_ROUNDS sets how many rounds of
// rapid's checks run (default 3).
func TestPlannerMatchesSync(t *testing.T) {
	for r := range rounds.Of("DAEMONPLAN_KUBEREPLAN_ROUNDS", 3, 1) {
		t.Run(fmt.Sprintf("round-%d", r), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				m := newModel(t)
				t.Repeat(m.actions())
			})
		})
	}
}

func ptr[T any](v T) *T { return &v }
