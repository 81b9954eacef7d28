package kubetrack_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/kubetrack"
)

// A controller feeds its informers' events to a Tracker and takes each
// sync's plan from it: here three nodes come up, the DaemonSet and its
// revision arrive, a pod is created on one node and the others get theirs
// planned.
func Example() {
	p, err := kubetrack.NewTracker("kube-system", "agent", kubesync.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"node-a", "node-b", "node-c"} {
		p.SetNode(kubecluster.Node(name)) // AddFunc of the node informer
	}
	ds := kubecluster.DaemonSet()
	ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
	rev := kubecluster.Revision(ds, 1)
	p.SetDaemonSet(ds)
	p.SetRevision(rev)
	p.SetPod(kubecluster.Pod(ds, "agent-a", "node-a", rev.Labels["controller-revision-hash"], "2"))

	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	plan, err := p.Plan(now, kubesync.State{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range plan.Create {
		fmt.Println("create on", c.Node)
	}

	// A node leaves Linux: the next plan no longer creates there.
	win := kubecluster.Node("node-c")
	win.Labels[corev1.LabelOSStable] = "windows"
	p.SetNode(win) // UpdateFunc
	plan, _ = p.Plan(now.Add(time.Second), kubesync.State{})
	fmt.Println("creates:", len(plan.Create), "desired:", plan.Status.DesiredNumberScheduled)
	// Output:
	// create on node-b
	// create on node-c
	// creates: 1 desired: 2
}
