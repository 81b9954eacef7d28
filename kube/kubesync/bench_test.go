package kubesync_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/internal/testsupport/benchkit"
	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

// BenchmarkSyncObjects is one whole sync of a cluster mid-rollout from
// Kubernetes objects as a controller's informers hold them: every node and
// pod with its own label maps and strings, in lister order, a new order in
// every sync (two orders by turns). The rolling update deletes a burst in
// every sync.
//
//   - Sync: kubesync.Sync, conversion included: what a controller that
//     lists and converts at every sync pays.
//   - Planner: kubesync.Input and a warm daemonplan.Planner.
//   - Converted: a warm Planner on inputs converted once (a controller
//     that converts objects as its informers deliver them).
//   - Warm: a warm kubesync.Planner on snapshots that change between syncs
//     as a rollout changes them (kubecluster.Churn: 250 pods replaced, 250
//     pods and 100 nodes written, a new lister order), every snapshot a
//     new one.
func BenchmarkSyncObjects(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.StopTimer()
			snaps := []*load.Snapshot{kubecluster.Build(n, true, 1), kubecluster.Build(n, true, 2)}
			runtime.GC()
			b.StartTimer()
			want := func(p daemonplan.Plan, err error) {
				if err != nil || len(p.Delete) == 0 {
					b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
				}
			}
			b.Run("Sync", func(b *testing.B) {
				benchkit.ReportCPU(b, func(i int) {
					want(kubesync.Sync(snaps[i%2], kubecluster.Now, kubesync.State{}, kubesync.Options{}))
				})
			})
			b.Run("Planner", func(b *testing.B) {
				var pl *daemonplan.Planner
				sync := func(i int) (daemonplan.Plan, error) {
					in, opts, err := kubesync.Input(snaps[i%2], kubecluster.Now, kubesync.State{}, kubesync.Options{})
					if err != nil {
						return daemonplan.Plan{}, err
					}
					if pl == nil {
						pl = daemonplan.NewPlanner(opts)
					}
					return pl.Sync(in)
				}
				for i := range 2 {
					want(sync(i))
				}
				benchkit.ReportCPU(b, func(i int) { want(sync(i)) })
			})
			b.Run("Converted", func(b *testing.B) {
				var ins [2]daemonplan.Input
				var opts daemonplan.Options
				for i, s := range snaps {
					var err error
					if ins[i], opts, err = kubesync.Input(s, kubecluster.Now, kubesync.State{}, kubesync.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				pl := daemonplan.NewPlanner(opts)
				for i := range 2 {
					want(pl.Sync(ins[i]))
				}
				benchkit.ReportCPU(b, func(i int) { want(pl.Sync(ins[i%2])) })
			})
			b.Run("Warm", func(b *testing.B) {
				b.StopTimer()
				seq := []*load.Snapshot{snaps[0]}
				for len(seq) < b.N+2 {
					seq = append(seq, kubecluster.Churn(seq[len(seq)-1], len(seq), 1))
				}
				runtime.GC()
				b.StartTimer()
				pl, err := kubesync.NewPlanner(kubesync.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for i := range 2 {
					want(pl.Sync(seq[i], kubecluster.Now, kubesync.State{}))
				}
				// The first sync converted every object: collect its
				// garbage before the syncs measured.
				runtime.GC()
				benchkit.ReportCPU(b, func(i int) { want(pl.Sync(seq[i+2], kubecluster.Now, kubesync.State{})) })
			})
		})
	}
}
