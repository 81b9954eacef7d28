package daemonplan_test

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/benchkit"
)

// BenchmarkReplan is one change and the plan after it, on a Tracker
// holding n nodes: a pod turning unready and ready again (every other
// iteration), a node losing and regaining the nodeSelector's label, a node
// added and removed. "steady" is a cluster with nothing to do, "rolling"
// one in the middle of a rolling update, whose every plan holds a burst of
// 250 deletes.
func BenchmarkTracker(b *testing.B) {
	for _, rolling := range []bool{false, true} {
		scenario := "steady"
		if rolling {
			scenario = "rolling"
		}
		for _, n := range benchkit.Sizes() {
			in := benchkit.Cluster(n, rolling)
			p, err := daemonplan.NewTracker(in, daemonplan.Options{})
			if err != nil {
				b.Fatal(err)
			}
			mid := n / 2
			b.Run(fmt.Sprintf("%s/pod/nodes=%d", scenario, n), func(b *testing.B) {
				pod := in.Pods[mid]
				unready := pod
				unready.Ready = false
				benchkit.ReportCPU(b, func(i int) {
					if i%2 == 0 {
						p.SetPod(unready)
					} else {
						p.SetPod(pod)
					}
					if _, err := p.Plan(); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/node/nodes=%d", scenario, n), func(b *testing.B) {
				node := in.Nodes[mid]
				relabelled := node
				relabelled.Labels = map[string]string{"kubernetes.io/os": "windows"}
				benchkit.ReportCPU(b, func(i int) {
					if i%2 == 0 {
						p.SetNode(relabelled)
					} else {
						p.SetNode(node)
					}
					if _, err := p.Plan(); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(fmt.Sprintf("%s/add-node/nodes=%d", scenario, n), func(b *testing.B) {
				extra := api.Node{Name: "node-extra", Labels: map[string]string{"kubernetes.io/os": "linux"}}
				benchkit.ReportCPU(b, func(i int) {
					if i%2 == 0 {
						p.SetNode(extra)
					} else {
						p.DeleteNode(extra.Name)
					}
					if _, err := p.Plan(); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkNew builds a Tracker: what a controller pays once, and again
// for every change of the DaemonSet.
func BenchmarkNewTracker(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		in := benchkit.Cluster(n, true)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			benchkit.ReportCPU(b, func(int) {
				if _, err := daemonplan.NewTracker(in, daemonplan.Options{}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
