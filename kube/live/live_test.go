package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

func daemonSet(ns, name string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}},
		},
	}
}

func node(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func pod(ns, name string, lbls map[string]string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}, Status: corev1.PodStatus{Phase: phase}}
}

func revision(ns, name string, lbls map[string]string) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

// pager makes the fake clientset answer lists as the API server does with
// a limit: at most Limit items per page, in name order, and a continue
// token until the last page. It records every list request.
type pager struct {
	requests map[string][]metav1.ListOptions
}

func newPaged(objs ...runtime.Object) (*fake.Clientset, *pager) {
	c := fake.NewClientset(objs...)
	p := &pager{requests: map[string][]metav1.ListOptions{}}
	tracker := c.Tracker()
	c.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		la := a.(k8stesting.ListActionImpl)
		lo := la.ListOptions
		p.requests[a.GetResource().Resource] = append(p.requests[a.GetResource().Resource], lo)
		gvr := a.GetResource()
		gvk := la.GetKind()
		all, err := tracker.List(gvr, gvk, a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		items, err := meta.ExtractList(all)
		if err != nil {
			return true, nil, err
		}
		sel := la.ListRestrictions.Labels
		items = slices.DeleteFunc(items, func(o runtime.Object) bool {
			m, _ := meta.Accessor(o)
			return sel != nil && !sel.Matches(labelSet(m.GetLabels()))
		})
		slices.SortFunc(items, func(a, b runtime.Object) int {
			ma, _ := meta.Accessor(a)
			mb, _ := meta.Accessor(b)
			return strings.Compare(ma.GetNamespace()+"/"+ma.GetName(), mb.GetNamespace()+"/"+mb.GetName())
		})
		start := 0
		if lo.Continue != "" {
			if start, err = strconv.Atoi(lo.Continue); err != nil {
				return true, nil, apierrors.NewBadRequest("bad continue token")
			}
		}
		end := len(items)
		if lo.Limit > 0 && start+int(lo.Limit) < end {
			end = start + int(lo.Limit)
		}
		if err := meta.SetList(all, items[start:end]); err != nil {
			return true, nil, err
		}
		if end < len(items) {
			lm, _ := meta.ListAccessor(all)
			lm.SetContinue(strconv.Itoa(end))
		}
		return true, all, nil
	})
	return c, p
}

type labelSet map[string]string

func (s labelSet) Has(k string) bool              { _, ok := s[k]; return ok }
func (s labelSet) Get(k string) string            { return s[k] }
func (s labelSet) Lookup(k string) (string, bool) { v, ok := s[k]; return v, ok }

func names[T metav1.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		n := o.GetName()
		if o.GetNamespace() != "" {
			n = o.GetNamespace() + "/" + n
		}
		out = append(out, n)
	}
	return out
}

func TestReadPagesEveryList(t *testing.T) {
	objs := []runtime.Object{daemonSet("kube-system", "agent"), daemonSet("kube-system", "other")}
	for i := range 23 {
		objs = append(objs, node(fmt.Sprintf("node-%03d", i)))
	}
	agent := map[string]string{"app": "agent"}
	for i := range 11 {
		objs = append(objs, pod("kube-system", fmt.Sprintf("agent-%02d", i), agent, corev1.PodRunning))
	}
	objs = append(objs,
		pod("kube-system", "orphan", agent, corev1.PodRunning),                                // matches the selector, no owner: adoptable, listed
		pod("kube-system", "unrelated", map[string]string{"app": "other"}, corev1.PodRunning), // another selector: not listed
		pod("default", "agent-elsewhere", agent, corev1.PodRunning),                           // another namespace: never the DaemonSet's
		revision("kube-system", "agent-1", agent),
		revision("kube-system", "agent-2", agent),
		revision("kube-system", "other-1", map[string]string{"app": "other"}),
	)
	c, p := newPaged(objs...)
	got, err := Read(context.Background(), c, "kube-system", "agent", Options{PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := names(got.DaemonSets); !slices.Equal(n, []string{"kube-system/agent"}) {
		t.Errorf("daemonsets %v", n)
	}
	if len(got.Nodes) != 23 || len(got.At.Nodes) != 23 {
		t.Errorf("%d nodes (%d positions), want 23", len(got.Nodes), len(got.At.Nodes))
	}
	wantPods := []string{}
	for i := range 11 {
		wantPods = append(wantPods, fmt.Sprintf("kube-system/agent-%02d", i))
	}
	wantPods = append(wantPods, "kube-system/orphan")
	if n := names(got.Pods); !slices.Equal(n, wantPods) {
		t.Errorf("pods %v, want %v", n, wantPods)
	}
	if n := names(got.Revisions); !slices.Equal(n, []string{"kube-system/agent-1", "kube-system/agent-2"}) {
		t.Errorf("revisions %v", n)
	}
	if s := got.At.Pods[0].String(); s != "pod kube-system/agent-00" {
		t.Errorf("position %q", s)
	}
	// 23 nodes in pages of 5: 5 requests, each with the limit, the later
	// ones continuing.
	for _, tc := range []struct {
		resource string
		pages    int
		selector string
	}{
		{"nodes", 5, ""},
		{"pods", 3, "app=agent"},
		{"controllerrevisions", 1, "app=agent"},
	} {
		reqs := p.requests[tc.resource]
		if len(reqs) != tc.pages {
			t.Errorf("%s: %d requests, want %d", tc.resource, len(reqs), tc.pages)
		}
		for i, r := range reqs {
			if r.Limit != 5 || (i == 0) != (r.Continue == "") || r.LabelSelector != tc.selector {
				t.Errorf("%s request %d: %+v", tc.resource, i, r)
			}
		}
	}
	if _, ok := p.requests["daemonsets"]; ok {
		t.Errorf("a named DaemonSet is read with get, not list")
	}
}

func TestReadPicksTheDaemonSet(t *testing.T) {
	for _, tc := range []struct {
		name, reason    string
		namespace, ds   string
		objs            []runtime.Object
		wantDaemonSets  []string
		wantNodes       int
		wantSnapshotErr error
	}{
		{"only one", "no name: the namespace's only DaemonSet", "kube-system", "",
			[]runtime.Object{daemonSet("kube-system", "a"), daemonSet("default", "b"), node("n1")}, []string{"kube-system/a"}, 1, nil},
		{"several", "no name and several: all of them and nothing else, for Snapshot to list", "kube-system", "",
			[]runtime.Object{daemonSet("kube-system", "a"), daemonSet("kube-system", "b"), node("n1")}, []string{"kube-system/a", "kube-system/b"}, 0, load.ErrManyDaemonSets},
		{"not found", "a name the namespace lacks: nothing, ErrNoDaemonSet", "kube-system", "x",
			[]runtime.Object{daemonSet("kube-system", "a"), node("n1")}, nil, 0, load.ErrNoDaemonSet},
		{"all namespaces", "-A with a name: found in whichever namespace holds it", "", "b",
			[]runtime.Object{daemonSet("kube-system", "a"), daemonSet("monitoring", "b"), node("n1")}, []string{"monitoring/b"}, 1, nil},
		{"all namespaces twice", "-A with a name two namespaces hold: both, ErrManyDaemonSets", "", "a",
			[]runtime.Object{daemonSet("kube-system", "a"), daemonSet("monitoring", "a")}, []string{"kube-system/a", "monitoring/a"}, 0, load.ErrManyDaemonSets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newPaged(tc.objs...)
			got, err := Read(context.Background(), c, tc.namespace, tc.ds, Options{})
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if n := names(got.DaemonSets); !slices.Equal(n, tc.wantDaemonSets) {
				t.Errorf("%s: daemonsets %v, want %v", tc.reason, n, tc.wantDaemonSets)
			}
			if len(got.Nodes) != tc.wantNodes {
				t.Errorf("%s: %d nodes, want %d", tc.reason, len(got.Nodes), tc.wantNodes)
			}
			if _, err := got.Snapshot("", ""); !errors.Is(err, tc.wantSnapshotErr) {
				t.Errorf("%s: Snapshot: %v, want %v", tc.reason, err, tc.wantSnapshotErr)
			}
		})
	}
}

func TestReadAllListsRunningPodsOfEveryNamespace(t *testing.T) {
	c, p := newPaged(daemonSet("kube-system", "a"), daemonSet("monitoring", "b"), node("n1"),
		pod("default", "web", nil, corev1.PodRunning), pod("kube-system", "a-1", map[string]string{"app": "a"}, corev1.PodRunning))
	got, err := ReadAll(context.Background(), c, "", true, Options{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.DaemonSets) != 2 || len(got.Nodes) != 1 || len(got.Pods) != 2 {
		t.Errorf("%d daemonsets, %d nodes, %d pods; want 2, 1, 2", len(got.DaemonSets), len(got.Nodes), len(got.Pods))
	}
	if fs := p.requests["pods"][0].FieldSelector; fs != "status.phase!=Succeeded,status.phase!=Failed" {
		t.Errorf("pods field selector %q", fs)
	}
	got, err = ReadAll(context.Background(), c, "monitoring", false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := names(got.DaemonSets); !slices.Equal(n, []string{"monitoring/b"}) || len(got.Nodes)+len(got.Pods) != 0 {
		t.Errorf("namespace monitoring without nodes: %v, %d nodes, %d pods", n, len(got.Nodes), len(got.Pods))
	}
}

func TestListErrors(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		react        func(k8stesting.Action) (bool, runtime.Object, error)
		want         string
	}{
		{"forbidden", "a refused list names what was listed", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no"))
		}, "list nodes: nodes is forbidden"},
		{"expired", "an expired continue token says to run again", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewResourceExpired("too old")
		}, "longer than the server keeps a snapshot"},
		{"same token", "a server repeating its continue token is refused, not looped on", func(k8stesting.Action) (bool, runtime.Object, error) {
			l := &corev1.NodeList{Items: []corev1.Node{*node("n1")}}
			l.Continue = "again"
			return true, l, nil
		}, "same continue token twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientset(daemonSet("kube-system", "a"))
			c.PrependReactor("list", "nodes", tc.react)
			_, err := Read(context.Background(), c, "kube-system", "a", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.reason, err, tc.want)
			}
		})
	}
}

func TestServerVersion(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		info         version.Info
		want         upstream.Version
		wantErr      string
	}{
		{"plain", "major and minor as a kind cluster gives them", version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2"}, upstream.V1_37, ""},
		{"provider plus", "a provider's minor with a plus", version.Info{Major: "1", Minor: "35+", GitVersion: "v1.35.4-gke.1"}, upstream.V1_35, ""},
		{"too old", "a minor daemonplan does not reproduce is a clear error", version.Info{Major: "1", Minor: "33", GitVersion: "v1.33.1"}, 0,
			"the server runs 1.33 (v1.33.1); supported: 1.34, 1.35, 1.36, 1.37; pass --kubernetes-version"},
		{"too new", "nor a newer one", version.Info{Major: "1", Minor: "38", GitVersion: "v1.38.0"}, 0, "the server runs 1.38"},
		{"empty", "no minor at all", version.Info{Major: "1", Minor: "", GitVersion: "v1.x"}, 0, `minor ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}, FakedServerVersion: &tc.info}
			got, err := ServerVersion(d)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: %v, want %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("%s: %v, %v; want %v", tc.reason, got, err, tc.want)
			}
		})
	}
}

// TestReadManyNodes: a cluster of 10,000 nodes (100,000 with
// LIVE_NODES=100000, about ten seconds through the fake clientset) is read
// in pages of the default size, each continuing the last.
func TestReadManyNodes(t *testing.T) {
	total := 10000
	if n, err := strconv.Atoi(os.Getenv("LIVE_NODES")); err == nil && n > 0 {
		total = n
	}
	c := fake.NewClientset(daemonSet("kube-system", "agent"))
	var requests int
	c.PrependReactor("list", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lo := a.(k8stesting.ListActionImpl).ListOptions
		requests++
		start := 0
		if lo.Continue != "" {
			start, _ = strconv.Atoi(lo.Continue)
		}
		if lo.Limit != DefaultPageSize {
			t.Fatalf("request %d: limit %d", requests, lo.Limit)
		}
		end := min(start+int(lo.Limit), total)
		l := &corev1.NodeList{Items: make([]corev1.Node, 0, end-start)}
		for i := start; i < end; i++ {
			l.Items = append(l.Items, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + strconv.Itoa(i)}})
		}
		if end < total {
			l.Continue = strconv.Itoa(end)
		}
		return true, l, nil
	})
	got, err := Read(context.Background(), c, "kube-system", "agent", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pages := (total + DefaultPageSize - 1) / DefaultPageSize; len(got.Nodes) != total || requests != pages {
		t.Fatalf("%d nodes in %d requests, want %d in %d", len(got.Nodes), requests, total, pages)
	}
	if got.Nodes[total-1].Name != "node-"+strconv.Itoa(total-1) {
		t.Errorf("last node %s", got.Nodes[total-1].Name)
	}
}

func TestReadAdmissionForbidden(t *testing.T) {
	for _, resource := range []string{"limitranges", "priorityclasses", "runtimeclasses", "poddisruptionbudgets"} {
		t.Run(resource, func(t *testing.T) {
			c := fake.NewClientset()
			c.PrependReactor("list", resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New("no"))
			})
			err := ReadAdmission(context.Background(), c, "ns", true, &load.Objects{}, Options{})
			if err == nil || !strings.Contains(err.Error(), "list "+resource) {
				t.Errorf("a refused list names what was listed: %v", err)
			}
		})
	}
}
