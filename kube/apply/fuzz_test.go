package apply_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// choices reads a fuzz input as a stream of small choices; 0 once it is
// used up.
type choices []byte

func (c *choices) next(n int) int {
	if len(*c) == 0 || n <= 0 {
		return 0
	}
	b := (*c)[0]
	*c = (*c)[1:]
	return int(b) % n
}

// FuzzApply builds a snapshot from the input (nodes; pods the DaemonSet
// controls, orphans and another controller's pods; revisions), plans it
// with kubesync and adds writes a stale or altered plan could hold, then
// changes the fake API server's objects between the plan and its Apply:
// another controller takes a pod or revision over (same UID, new
// resourceVersion), a pod is deleted, or recreated under the same name
// (another UID, any owner), or only its status changes. The oracle, read
// from the objects at Apply time and after:
//
//  1. an object another controller controls at Apply time is never
//     written: it keeps its UID and resourceVersion;
//  2. an orphan at Apply time is written only to be adopted: if it
//     changed, the DaemonSet controls it after, and it is deleted only
//     after this Apply adopted it;
//  3. pods are created only on nodes of the snapshot, at most once per
//     node, and never beyond one live pod of the DaemonSet per node in the
//     snapshot (two with surge).
func FuzzApply(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 1, 2, 3, 4, 1, 0, 1, 1, 2, 1, 3, 1, 4, 1})
	f.Add([]byte{2, 2, 1, 1, 0, 5, 2, 1, 1, 2, 2, 3, 3, 0, 4})
	f.Add([]byte{1, 3, 2, 4, 4, 4, 4, 1, 1, 1, 1, 2, 0, 0, 1, 2, 3})
	f.Add([]byte{3, 0, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := choices(data)
		ctx := context.Background()
		c, err := load.Read(strings.NewReader(fuzzDaemonSet))
		if err != nil {
			t.Fatal(err)
		}
		ds := c.DaemonSet
		surge := in.next(2) == 1
		if surge {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{
				MaxUnavailable: new(intstr.FromInt32(0)), MaxSurge: new(intstr.FromInt32(1))}
		}
		ours := []metav1.OwnerReference{convert.ControllerRef(ds)}
		owners := [][]metav1.OwnerReference{ours, ours, nil, replicaSet}
		nodes := 1 + in.next(4)
		var names []string
		for i := range nodes {
			node := fmt.Sprintf("node-%d", i)
			c.Nodes = append(c.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
			for j := range in.next(3) {
				name := fmt.Sprintf("pod-%d-%d", i, j)
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
						Labels: map[string]string{"app": "agent"}, OwnerReferences: owners[in.next(len(owners))]},
					Spec:   corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "agent", Image: []string{"agent:v1", "agent:v0"}[in.next(2)]}}},
					Status: corev1.PodStatus{Phase: []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodFailed}[in.next(3)]},
				}
				c.Pods = append(c.Pods, pod)
				names = append(names, name)
			}
		}
		for i, owner := range [][]metav1.OwnerReference{ours, replicaSet, nil}[:in.next(4)] {
			c.Revisions = append(c.Revisions, &appsv1.ControllerRevision{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("rev-%d", i), Namespace: "default", UID: types.UID(fmt.Sprintf("rev-uid-%d", i)),
					Labels: map[string]string{"app": "agent"}, OwnerReferences: owner},
				Revision: int64(i + 1),
			})
		}
		fc := fakeclient.New(c, now)
		if in.next(2) == 1 { // the snapshot as an informer holds it, with resourceVersions
			stampAll(t, fc, c)
			if c, err = fc.Snapshot(ctx, "default", "agent"); err != nil {
				t.Fatal(err)
			}
		}
		p, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
		if err != nil {
			t.Skip(err)
		}
		// What a stale or altered plan adds.
		anyPod := func() string {
			if len(names) == 0 || in.next(4) == 0 {
				return "ghost"
			}
			return names[in.next(len(names))]
		}
		for range in.next(3) {
			p.Delete = append(p.Delete, placement.Delete{Pod: anyPod(), Reason: placement.Duplicate})
		}
		for range in.next(3) {
			p.Relabel = append(p.Relabel, revision.PodRelabel{Pod: anyPod(), Hash: "stale"})
		}
		for range in.next(3) {
			p.Adopt = append(p.Adopt, anyPod())
		}
		for range in.next(3) {
			node := "ghost-node"
			if in.next(3) > 0 {
				node = fmt.Sprintf("node-%d", in.next(nodes))
			}
			var cr placement.Create
			if len(p.Create) > 0 {
				cr = p.Create[0]
			} else {
				cr.Labels = map[string]string{"app": "agent"}
			}
			cr.Node = node
			p.Create = append(p.Create, cr)
		}
		for _, r := range c.Revisions {
			if in.next(3) == 0 {
				p.Revisions.Delete = append(p.Revisions.Delete, r.Name)
			}
		}

		// Another client changes the objects before the writes.
		for _, pod := range c.Pods {
			pod = pod.DeepCopy()
			switch in.next(6) {
			case 1: // taken over
				pod.OwnerReferences = replicaSet
				store(t, fc, pod)
			case 2: // deleted
				_ = fc.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{})
			case 3: // name reused
				pod.UID = pod.UID + "-new"
				pod.OwnerReferences = owners[in.next(len(owners))]
				recreate(t, fc, pod)
			case 4: // status only
				pod.Status.Phase = corev1.PodSucceeded
				store(t, fc, pod)
			case 5: // orphaned
				pod.OwnerReferences = nil
				store(t, fc, pod)
			}
		}
		for _, r := range c.Revisions {
			r = r.DeepCopy()
			switch in.next(3) {
			case 1:
				r.OwnerReferences = replicaSet
				store(t, fc, r)
			case 2:
				_ = fc.AppsV1().ControllerRevisions("default").Delete(ctx, r.Name, metav1.DeleteOptions{})
			}
		}

		before, err := fc.Snapshot(ctx, "default", "agent")
		if err != nil {
			t.Fatal(err)
		}
		fc.ClearActions()
		res := apply.Apply(ctx, fc, c, p)
		after, err := fc.Snapshot(ctx, "default", "agent")
		if err != nil {
			t.Fatal(err)
		}

		controls := func(o metav1.Object) bool {
			ref := metav1.GetControllerOfNoCopy(o)
			return ref != nil && ref.UID == ds.UID
		}
		adopted := map[string]bool{}
		for _, w := range res.Writes {
			if w.Err == nil && (w.Action == apply.AdoptPod || w.Action == apply.AdoptRevision) {
				adopted[map[apply.Action]string{apply.AdoptPod: "pod", apply.AdoptRevision: "revision"}[w.Action]+"/"+w.Name] = true
			}
		}
		check := func(kind string, was, is metav1.Object) {
			switch ref := metav1.GetControllerOfNoCopy(was); {
			case ref != nil && ref.UID == ds.UID:
				return
			case ref != nil: // 1.
				if is == nil || is.GetUID() != was.GetUID() || is.GetResourceVersion() != was.GetResourceVersion() {
					t.Errorf("%s %s of %s %s was written: %v\nwrites: %+v", kind, was.GetName(), ref.Kind, ref.Name, describe(is), res.Writes)
				}
			default: // 2.
				if adopted[kind+"/"+was.GetName()] && (is == nil || controls(is)) {
					return // adopted, then the DaemonSet's to delete
				}
				if is == nil || is.GetUID() != was.GetUID() {
					t.Errorf("orphan %s %s was deleted: %v\nwrites: %+v", kind, was.GetName(), describe(is), res.Writes)
				} else if is.GetResourceVersion() != was.GetResourceVersion() && !controls(is) {
					t.Errorf("orphan %s %s was written and not adopted: %v\nwrites: %+v", kind, was.GetName(), describe(is), res.Writes)
				}
			}
		}
		for _, pod := range before.Pods {
			check("pod", pod, objOrNil(podIn(after, pod.Name)))
		}
		for _, r := range before.Revisions {
			check("revision", r, objOrNil(revisionIn(after, r.Name)))
		}

		// 3.
		limit := 1
		if surge {
			limit = 2
		}
		live := map[string]int{}
		for _, pod := range c.Pods {
			if controls(pod) && pod.DeletionTimestamp == nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
				live[pod.Spec.NodeName]++
			}
		}
		inSnapshot := map[string]bool{}
		for _, n := range c.Nodes {
			inSnapshot[n.Name] = true
		}
		created := map[string]int{}
		for _, a := range fc.Writes() {
			if a, ok := a.(k8stesting.CreateAction); ok && a.GetVerb() == "create" && a.GetResource().Resource == "pods" {
				node := nodeOf(a.GetObject().(*corev1.Pod))
				created[node]++
				switch {
				case !inSnapshot[node]:
					t.Errorf("pod created on node %s, not in the snapshot", node)
				case created[node] > 1:
					t.Errorf("%d pods created on node %s", created[node], node)
				case live[node]+created[node] > limit:
					t.Errorf("pod created on node %s, which runs %d of the DaemonSet's pods in the snapshot (limit %d)", node, live[node], limit)
				}
			}
		}
	})
}

func describe(o metav1.Object) string {
	if o == nil {
		return "gone"
	}
	return fmt.Sprintf("uid %s, resourceVersion %s, owners %v, labels %v", o.GetUID(), o.GetResourceVersion(), o.GetOwnerReferences(), o.GetLabels())
}

const fuzzDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default, uid: ds-uid, generation: 1}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent:v1}]}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
`
