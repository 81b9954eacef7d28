package main

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
)

// filterNow is the clock of every plan of the filter property: the events
// change the world, not the time.
var filterNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// filterModel drives the controller's event handlers (handlers) with
// random events and plays its sync loop: after each event, every
// DaemonSet the handlers enqueued is planned again; the others keep the
// plan of their last sync.
type filterModel struct {
	c        *Controller
	h        eventHandlers
	nodes    map[string]*corev1.Node
	pods     map[string]*corev1.Pod
	sets     map[string]*appsv1.DaemonSet
	synced   map[string]daemonplan.Plan // the plan of each DaemonSet's last sync
	syncErr  map[string]string
	rv       int
	enqueued int // syncs, for the log
}

var filterSets = []string{"all", "zone-a", "gpu", "role-x"}

func newFilterModel() *filterModel {
	c := &Controller{Client: fake.NewClientset(), Namespace: "ns"}
	c.init()
	return &filterModel{c: c, h: c.handlers(), nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{},
		sets: map[string]*appsv1.DaemonSet{}, synced: map[string]daemonplan.Plan{}, syncErr: map[string]string{}}
}

func (m *filterModel) version() string { m.rv++; return strconv.Itoa(m.rv) }

// genNode draws a node: labels, taints (the node lifecycle controller's
// among them), Ready and unschedulable, a heartbeat that changes every
// time.
func (m *filterModel) genNode(t *rapid.T, name string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: m.version(), Labels: map[string]string{}}}
	if z := rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "zone"); z != "" {
		n.Labels["zone"] = z
	}
	if rapid.Bool().Draw(t, "roleX") {
		n.Labels["role"] = "x"
	}
	for _, taint := range []corev1.Taint{
		{Key: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "evict", Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute},
	} {
		if rapid.IntRange(0, 3).Draw(t, "taint "+taint.Key) == 0 {
			n.Spec.Taints = append(n.Spec.Taints, taint)
		}
	}
	n.Spec.Unschedulable = rapid.Bool().Draw(t, "unschedulable")
	ready := corev1.ConditionTrue
	if rapid.Bool().Draw(t, "notReady") {
		ready = corev1.ConditionFalse
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastHeartbeatTime: metav1.NewTime(filterNow.Add(time.Duration(m.rv) * time.Second))}}
	return n
}

// genDaemonSet draws one of the DaemonSets: each places its pods by
// another rule.
func (m *filterModel) genDaemonSet(t *rapid.T, name string) *appsv1.DaemonSet {
	one := intstr.FromInt32(1)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Generation: 1, ResourceVersion: m.version()},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:" + rapid.SampledFrom([]string{"v1", "v2"}).Draw(t, "image")}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}},
		},
	}
	if old := m.sets[name]; old != nil && old.Spec.Template.Spec.Containers[0].Image != ds.Spec.Template.Spec.Containers[0].Image {
		ds.Generation = old.Generation + 1
	} else if old != nil {
		ds.Generation = old.Generation
	}
	spec := &ds.Spec.Template.Spec
	switch name {
	case "zone-a":
		spec.NodeSelector = map[string]string{"zone": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "selectedZone")}
	case "gpu":
		spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
	case "role-x":
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "role", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}}}}},
		}}}
		spec.Tolerations = []corev1.Toleration{{Key: "evict", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	}
	return ds
}

// genPod draws a pod a DaemonSet selects on a node, bound or not, in some
// state: the DaemonSet's own, an orphan, another DaemonSet's, or a
// ReplicaSet's (the view feeds a pod only to the trackers it concerns).
func (m *filterModel) genPod(t *rapid.T, name string) *corev1.Pod {
	set := rapid.SampledFrom(filterSets).Draw(t, "podSet")
	node := rapid.SampledFrom([]string{"n0", "n1", "n2", "n3", "n4"}).Draw(t, "podNode")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name + "-" + strconv.Itoa(m.rv)), ResourceVersion: m.version(),
			Labels:            map[string]string{"app": set, appsv1.DefaultDaemonSetUniqueLabelKey: rapid.SampledFrom([]string{"old", "other"}).Draw(t, "hash")},
			CreationTimestamp: metav1.NewTime(filterNow.Add(-time.Hour))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:v1"}}},
	}
	yes := true
	switch rapid.IntRange(0, 9).Draw(t, "owner") {
	case 0, 1: // an orphan
	case 2:
		other := rapid.SampledFrom(filterSets).Draw(t, "otherSet")
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: other, UID: types.UID("uid-" + other), Controller: &yes}}
	case 3:
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: set, UID: types.UID("uid-rs-" + set), Controller: &yes}}
	default:
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: set, UID: types.UID("uid-" + set), Controller: &yes}}
	}
	if rapid.Bool().Draw(t, "bound") {
		pod.Spec.NodeName = node
	} else {
		pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}},
		}}}
	}
	pod.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodPending, corev1.PodFailed}).Draw(t, "phase")
	if rapid.Bool().Draw(t, "ready") {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(filterNow.Add(-time.Minute))}}
	}
	if rapid.IntRange(0, 5).Draw(t, "deleting") == 0 {
		at := metav1.NewTime(filterNow)
		pod.DeletionTimestamp = &at
	}
	return pod
}

// syncQueued plays the sync loop: every DaemonSet the handlers enqueued is
// planned from its tracker, as sync plans it.
func (m *filterModel) syncQueued() {
	v := m.c.view
	for m.c.queue.Len() > 0 {
		key, _ := m.c.queue.Get()
		m.c.queue.Done(key)
		m.c.queue.Forget(key)
		m.enqueued++
		v.mu.Lock()
		p := v.trackers[key]
		if p == nil {
			delete(m.synced, key)
			delete(m.syncErr, key)
			v.mu.Unlock()
			continue
		}
		plan, err := p.Plan(filterNow, kubesync.State{})
		v.mu.Unlock()
		m.synced[key], m.syncErr[key] = plan, errText(err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// check compares the plan each DaemonSet was last synced to with a whole
// sync (kubesync.Sync) of the view's snapshot now: a DaemonSet the
// handlers did not enqueue must not have needed a sync.
func (m *filterModel) check(t *rapid.T) {
	v := m.c.view
	// Apply's look-up of the pods on a node (view.on) holds what a scan of
	// every pod finds.
	objs := v.objects(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}})
	for _, node := range []string{"n0", "n1", "n2", "n3", "n4"} {
		var want, got []string
		for _, pod := range m.pods {
			ap := convert.Pod(pod)
			if target, err := api.TargetNodeName(&ap); err == nil && target == node {
				want = append(want, pod.Name)
			}
		}
		for _, pod := range objs.PodsOn(node) {
			got = append(got, pod.Name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Fatalf("PodsOn(%s) = %v, want %v", node, got, want)
		}
	}
	for _, name := range filterSets {
		key := "ns/" + name
		v.mu.Lock()
		snap, _ := v.snapshot("ns", name)
		v.mu.Unlock()
		if snap == nil {
			continue
		}
		want, werr := kubesync.Sync(snap, filterNow, kubesync.State{}, kubesync.Options{})
		want.Nodes, want.Keep = nil, nil
		got, ok := m.synced[key]
		if !ok {
			t.Fatalf("DaemonSet %s was never synced", key)
		}
		if errText(werr) != m.syncErr[key] || !reflect.DeepEqual(want, got) && cmp.Diff(want, got) != "" {
			t.Fatalf("DaemonSet %s: last synced plan (error %q) is not a whole sync's now (error %q) (-sync +last synced):\n%s",
				key, m.syncErr[key], errText(werr), cmp.Diff(want, got))
		}
	}
}

func (m *filterModel) actions() map[string]func(*rapid.T) {
	nodeName := func(t *rapid.T) string {
		return rapid.SampledFrom([]string{"n0", "n1", "n2", "n3", "n4"}).Draw(t, "node")
	}
	return map[string]func(*rapid.T){
		"SetNode": func(t *rapid.T) {
			name := nodeName(t)
			n := m.genNode(t, name)
			if old := m.nodes[name]; old != nil {
				m.h.nodes.UpdateFunc(old, n)
			} else {
				m.h.nodes.AddFunc(n)
			}
			m.nodes[name] = n
		},
		"Heartbeat": func(t *rapid.T) {
			// The kubelet's status update: only the condition's heartbeat
			// moves, or Ready flips.
			name := nodeName(t)
			old := m.nodes[name]
			if old == nil {
				t.Skip("no node")
			}
			n := old.DeepCopy()
			n.ResourceVersion = m.version()
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(filterNow.Add(time.Duration(m.rv) * time.Second))
			if rapid.Bool().Draw(t, "flipReady") {
				n.Status.Conditions[0].Status = map[corev1.ConditionStatus]corev1.ConditionStatus{corev1.ConditionTrue: corev1.ConditionFalse, corev1.ConditionFalse: corev1.ConditionTrue}[n.Status.Conditions[0].Status]
			}
			m.h.nodes.UpdateFunc(old, n)
			m.nodes[name] = n
		},
		"DeleteNode": func(t *rapid.T) {
			name := nodeName(t)
			old := m.nodes[name]
			if old == nil {
				t.Skip("no node")
			}
			delete(m.nodes, name)
			m.h.nodes.DeleteFunc(old)
		},
		"SetPod": func(t *rapid.T) {
			name := rapid.SampledFrom([]string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}).Draw(t, "pod")
			pod := m.genPod(t, name)
			if old := m.pods[name]; old != nil {
				m.h.pods.UpdateFunc(old, pod)
			} else {
				m.h.pods.AddFunc(pod)
			}
			m.pods[name] = pod
		},
		"DeletePod": func(t *rapid.T) {
			name := rapid.SampledFrom([]string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}).Draw(t, "pod")
			old := m.pods[name]
			if old == nil {
				t.Skip("no pod")
			}
			delete(m.pods, name)
			m.h.pods.DeleteFunc(old)
		},
		"SetDaemonSet": func(t *rapid.T) {
			name := rapid.SampledFrom(filterSets).Draw(t, "set")
			ds := m.genDaemonSet(t, name)
			if old := m.sets[name]; old != nil {
				m.h.daemonSets.UpdateFunc(old, ds)
			} else {
				m.h.daemonSets.AddFunc(ds)
			}
			m.sets[name] = ds
		},
		"DeleteDaemonSet": func(t *rapid.T) {
			name := rapid.SampledFrom(filterSets).Draw(t, "set")
			old := m.sets[name]
			if old == nil {
				t.Skip("no DaemonSet")
			}
			delete(m.sets, name)
			m.h.daemonSets.DeleteFunc(old)
		},
		"": func(t *rapid.T) {
			m.syncQueued()
			m.check(t)
		},
	}
}

// TestNodeEventFilter: whatever the events (nodes added, relabelled,
// tainted, cordoned, turning NotReady, heartbeats, deleted; pods of each
// DaemonSet and orphans added, changed, deleted; DaemonSets created,
// changed and deleted), a controller that syncs only the DaemonSets its
// handlers enqueue holds, for every DaemonSet, the plan a whole sync of
// the same objects returns now. A node event enqueues only the
// DaemonSets whose trackers report a change (view.setNode), so a filter
// that missed one fails here.
func TestNodeEventFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newFilterModel()
		defer m.c.queue.ShutDown()
		// A world to start from: every node, DaemonSet and a few pods.
		for i := range 5 {
			name := fmt.Sprintf("n%d", i)
			m.nodes[name] = m.genNode(t, name)
			m.h.nodes.AddFunc(m.nodes[name])
		}
		for _, name := range filterSets {
			m.sets[name] = m.genDaemonSet(t, name)
			m.h.daemonSets.AddFunc(m.sets[name])
		}
		m.syncQueued()
		t.Repeat(m.actions())
	})
}

// TestNodeEventFilterSkipsHeartbeats: a node update that changes only its
// conditions enqueues nothing, and a relabel enqueues only the DaemonSets
// whose decision it flips.
func TestNodeEventFilterSkipsHeartbeats(t *testing.T) {
	m := newFilterModel()
	defer m.c.queue.ShutDown()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0", Labels: map[string]string{"zone": "b"}}}
	m.h.nodes.AddFunc(node)
	one := intstr.FromInt32(1)
	for _, name := range []string{"all", "zone-a"} {
		ds := &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Generation: 1},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}},
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}},
			},
		}
		if name == "zone-a" {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
		}
		m.h.daemonSets.AddFunc(ds)
	}
	drain := func() []string {
		var keys []string
		for m.c.queue.Len() > 0 {
			k, _ := m.c.queue.Get()
			m.c.queue.Done(k)
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	drain()
	tests := []struct {
		name, reason string
		change       func(n *corev1.Node)
		want         []string
	}{
		{"heartbeat", "the planner reads no condition", func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		}, nil},
		{"unrelated label", "no DaemonSet's decision reads it", func(n *corev1.Node) { n.Labels["team"] = "t" }, nil},
		{"zone a", "zone-a should now run there", func(n *corev1.Node) { n.Labels["zone"] = "a" }, []string{"ns/zone-a"}},
		{"NoSchedule taint", "neither tolerates it: both stop creating there", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		}, []string{"ns/all", "ns/zone-a"}},
	}
	for _, tc := range tests {
		old := node
		node = node.DeepCopy()
		tc.change(node)
		m.h.nodes.UpdateFunc(old, node)
		if got := drain(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: enqueued %v, want %v (%s)", tc.name, got, tc.want, tc.reason)
		}
	}
	m.h.nodes.DeleteFunc(node)
	if got, want := drain(), []string{}; len(got) != len(want) {
		t.Errorf("delete of a node no DaemonSet should run on and none has a pod on: enqueued %v, want none", got)
	}
}
