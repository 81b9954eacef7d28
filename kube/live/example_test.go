package live_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/daemonplan/daemonplan/kube/live"
	"github.com/daemonplan/daemonplan/kube/load"
)

func ExampleRead() {
	app := map[string]string{"app": "agent"}
	client := fake.NewClientset(
		&appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"},
			Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: app}},
		},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent-x", Labels: app}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "dns"}},
	)
	objs, err := live.Read(context.Background(), client, "kube-system", "agent", live.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := objs.Snapshot("kube-system", "agent")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(snap.DaemonSet.Name, len(snap.Nodes), "nodes,", len(snap.Pods), "pod:", snap.At.Pods[0])
	// Output: agent 2 nodes, 1 pod: pod kube-system/agent-x
}

func ExampleServerVersion() {
	d := &fakediscovery.FakeDiscovery{Fake: &fake.NewClientset().Fake, FakedServerVersion: &version.Info{Major: "1", Minor: "36", GitVersion: "v1.36.3"}}
	v, err := live.ServerVersion(d)
	fmt.Println(v, err)
	d.FakedServerVersion = &version.Info{Major: "1", Minor: "30", GitVersion: "v1.30.0"}
	_, err = live.ServerVersion(d)
	fmt.Println(err)
	// Output:
	// 1.36 <nil>
	// the server's Kubernetes version is not one daemonplan reproduces: the server runs 1.30 (v1.30.0); supported: 1.34, 1.35, 1.36, 1.37; pass --kubernetes-version to plan as one of them
}

func ExampleReadAll() {
	client := fake.NewClientset(
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "exporter"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{NodeName: "node-1"}},
	)
	// Every namespace (""), with the nodes and their pods.
	objs, err := live.ReadAll(context.Background(), client, "", true, live.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(objs.DaemonSets), "DaemonSets,", len(objs.Nodes), "node,", len(objs.Pods), "pod")
	// Output: 2 DaemonSets, 1 node, 1 pod
}

func ExampleDryRunUpdate() {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"}}
	client := fake.NewClientset(ds)
	// What a real API server does with dryRun=All: default, admit and
	// validate the object, answer with it, store nothing.
	client.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateActionImpl)
		fmt.Println("dryRun:", u.UpdateOptions.DryRun)
		stored := u.Object.(*appsv1.DaemonSet).DeepCopy()
		stored.Spec.RevisionHistoryLimit = ptr.To[int32](10)
		return true, stored, nil
	})
	got, err := live.DryRunUpdate(context.Background(), client, ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("revisionHistoryLimit:", *got.Spec.RevisionHistoryLimit, "; the argument's:", ds.Spec.RevisionHistoryLimit)
	// Output:
	// dryRun: [All]
	// revisionHistoryLimit: 10 ; the argument's: <nil>
}

func ExampleReadAdmission() {
	client := fake.NewClientset(
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "defaults"}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "defaults"}},
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "agents"}, Value: 1000},
		&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata"},
		&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
	)
	objs := &load.Objects{}
	if err := live.ReadAdmission(context.Background(), client, "monitoring", true, objs, live.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(objs.LimitRanges), "LimitRange,", len(objs.PriorityClasses), "PriorityClass,",
		len(objs.RuntimeClasses), "RuntimeClass,", len(objs.PodDisruptionBudgets), "PodDisruptionBudget")
	// Output: 1 LimitRange, 1 PriorityClass, 1 RuntimeClass, 1 PodDisruptionBudget
}

func ExampleReadPods() {
	client := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{NodeName: "node-1"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"},
			Status: corev1.PodStatus{Phase: corev1.PodPending, NominatedNodeName: "node-1"}},
	)
	// Bound or nominated, every namespace: what the scheduler counts.
	objs := &load.Objects{}
	if err := live.ReadPods(context.Background(), client, objs, live.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range objs.Pods {
		fmt.Println(p.Namespace + "/" + p.Name)
	}
	// Output:
	// default/web
	// shop/db
}
