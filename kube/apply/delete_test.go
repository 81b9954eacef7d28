package apply_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/placement"
)

// listSnapshot lists the DaemonSet default/agent, every node, and the
// pods and revisions of default from client, as a controller's listers do.
func listSnapshot(t *testing.T, client kubernetes.Interface) *load.Snapshot {
	t.Helper()
	ctx := context.Background()
	ds, err := client.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &load.Snapshot{DaemonSet: ds}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		s.Nodes = append(s.Nodes, &nodes.Items[i])
	}
	pods, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		s.Pods = append(s.Pods, &pods.Items[i])
	}
	revs, err := client.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range revs.Items {
		s.Revisions = append(s.Revisions, &revs.Items[i])
	}
	return s
}

// TestApplyRechecksAStalePlannersDelete reproduces issue 38's finding 7
// with client-go's fake clientset, whose object tracker stores an update
// without giving the object a new resourceVersion: a node the DaemonSet
// did not select is relabelled so that it does, and gets the DaemonSet's
// Ready pod. A warm kubesync.Planner keeps the node's old conversion (the
// documented caller error: a changed object must have a new
// resourceVersion) and its plan deletes the Ready pod as NotEligible.
// Apply deleted it: it checked the pod's owner, not the delete's reason.
// It now decides the node again from the snapshot, as it does for a
// create, and refuses the delete.
func TestApplyRechecksAStalePlannersDelete(t *testing.T) {
	ctx := context.Background()
	c, err := load.Read(strings.NewReader(cluster))
	if err != nil {
		t.Fatal(err)
	}
	ds := c.DaemonSet
	ds.ResourceVersion = "1"
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "agents"}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-00", UID: "node-uid", ResourceVersion: "1", Labels: map[string]string{"pool": "db"}}}
	client := fake.NewClientset(ds, node)
	pl, err := kubesync.NewPlanner(kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := listSnapshot(t, client)
	p, err := pl.Sync(s, now, kubesync.State{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Create) != 0 {
		t.Fatalf("precondition: node-00 is outside the nodeSelector; the plan creates %v", p.Create)
	}
	if err := apply.Apply(ctx, client, s, p).Err(); err != nil {
		t.Fatal(err)
	}

	// Another client relabels the node; the fake keeps its
	// resourceVersion. The DaemonSet's pod runs there, Ready.
	node = node.DeepCopy()
	node.Labels["pool"] = "agents"
	if _, err := client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-ready", Namespace: "default", UID: "pod-uid", ResourceVersion: "1",
			Labels: map[string]string{"app": "agent", api.LabelRevisionHash: p.Hash}, OwnerReferences: []metav1.OwnerReference{convert.ControllerRef(ds)}},
		Spec: corev1.PodSpec{NodeName: "node-00"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}},
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	s = listSnapshot(t, client)
	cold, err := kubesync.Sync(s, now, kubesync.State{}, kubesync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err = pl.Sync(s, now, kubesync.State{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cold.Delete) != 0 || !slices.ContainsFunc(p.Delete, func(d placement.Delete) bool { return d.Pod == "agent-ready" }) {
		t.Fatalf("precondition: the warm plan deletes the Ready pod (the caller's error), a cold one does not; warm %v, cold %v", p.Delete, cold.Delete)
	}
	res := apply.Apply(ctx, client, s, p)
	i := slices.IndexFunc(res.Writes, func(w apply.Write) bool { return w.Action == apply.DeletePod })
	if i < 0 || !errors.Is(res.Writes[i].Err, apply.ErrUnjustifiedDelete) {
		t.Errorf("writes %+v, want the delete refused with ErrUnjustifiedDelete", res.Writes)
	}
	if _, err := client.CoreV1().Pods("default").Get(ctx, "agent-ready", metav1.GetOptions{}); err != nil {
		t.Errorf("the Ready pod on a node the DaemonSet selects was deleted: %v", err)
	}
}

// TestApplyRechecksDeletes: a delete is issued only while its reason
// holds, decided again from the snapshot's DaemonSet and nodes and from
// the pod as read from the API server just before the delete, as a create
// is decided again from the snapshot. The plans are made by hand, as a
// stale or altered plan would be; "mine" is the DaemonSet's pod on
// node-01.
func TestApplyRechecksDeletes(t *testing.T) {
	gone := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-09"}}}}}}}}
	ok := error(nil)
	tests := []struct {
		name, reason string
		// change alters the snapshot (and what the fake API server holds)
		change  func(c *load.Snapshot, mine *corev1.Pod)
		deletes []placement.Delete
		want    []error // per delete: nil when issued and done
	}{
		{"not eligible, node eligible", "node-01 matches the DaemonSet: a stale plan's delete of its Ready pod",
			nil, del("mine", "node-01", placement.NotEligible), []error{apply.ErrUnjustifiedDelete}},
		{"not eligible, node outside the nodeSelector", "the reason holds",
			func(c *load.Snapshot, _ *corev1.Pod) {
				c.DaemonSet.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "agents"}
				for _, n := range c.Nodes {
					if n.Name != "node-01" {
						n.Labels = map[string]string{"pool": "agents"}
					}
				}
			}, del("mine", "node-01", placement.NotEligible), []error{ok}},
		{"untolerated taint, none", "node-01 has no taint",
			nil, del("mine", "node-01", placement.UntoleratedTaint), []error{apply.ErrUnjustifiedDelete}},
		{"untolerated taint, NoExecute", "the reason holds",
			func(c *load.Snapshot, _ *corev1.Pod) { taint(c, "node-01", corev1.TaintEffectNoExecute) },
			del("mine", "node-01", placement.UntoleratedTaint), []error{ok}},
		{"not eligible given for a taint", "the node is tainted NoExecute, which is UntoleratedTaint, not NotEligible: the plan is not the snapshot's",
			func(c *load.Snapshot, _ *corev1.Pod) { taint(c, "node-01", corev1.TaintEffectNoExecute) },
			del("mine", "node-01", placement.NotEligible), []error{apply.ErrUnjustifiedDelete}},
		{"failed, pod running", "the pod's phase is not Failed",
			nil, del("mine", "node-01", placement.Failed), []error{apply.ErrUnjustifiedDelete}},
		{"failed", "the reason holds",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Status.Phase = corev1.PodFailed },
			del("mine", "node-01", placement.Failed), []error{ok}},
		{"succeeded, pod failed", "Failed is not Succeeded",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Status.Phase = corev1.PodFailed },
			del("mine", "node-01", placement.Succeeded), []error{apply.ErrUnjustifiedDelete}},
		{"duplicate, the node's only pod", "no other pod of the DaemonSet runs on node-01: the node would be left without one",
			nil, del("mine", "node-01", placement.Duplicate), []error{apply.ErrUnjustifiedDelete}},
		{"duplicate, another kept", "mine-2 runs on node-01 too and stays",
			func(c *load.Snapshot, mine *corev1.Pod) { c.Pods = append(c.Pods, twin(mine)) },
			del("mine", "node-01", placement.Duplicate), []error{ok}},
		{"duplicates, both deleted", "each is the other's duplicate, and the plan deletes both: node-01 would keep none",
			func(c *load.Snapshot, mine *corev1.Pod) { c.Pods = append(c.Pods, twin(mine)) },
			slices.Concat(del("mine", "node-01", placement.Duplicate), del("mine-2", "node-01", placement.Duplicate)),
			[]error{apply.ErrUnjustifiedDelete, apply.ErrUnjustifiedDelete}},
		{"surge replaced, no other pod", "no new pod on node-01 replaces it",
			nil, del("mine", "node-01", placement.SurgeReplaced), []error{apply.ErrUnjustifiedDelete}},
		{"outdated, current revision", "the pod carries the plan's hash: it is not outdated",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Labels[api.LabelRevisionHash] = "current" },
			del("mine", "node-01", placement.Outdated), []error{apply.ErrUnjustifiedDelete}},
		{"outdated", "the pod carries another hash: the reason holds",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Labels[api.LabelRevisionHash] = "old" },
			del("mine", "node-01", placement.Outdated), []error{ok}},
		{"unschedulable, node should run", "node-01 should run the pod",
			nil, del("mine", "node-01", placement.Unschedulable), []error{apply.ErrUnjustifiedDelete}},
		{"node gone, node there", "node-01 is in the snapshot",
			nil, del("mine", "node-01", placement.NodeGone), []error{apply.ErrUnjustifiedDelete}},
		{"node gone, pod bound", "a bound pod on a vanished node is pod GC's, not the DaemonSet's",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Spec.NodeName = "node-09" },
			del("mine", "node-09", placement.NodeGone), []error{apply.ErrUnjustifiedDelete}},
		{"node gone", "an unbound pod for a node the snapshot lacks: the reason holds",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Spec.NodeName, mine.Spec.Affinity = "", gone },
			del("mine", "node-09", placement.NodeGone), []error{ok}},
		{"another node", "the delete names node-02; the pod is on node-01",
			func(_ *load.Snapshot, mine *corev1.Pod) { mine.Status.Phase = corev1.PodFailed },
			del("mine", "node-02", placement.Failed), []error{apply.ErrUnjustifiedDelete}},
		{"no reason", "a delete without a reason is justified by nothing",
			nil, del("mine", "node-01", 0), []error{apply.ErrUnjustifiedDelete}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := readSnapshot(t, 3)
			c.Pods = nil
			addOwned(c)
			if tc.change != nil {
				tc.change(c, podIn(c, "mine"))
			}
			fc := fakeclient.New(c, now)
			p := daemonplan.Plan{Namespace: "default", Name: "agent", Hash: "current", Delete: tc.deletes}
			res := apply.Apply(context.Background(), fc, c, p)
			if len(res.Writes) != len(tc.want) {
				t.Fatalf("%s: writes %+v, want %d deletes", tc.reason, res.Writes, len(tc.want))
			}
			after, err := fc.Snapshot(context.Background(), "default", "agent")
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range res.Writes {
				if tc.want[i] == nil && w.Err != nil || !errors.Is(w.Err, tc.want[i]) {
					t.Errorf("%s: %s %s: err %v, want %v", tc.reason, w.Action, w.Name, w.Err, tc.want[i])
				}
				if deleted := podIn(after, w.Name) == nil; deleted != (tc.want[i] == nil) {
					t.Errorf("%s: pod %s deleted %v, want %v", tc.reason, w.Name, deleted, tc.want[i] == nil)
				}
			}
		})
	}
}

func del(pod, node string, why placement.DeleteReason) []placement.Delete {
	return []placement.Delete{{Pod: pod, Node: node, Reason: why}}
}

// twin is another pod of the DaemonSet next to pod, named pod's name
// and "-2".
func twin(pod *corev1.Pod) *corev1.Pod {
	out := pod.DeepCopy()
	out.Name, out.UID = pod.Name+"-2", pod.UID+"-2"
	return out
}

func taint(c *load.Snapshot, node string, effect corev1.TaintEffect) {
	for _, n := range c.Nodes {
		if n.Name == node {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: effect})
		}
	}
}

// TestApplyIssuesEveryDeleteOfAFreshPlan is the other side of the delete
// checks: they must never refuse what the snapshot justifies, or a
// controller's rollout would stall on a plan it cannot apply. For any
// cluster (nodes tainted NoExecute or NoSchedule, outside the nodeSelector
// or missing; pods Running, Pending, Failed or Succeeded, Ready or not,
// of the current, an old or no revision, two on a node, unbound and bound
// to nodes gone; or a calm cluster, one Ready pod per node, where the
// rolling update deletes; with or without surge), the plan kubesync.Sync
// makes from it is applied without a write refused. Each reason's check,
// broken on purpose, fails it within the default 100 runs.
func TestApplyIssuesEveryDeleteOfAFreshPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, err := load.Read(strings.NewReader(fuzzDaemonSet))
		if err != nil {
			t.Fatal(err)
		}
		ds := c.DaemonSet
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "agents"}
		if rapid.Bool().Draw(t, "surge") {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{
				MaxUnavailable: new(intstr.FromInt32(0)), MaxSurge: new(intstr.FromInt32(1))}
		}
		// The current revision's hash, from a plan of the DaemonSet alone.
		first, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		hashes := []string{first.Hash, "old", ""}
		// A calm cluster (one Running, Ready pod per node) is where the
		// rolling update deletes: its budget is free.
		calm := rapid.Bool().Draw(t, "calm")
		ours := []metav1.OwnerReference{convert.ControllerRef(ds)}
		nodes := rapid.IntRange(1, 5).Draw(t, "nodes")
		for i := range nodes + 1 { // the last node is missing from the snapshot
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), UID: types.UID(fmt.Sprintf("node-uid-%d", i)),
				Labels: map[string]string{"pool": rapid.SampledFrom([]string{"agents", "agents", "db"}).Draw(t, "pool")}}}
			if effect := rapid.SampledFrom([]corev1.TaintEffect{"", "", corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}).Draw(t, "taint"); effect != "" {
				node.Spec.Taints = []corev1.Taint{{Key: "maintenance", Effect: effect}}
			}
			if i < nodes {
				c.Nodes = append(c.Nodes, node)
			}
			pods := 1
			switch {
			case !calm:
				pods = rapid.IntRange(0, 2).Draw(t, "pods")
			case i == nodes:
				// An old pod for a node the snapshot lacks fails the
				// surge pass (upstream's node lookup): none, when calm.
				pods = 0
			}
			for j := range pods {
				name := fmt.Sprintf("pod-%d-%d", i, j)
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
						CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(rapid.IntRange(1, 100).Draw(t, "age")) * time.Minute)),
						Labels:            map[string]string{"app": "agent", api.LabelRevisionHash: rapid.SampledFrom(hashes).Draw(t, "hash")}, OwnerReferences: ours},
					Spec:   corev1.PodSpec{NodeName: node.Name},
					Status: corev1.PodStatus{Phase: corev1.PodRunning},
				}
				if !calm {
					pod.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodFailed, corev1.PodSucceeded}).Draw(t, "phase")
				}
				if calm || rapid.Bool().Draw(t, "ready") {
					pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}
				}
				if i == nodes || !calm && rapid.IntRange(0, 4).Draw(t, "unbound") == 0 {
					pod.Spec.NodeName = ""
					pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
							{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node.Name}}}}}}}}
				}
				c.Pods = append(c.Pods, pod)
			}
		}
		fc := fakeclient.New(c, now)
		if rapid.Bool().Draw(t, "resourceVersions") { // as an informer holds them
			stampAll(t, fc, c)
			if c, err = fc.Snapshot(context.Background(), "default", "agent"); err != nil {
				t.Fatal(err)
			}
		}
		p, err := kubesync.Sync(c, now, kubesync.State{}, kubesync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := apply.Apply(context.Background(), fc, c, p)
		for _, w := range res.Writes {
			if errors.Is(w.Err, apply.ErrNotIssued) {
				t.Fatalf("%s %s on %s refused: %v\nplan deletes %v", w.Action, w.Name, w.Node, w.Err, p.Delete)
			}
		}
		after, err := fc.Snapshot(context.Background(), "default", "agent")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Delete {
			if podIn(after, d.Pod) != nil {
				t.Fatalf("pod %s (%s) not deleted; writes %+v", d.Pod, d.Reason, res.Writes)
			}
		}
	})
}

// TestApplyDeletesWithoutARead: a pod delete is held to the UID and the
// resourceVersion at which the snapshot shows the pod, so the pod deleted
// is the pod checked without a read before it (upstream's controller reads
// nothing before its deletes; a read before each made a rollout's
// requests half as many again as upstream's, and slower by as much at the
// client's QPS). A pod changed since the snapshot is a conflict: it is read
// again, and deleted only if the reason holds on the pod as read.
func TestApplyDeletesWithoutARead(t *testing.T) {
	tests := []struct {
		name, reason string
		// change alters the pod on the API server after the snapshot.
		change    func(*corev1.Pod)
		wantVerbs []string
		wantErr   error
	}{
		{"unchanged", "the snapshot's resourceVersion holds: the delete is the only request", nil,
			[]string{"delete"}, nil},
		{"changed, still outdated", "a conflict; the pod read again still carries an old hash",
			func(p *corev1.Pod) { p.Annotations = map[string]string{"touched": "yes"} },
			[]string{"delete", "get", "delete"}, nil},
		{"orphaned since", "a conflict; the pod read again is no longer the DaemonSet's: no delete",
			func(p *corev1.Pod) { p.OwnerReferences = nil },
			[]string{"delete", "get"}, apply.ErrNotOwned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := readSnapshot(t, 3)
			c.Pods = nil
			addOwned(c)
			podIn(c, "mine").Labels[api.LabelRevisionHash] = "old"
			fc := fakeclient.New(c, now)
			// An update gives the stored pod a resourceVersion, which the
			// snapshot then shows, as an informer's would.
			update := func(change func(*corev1.Pod)) {
				pod, err := fc.CoreV1().Pods("default").Get(ctx, "mine", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				change(pod)
				if _, err := fc.CoreV1().Pods("default").Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			update(func(p *corev1.Pod) { p.Labels["seen"] = "yes" })
			s, err := fc.Snapshot(ctx, "default", "agent")
			if err != nil {
				t.Fatal(err)
			}
			if podIn(s, "mine").ResourceVersion == "" {
				t.Fatal("precondition: the snapshot's pod has a resourceVersion")
			}
			if tc.change != nil {
				update(tc.change)
			}
			fc.ClearActions()
			p := daemonplan.Plan{Namespace: "default", Name: "agent", Hash: "current", Delete: del("mine", "node-01", placement.Outdated)}
			res := apply.Apply(ctx, fc, s, p)
			var verbs []string
			for _, a := range fc.Actions() {
				if a.GetResource().Resource == "pods" {
					verbs = append(verbs, a.GetVerb())
				}
			}
			if !slices.Equal(verbs, tc.wantVerbs) {
				t.Errorf("%s: requests on pods %v, want %v", tc.reason, verbs, tc.wantVerbs)
			}
			if len(res.Writes) != 1 || !errors.Is(res.Writes[0].Err, tc.wantErr) || tc.wantErr == nil && res.Writes[0].Err != nil {
				t.Fatalf("%s: writes %+v, want one delete with error %v", tc.reason, res.Writes, tc.wantErr)
			}
			_, err = fc.CoreV1().Pods("default").Get(ctx, "mine", metav1.GetOptions{})
			if deleted := err != nil; deleted != (tc.wantErr == nil) {
				t.Errorf("%s: pod deleted %v, want %v", tc.reason, deleted, tc.wantErr == nil)
			}
		})
	}
}
