// Package kubecluster builds Kubernetes object snapshots of large clusters
// for the kube module's benchmarks and tests: every object holds its own
// strings and label maps, as objects decoded from the API server do, and
// nodes and pods come in lister order (a random one), as an informer's
// lister returns them. Only tests and benchmarks import it.
package kubecluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// Now is the clock of the clusters Build returns.
var Now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// Build returns a cluster of n nodes of 20 labels, every 50th tainted,
// with one Ready pod of the DaemonSet "kube-system/agent" per node, in a
// random order drawn from seed. With rolling, the DaemonSet's template
// changed (generation 2 added a toleration) and half of the pods run the
// old revision: the rolling update (maxUnavailable 10%) deletes a burst
// in every sync; without, every pod is up to date.
func Build(n int, rolling bool, seed uint64) *load.Snapshot {
	ds := DaemonSet()
	old := ds.DeepCopy()
	old.Generation = 1
	old.Spec.Template.Spec.Tolerations = nil
	oldRev, newRev := Revision(old, 1), Revision(ds, 2)
	s := &load.Snapshot{DaemonSet: ds, Revisions: []*appsv1.ControllerRevision{oldRev, newRev}}
	s.Nodes = make([]*corev1.Node, n)
	s.Pods = make([]*corev1.Pod, n)
	for i := range n {
		node := Node(fmt.Sprintf("node-%06d", i))
		if i%50 == 7 {
			node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
		}
		s.Nodes[i] = node
		rev, gen := newRev, "2"
		if rolling && i%2 == 1 {
			rev, gen = oldRev, "1"
		}
		s.Pods[i] = Pod(ds, fmt.Sprintf("agent-%06d", i), node.Name, rev.Labels[api.LabelRevisionHash], gen)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	r.Shuffle(n, func(i, j int) { s.Nodes[i], s.Nodes[j] = s.Nodes[j], s.Nodes[i] })
	r.Shuffle(n, func(i, j int) { s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i] })
	return s
}

// DaemonSet is the DaemonSet of Build's clusters at generation 2, its
// status current.
func DaemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: "agent", UID: "ds-uid", Generation: 2, ResourceVersion: "1",
			Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{
					Containers:    []corev1.Container{{Name: "agent", Image: "agent:v1"}},
					RestartPolicy: corev1.RestartPolicyAlways,
					NodeSelector:  map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:   []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule}},
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromString("10%")), MaxSurge: ptr(intstr.FromInt32(0))}},
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 2},
	}
}

// Revision is the ControllerRevision upstream stores for ds's template as
// revision number rev.
func Revision(ds *appsv1.DaemonSet, rev int64) *appsv1.ControllerRevision {
	hash, err := upstream.Latest.Hash(&ds.Spec.Template, ds.Status.CollisionCount)
	if err != nil {
		panic(err)
	}
	data, err := upstream.RevisionData(ds)
	if err != nil {
		panic(err)
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ds.Namespace, Name: ds.Name + "-" + hash, ResourceVersion: "1",
			Labels:          map[string]string{"app": "agent", api.LabelRevisionHash: hash},
			OwnerReferences: []metav1.OwnerReference{controllerRef(ds)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: rev,
	}
}

// Node returns a node with a UID and 20 labels (18 of them example.com/label-NN,
// kubernetes.io/os=linux and its hostname), in maps and strings of its
// own.
func Node(name string) *corev1.Node {
	labels := make(map[string]string, 20)
	for j := range 18 {
		labels[fmt.Sprintf("example.com/label-%02d", j)] = own("v")
	}
	labels[own("kubernetes.io/os")] = own("linux")
	labels[own("kubernetes.io/hostname")] = own(name)
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels, ResourceVersion: "1"}}
}

// Pod returns a Running pod of ds on node, Ready for an hour, with the
// labels of revision hash and template generation gen.
func Pod(ds *appsv1.DaemonSet, name, node, hash, gen string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: own(ds.Namespace), Name: name, UID: types.UID(fmt.Sprintf("uid-%s", name)), ResourceVersion: "1",
			CreationTimestamp: metav1.NewTime(Now.Add(-2 * time.Hour)),
			Labels:            map[string]string{own("app"): own("agent"), own(api.LabelRevisionHash): own(hash), own(api.LabelTemplateGeneration): own(gen)},
			OwnerReferences:   []metav1.OwnerReference{controllerRef(ds)},
		},
		Spec: corev1.PodSpec{NodeName: own(node)},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(Now.Add(-time.Hour))},
		}},
	}
}

func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: own(ds.Name), UID: types.UID(own(string(ds.UID))),
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
}

func ptr[T any](v T) *T { return &v }

// own returns a copy of s in memory of its own, as a decoded object holds
// its strings.
func own(s string) string { return strings.Clone(s) }

// Churn returns the snapshot after s that a rollout's sync leaves behind,
// as step number step (1, 2, ...) of a sequence: 250 pods of the old
// revision (the burst) deleted and replaced on their nodes by new pods of
// the current one, under new names and UIDs, Ready; 250 other pods and 100
// nodes written (status updates: a new resourceVersion, the same content);
// nodes and pods in a new lister order drawn from seed. s is not changed:
// the new snapshot shares every unchanged object with it, as an informer's
// cache does.
func Churn(s *load.Snapshot, step int, seed uint64) *load.Snapshot {
	const replaced, written, nodesWritten = 250, 250, 100
	next := &load.Snapshot{DaemonSet: s.DaemonSet, Revisions: s.Revisions,
		Nodes: slices.Clone(s.Nodes), Pods: slices.Clone(s.Pods)}
	r := rand.New(rand.NewPCG(seed, uint64(step)))
	rv := fmt.Sprintf("%d", step+1)
	newHash := s.Revisions[len(s.Revisions)-1].Labels[api.LabelRevisionHash]
	// The old pods in name order, so that each step replaces the next ones.
	var old []int
	for i, p := range next.Pods {
		if p.Labels[api.LabelRevisionHash] != newHash {
			old = append(old, i)
		}
	}
	slices.SortFunc(old, func(a, b int) int { return strings.Compare(next.Pods[a].Name, next.Pods[b].Name) })
	for _, i := range old[:min(replaced, len(old))] {
		p := next.Pods[i]
		q := Pod(s.DaemonSet, fmt.Sprintf("%s-r%d", p.Name, step), p.Spec.NodeName, newHash, "2")
		q.ResourceVersion = rv
		next.Pods[i] = q
	}
	for range written {
		i := r.IntN(len(next.Pods))
		q := next.Pods[i].DeepCopy()
		q.ResourceVersion = rv
		next.Pods[i] = q
	}
	for range nodesWritten {
		i := r.IntN(len(next.Nodes))
		n := next.Nodes[i].DeepCopy()
		n.ResourceVersion = rv
		next.Nodes[i] = n
	}
	r.Shuffle(len(next.Nodes), func(i, j int) { next.Nodes[i], next.Nodes[j] = next.Nodes[j], next.Nodes[i] })
	r.Shuffle(len(next.Pods), func(i, j int) { next.Pods[i], next.Pods[j] = next.Pods[j], next.Pods[i] })
	return next
}
