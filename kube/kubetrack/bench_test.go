package kubetrack_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/internal/testsupport/benchkit"
	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/kubetrack"
	"github.com/daemonplan/daemonplan/kube/load"
)

// fed returns a Tracker fed every object of s, as a controller's informers
// deliver them at start.
func fed(b *testing.B, s *load.Snapshot) *kubetrack.Tracker {
	p, err := kubetrack.NewTracker(s.DaemonSet.Namespace, s.DaemonSet.Name, kubesync.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range s.Nodes {
		p.SetNode(n)
	}
	for _, pod := range s.Pods {
		p.SetPod(pod)
	}
	for _, cr := range s.Revisions {
		p.SetRevision(cr)
	}
	p.SetDaemonSet(s.DaemonSet)
	return p
}

// BenchmarkEvent is one informer event and the plan of the sync it
// triggers, on a settled cluster (every pod up to date and available: the
// plan writes nothing) of kubecluster.Build. Each event type goes back and
// forth between two objects, so that every iteration is a change:
//
//   - NodeLabel: a node's labels change (a label the DaemonSet does not
//     select on).
//   - NodeEligibility: a node leaves the nodeSelector, and comes back
//     (the plan deletes its pod, then keeps it).
//   - PodReady: a pod turns Ready and back.
//   - PodDelete: a pod is deleted (the plan creates its replacement), and
//     comes back.
//   - StatusWrite: the DaemonSet's status counters change (the
//     controller's own status write).
//   - TemplateChange: the DaemonSet's template changes, every node is
//     decided again: O(n).
//   - Sync: kubesync.Sync of the same cluster, for the ratio.
func BenchmarkEvent(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.StopTimer()
			s := kubecluster.Build(n, false, 1)
			p := fed(b, s)
			runtime.GC()
			b.StartTimer()
			now := kubecluster.Now
			plan := func() daemonplan.Plan {
				now = now.Add(time.Millisecond)
				pl, err := p.Plan(now, kubesync.State{})
				if err != nil {
					b.Fatal(err)
				}
				return pl
			}
			node := s.Nodes[len(s.Nodes)/2]
			relabelled := node.DeepCopy()
			relabelled.Labels["example.com/label-00"] = "w"
			windows := node.DeepCopy()
			windows.Labels[corev1.LabelOSStable] = "windows"
			pod := s.Pods[len(s.Pods)/2]
			unready := pod.DeepCopy()
			unready.Status.Conditions[0].Status = corev1.ConditionFalse
			ds := s.DaemonSet
			counted := ds.DeepCopy()
			counted.Status.NumberReady, counted.Status.DesiredNumberScheduled = 7, 9
			changed := ds.DeepCopy()
			changed.Generation, changed.Spec.Template.Spec.Containers[0].Image = 3, "agent:v2"

			pair := func(name string, a, b2 func()) {
				// flip alternates across the runs of one sub-benchmark too
				// (with -benchtime 1x every run is iteration 0).
				flip := false
				b.Run(name, func(b *testing.B) {
					benchkit.ReportCPU(b, func(int) {
						if flip = !flip; flip {
							a()
						} else {
							b2()
						}
						plan()
					})
				})
			}
			pair("NodeLabel", func() { p.SetNode(relabelled) }, func() { p.SetNode(node) })
			pair("NodeEligibility", func() { p.SetNode(windows) }, func() { p.SetNode(node) })
			pair("PodReady", func() { p.SetPod(unready) }, func() { p.SetPod(pod) })
			pair("PodDelete", func() { p.DeletePod(pod.Namespace, pod.Name) }, func() { p.SetPod(pod) })
			pair("StatusWrite", func() { p.SetDaemonSet(counted) }, func() { p.SetDaemonSet(ds) })
			pair("TemplateChange", func() { p.SetDaemonSet(changed) }, func() { p.SetDaemonSet(ds) })
			b.Run("Sync", func(b *testing.B) {
				benchkit.ReportCPU(b, func(int) {
					if _, err := kubesync.Sync(s, now, kubesync.State{}, kubesync.Options{}); err != nil {
						b.Fatal(err)
					}
				})
			})
		})
	}
}
