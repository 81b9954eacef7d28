package kubesync_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

// world is a cluster of Kubernetes objects that changes as an API server's
// objects do: an object is never changed in place, a changed object is a
// new one with a new resourceVersion, and a re-created one has a new UID.
type world struct {
	t       *rapid.T
	ds      *appsv1.DaemonSet
	revs    []*appsv1.ControllerRevision
	nodes   map[string]*corev1.Node
	pods    map[string]*corev1.Pod
	version int // the last resourceVersion given
	uids    int // the last UID given
}

func (w *world) rv() string  { w.version++; return fmt.Sprint(w.version) }
func (w *world) uid() string { w.uids++; return fmt.Sprintf("uid-%d", w.uids) }

func newWorld(t *rapid.T) *world {
	w := &world{t: t, ds: kubecluster.DaemonSet(), nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}}
	old := w.ds.DeepCopy()
	old.Generation = 1
	old.Spec.Template.Spec.Tolerations = nil
	w.revs = []*appsv1.ControllerRevision{kubecluster.Revision(old, 1), kubecluster.Revision(w.ds, 2)}
	for i := range rapid.IntRange(0, 6).Draw(t, "nodes") {
		w.addNode(fmt.Sprintf("node-%d", i))
	}
	for range rapid.IntRange(0, 8).Draw(t, "pods") {
		w.addPod()
	}
	return w
}

func (w *world) nodeNames() []string { return slices.Sorted(maps.Keys(w.nodes)) }
func (w *world) podNames() []string  { return slices.Sorted(maps.Keys(w.pods)) }

func (w *world) addNode(name string) {
	n := kubecluster.Node(name)
	n.UID, n.ResourceVersion = types.UID(w.uid()), w.rv()
	if rapid.Bool().Draw(w.t, "tainted") {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
	}
	w.nodes[name] = n
}

func (w *world) addPod() {
	node := "node-gone"
	if names := w.nodeNames(); len(names) > 0 && rapid.IntRange(0, 5).Draw(w.t, "bound") > 0 {
		node = rapid.SampledFrom(names).Draw(w.t, "node")
	}
	hash := rapid.SampledFrom([]string{w.revs[0].Labels[api.LabelRevisionHash], w.revs[1].Labels[api.LabelRevisionHash], "other"}).Draw(w.t, "hash")
	name := fmt.Sprintf("agent-%d", w.uids+1)
	p := kubecluster.Pod(w.ds, name, node, hash, "2")
	p.UID, p.ResourceVersion = types.UID(w.uid()), w.rv()
	if rapid.IntRange(0, 5).Draw(w.t, "orphan") == 0 {
		p.OwnerReferences = nil
	}
	w.pods[name] = p
}

// step changes the world as a few writes do.
func (w *world) step() {
	for range rapid.IntRange(0, 4).Draw(w.t, "writes") {
		w.write()
	}
}

func (w *world) write() {
	t := w.t
	nodes, pods := w.nodeNames(), w.podNames()
	switch rapid.IntRange(0, 13).Draw(t, "write") {
	case 0: // a node's labels change: in or out of the nodeSelector, or another label
		if len(nodes) == 0 {
			return
		}
		n := w.nodes[rapid.SampledFrom(nodes).Draw(t, "node")].DeepCopy()
		if rapid.Bool().Draw(t, "os") {
			n.Labels["kubernetes.io/os"] = rapid.SampledFrom([]string{"linux", "windows"}).Draw(t, "value")
		} else {
			n.Labels["example.com/label-00"] = fmt.Sprint(w.version)
		}
		n.ResourceVersion = w.rv()
		w.nodes[n.Name] = n
	case 1: // a node's taints change
		if len(nodes) == 0 {
			return
		}
		n := w.nodes[rapid.SampledFrom(nodes).Draw(t, "node")].DeepCopy()
		if len(n.Spec.Taints) > 0 {
			n.Spec.Taints = nil
		} else {
			n.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: rapid.SampledFrom([]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}).Draw(t, "effect")}}
		}
		n.ResourceVersion = w.rv()
		w.nodes[n.Name] = n
	case 2: // a node is deleted, or re-created under its name with a new UID
		if len(nodes) == 0 {
			return
		}
		name := rapid.SampledFrom(nodes).Draw(t, "node")
		delete(w.nodes, name)
		if rapid.Bool().Draw(t, "recreate") {
			w.addNode(name)
		}
	case 3:
		w.addNode(fmt.Sprintf("node-%d", w.uids+1))
	case 4: // a pod is deleted, or re-created under its name with a new UID
		if len(pods) == 0 {
			return
		}
		name := rapid.SampledFrom(pods).Draw(t, "pod")
		if rapid.Bool().Draw(t, "recreate") {
			p := w.pods[name].DeepCopy()
			p.UID, p.ResourceVersion = types.UID(w.uid()), w.rv()
			w.pods[name] = p
		} else {
			delete(w.pods, name)
		}
	case 5:
		w.addPod()
	case 6: // a pod is relabelled: another hash, or out of the selector
		if len(pods) == 0 {
			return
		}
		p := w.pods[rapid.SampledFrom(pods).Draw(t, "pod")].DeepCopy()
		p.Labels = maps.Clone(p.Labels)
		if rapid.Bool().Draw(t, "app") {
			p.Labels["app"] = rapid.SampledFrom([]string{"agent", "other"}).Draw(t, "value")
		} else {
			p.Labels[api.LabelRevisionHash] = rapid.SampledFrom([]string{w.revs[0].Labels[api.LabelRevisionHash], w.revs[1].Labels[api.LabelRevisionHash], "other"}).Draw(t, "hash")
		}
		p.ResourceVersion = w.rv()
		w.pods[p.Name] = p
	case 7: // a pod's status changes: unready, failed, or terminating
		if len(pods) == 0 {
			return
		}
		p := w.pods[rapid.SampledFrom(pods).Draw(t, "pod")].DeepCopy()
		switch rapid.IntRange(0, 2).Draw(t, "status") {
		case 0:
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse}).Draw(t, "ready"),
				LastTransitionTime: metav1.Time{Time: kubecluster.Now.Add(time.Duration(w.version) * time.Second)}}}
		case 1:
			p.Status.Phase = corev1.PodFailed
		case 2:
			p.DeletionTimestamp = &metav1.Time{Time: kubecluster.Now}
		}
		p.ResourceVersion = w.rv()
		w.pods[p.Name] = p
	case 8: // the template changes: a new revision to roll out
		ds := w.ds.DeepCopy()
		ds.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("agent:v%d", w.version)
		ds.Generation++
		ds.Annotations[api.AnnotationTemplateGeneration] = fmt.Sprint(ds.Generation)
		ds.ResourceVersion = w.rv()
		w.ds = ds
	case 9: // the nodeSelector or the selector changes
		ds := w.ds.DeepCopy()
		if rapid.Bool().Draw(t, "nodeSelector") {
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": rapid.SampledFrom([]string{"linux", "windows"}).Draw(t, "os")}
		} else {
			v := rapid.SampledFrom([]string{"agent", "other"}).Draw(t, "app")
			ds.Spec.Selector.MatchLabels = map[string]string{"app": v}
			ds.Spec.Template.Labels = map[string]string{"app": v}
		}
		ds.Generation++
		ds.ResourceVersion = w.rv()
		w.ds = ds
	case 10: // objects copied as they are (a lister that copies, a dump read again)
		for _, name := range nodes {
			if rapid.Bool().Draw(t, "copy node") {
				w.nodes[name] = w.nodes[name].DeepCopy()
			}
		}
		for _, name := range pods {
			if rapid.Bool().Draw(t, "copy pod") {
				w.pods[name] = w.pods[name].DeepCopy()
			}
		}
	case 11: // an object without a resourceVersion (or UID): converted at every sync
		if len(pods) == 0 {
			return
		}
		p := w.pods[rapid.SampledFrom(pods).Draw(t, "pod")].DeepCopy()
		if rapid.Bool().Draw(t, "no uid") {
			p.UID = ""
		} else {
			p.ResourceVersion = ""
		}
		w.pods[p.Name] = p
	case 12: // a node listed under the name of another's UID (never from an API server)
		if len(nodes) < 2 {
			return
		}
		a, b := rapid.SampledFrom(nodes).Draw(t, "a"), rapid.SampledFrom(nodes).Draw(t, "b")
		if a == b {
			return
		}
		n := w.nodes[b].DeepCopy()
		n.UID, n.ResourceVersion = w.nodes[a].UID, w.rv()
		delete(w.nodes, a)
		w.nodes[b] = n
	case 13: // a node or pod listed under a new name, its UID and resourceVersion kept (never from an API server)
		name := fmt.Sprintf("renamed-%d", w.uids+1)
		w.uids++
		if rapid.Bool().Draw(t, "rename node") {
			if len(nodes) == 0 {
				return
			}
			old := rapid.SampledFrom(nodes).Draw(t, "node")
			n := w.nodes[old].DeepCopy()
			n.Name = "node-" + name
			delete(w.nodes, old)
			w.nodes[n.Name] = n
			return
		}
		if len(pods) == 0 {
			return
		}
		old := rapid.SampledFrom(pods).Draw(t, "pod")
		p := w.pods[old].DeepCopy()
		p.Name = "agent-" + name
		delete(w.pods, old)
		w.pods[p.Name] = p
	}
}

// apply carries out p's pod deletes and creates, as a controller does.
func (w *world) apply(p daemonplan.Plan) {
	for _, d := range p.Delete {
		delete(w.pods, d.Pod)
	}
	for i, c := range p.Create {
		pod, err := convert.NewPod(w.ds, c)
		if err != nil {
			w.t.Fatal(err)
		}
		pod.Name = fmt.Sprintf("agent-created-%d-%d", w.version, i)
		pod.UID, pod.ResourceVersion = types.UID(w.uid()), w.rv()
		pod.Spec.NodeName = c.Node
		w.pods[pod.Name] = pod
	}
}

// snapshot lists the world in a random order, as a lister does.
func (w *world) snapshot() *load.Snapshot {
	s := &load.Snapshot{DaemonSet: w.ds, Revisions: w.revs}
	for _, name := range w.nodeNames() {
		s.Nodes = append(s.Nodes, w.nodes[name])
	}
	for _, name := range w.podNames() {
		s.Pods = append(s.Pods, w.pods[name])
	}
	s.Nodes = rapid.Permutation(s.Nodes).Draw(w.t, "node order")
	s.Pods = rapid.Permutation(s.Pods).Draw(w.t, "pod order")
	if len(s.Pods) > 0 && rapid.IntRange(0, 30).Draw(w.t, "listed twice") == 0 {
		s.Pods = append(s.Pods, s.Pods[rapid.IntRange(0, len(s.Pods)-1).Draw(w.t, "twice")])
	}
	return s
}

// TestPlannerEqualsSync is the Planner's differential property: through
// a sequence of syncs of a changing world (nodes relabelled, tainted,
// deleted and re-created under their names; pods added, deleted,
// relabelled, failing, terminating, re-created; the template, the
// nodeSelector and the selector changed; objects copied, or without a
// resourceVersion; objects listed under a new name with their UID and
// resourceVersion; lists in a new order each time; the plans' writes
// applied), a warm Planner's plan equals a cold Sync's, every sync.
func TestPlannerEqualsSync(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWorld(t)
		opts := kubesync.Options{}
		opts.Placement.IgnoredDuringExecution = rapid.IntRange(0, 3).Draw(t, "ignored") == 0
		opts.Strict = rapid.IntRange(0, 3).Draw(t, "strict") == 0
		pl, err := kubesync.NewPlanner(opts)
		if err != nil {
			t.Fatal(err)
		}
		var st kubesync.State
		now := kubecluster.Now
		for i := range rapid.IntRange(1, 12).Draw(t, "syncs") {
			s := w.snapshot()
			want, wantErr := kubesync.Sync(s, now, st, opts)
			got, gotErr := pl.Sync(s, now, st)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("sync %d: error %v, Sync's %v", i, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("sync %d: plan differs from Sync's:\n got %+v\nwant %+v", i, got, want)
			}
			if wantErr == nil {
				st.Backoff = want.Backoff
				if rapid.Bool().Draw(t, "apply") {
					w.apply(want)
				}
			}
			now = now.Add(time.Duration(rapid.IntRange(0, 120).Draw(t, "seconds")) * time.Second)
			w.step()
		}
	})
}

// TestPlannerRenamedObject: an object listed under another name (or, for a
// pod, another namespace) with a UID and resourceVersion the Planner
// knows. An API server never does this, but a snapshot assembled by hand
// or by a fake clientset can: the Planner kept the conversion of the old
// name, and its plan created a pod on a node the snapshot no longer held.
// A warm Planner's plan must equal a cold Sync's.
func TestPlannerRenamedObject(t *testing.T) {
	tests := []struct {
		name, reason string
		// setup changes the first snapshot, change the second.
		setup, change func(s *load.Snapshot)
	}{
		{"node renamed", "node-1 listed as node-9 with node-1's UID and resourceVersion: the warm plan created on node-1, gone",
			nil, func(s *load.Snapshot) { s.Nodes[1] = renamed(s.Nodes[1], "", "node-9") }},
		{"nodes swapped", "node-0 and node-1 (Windows, outside the nodeSelector) trade names, UIDs and resourceVersions kept: node-0 must be the one decided ineligible",
			func(s *load.Snapshot) { s.Nodes[1].Labels["kubernetes.io/os"] = "windows" }, func(s *load.Snapshot) {
				s.Nodes[0], s.Nodes[1] = renamed(s.Nodes[1], "", "node-0"), renamed(s.Nodes[0], "", "node-1")
			}},
		{"pod renamed", "agent-1 listed as agent-9: the plan must name agent-9, the pod the snapshot holds",
			nil, func(s *load.Snapshot) { s.Pods[1] = renamed(s.Pods[1], s.Pods[1].Namespace, "agent-9") }},
		{"pod in another namespace", "agent-1 listed in namespace other: no longer the DaemonSet's pod, so node-1 needs one",
			nil, func(s *load.Snapshot) { s.Pods[1] = renamed(s.Pods[1], "other", "agent-1") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := kubecluster.DaemonSet()
			s := &load.Snapshot{DaemonSet: ds, Revisions: []*appsv1.ControllerRevision{kubecluster.Revision(ds, 1)}}
			hash := s.Revisions[0].Labels[api.LabelRevisionHash]
			for i := range 2 {
				n := kubecluster.Node(fmt.Sprintf("node-%d", i))
				n.UID, n.ResourceVersion = types.UID(fmt.Sprintf("node-uid-%d", i)), fmt.Sprint(10+i)
				p := kubecluster.Pod(ds, fmt.Sprintf("agent-%d", i), n.Name, hash, "1")
				p.UID, p.ResourceVersion = types.UID(fmt.Sprintf("pod-uid-%d", i)), fmt.Sprint(20+i)
				s.Nodes, s.Pods = append(s.Nodes, n), append(s.Pods, p)
			}
			if tc.setup != nil {
				tc.setup(s)
			}
			pl, err := kubesync.NewPlanner(kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pl.Sync(s, kubecluster.Now, kubesync.State{}); err != nil {
				t.Fatal(err)
			}
			next := *s
			next.Nodes, next.Pods = slices.Clone(s.Nodes), slices.Clone(s.Pods)
			tc.change(&next)
			want, err := kubesync.Sync(&next, kubecluster.Now, kubesync.State{}, kubesync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := pl.Sync(&next, kubecluster.Now, kubesync.State{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the warm plan differs from Sync's:\n got creates %v deletes %v keep %v nodes %v\nwant creates %v deletes %v keep %v nodes %v",
					tc.reason, creates(got), got.Delete, got.Keep, got.Nodes, creates(want), want.Delete, want.Keep, want.Nodes)
			}
		})
	}
}

// renamed is a copy of obj under namespace (for a pod) and name, its UID
// and resourceVersion kept.
func renamed[T interface {
	*corev1.Node | *corev1.Pod
	metav1.Object
}](obj T, namespace, name string) T {
	var out T
	switch o := any(obj).(type) {
	case *corev1.Node:
		out = any(o.DeepCopy()).(T)
	case *corev1.Pod:
		out = any(o.DeepCopy()).(T)
	}
	out.SetNamespace(namespace)
	out.SetName(name)
	return out
}

func creates(p daemonplan.Plan) []string {
	var out []string
	for _, c := range p.Create {
		out = append(out, c.Node)
	}
	return out
}
