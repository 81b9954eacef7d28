package daemonplan_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
)

// TestSyncPlansShareNoMemory: Sync indexes into scratch memory it borrows
// and gives back, so a plan must hold none of it: a plan is the same after
// Sync has planned another input as when it was returned (a Planner, whose
// memory is its own, gives the plan to compare with).
func TestSyncPlansShareNoMemory(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := syncInput(t), syncInput(t)
		want, werr := daemonplan.NewPlanner(daemonplan.Options{}).Sync(a)
		got, gerr := daemonplan.Sync(a, daemonplan.Options{})
		for range 2 {
			_, _ = daemonplan.Sync(b, daemonplan.Options{})
		}
		if diff := cmp.Diff(werr, gerr, errorText); diff != "" {
			t.Fatalf("Sync() error mismatch (-Planner +Sync):\n%s", diff)
		}
		if diff := cmp.Diff(want, got, errorText); diff != "" {
			t.Fatalf("plan changed by a later Sync (-want +got):\n%s", diff)
		}
	})
}

// TestSyncKeepsNoInputAlive: the scratch memory Sync gives back keeps no
// reference to the input, so that the collector frees a large input as
// soon as the caller drops it and the plan. A pool keeps what it holds
// through one collection: without Sync's forgetting, the input would
// outlive the first.
func TestSyncKeepsNoInputAlive(t *testing.T) {
	freed := make(chan string, 2)
	syncAndDrop(freed)
	runtime.GC()
	for range 2 {
		select {
		case <-freed:
		case <-time.After(10 * time.Second):
			t.Fatal("the input's nodes or pods outlived the first collection after Sync returned")
		}
	}
}

// syncAndDrop plans an input whose node and pod arrays report to freed
// when collected, and drops the input and the plan.
//
//go:noinline
func syncAndDrop(freed chan<- string) {
	in := midRolloutSettled(50)
	runtime.SetFinalizer(&in.Nodes[0], func(*api.Node) { freed <- "nodes" })
	runtime.SetFinalizer(&in.Pods[0], func(*api.Pod) { freed <- "pods" })
	if _, err := daemonplan.Sync(in, daemonplan.Options{}); err != nil {
		panic(err)
	}
}

// TestSyncConcurrent: Syncs running at once, each on its own input, each
// get the plan a Planner of their own gets: the pool they borrow from
// hands one Cluster to one Sync at a time (the race detector of CI's run
// watches this test too).
func TestSyncConcurrent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const goroutines = 4
		var ins [goroutines]daemonplan.Input
		var want [goroutines]daemonplan.Plan
		for g := range ins {
			ins[g] = syncInput(t)
			want[g], _ = daemonplan.NewPlanner(daemonplan.Options{}).Sync(ins[g])
		}
		var got [goroutines][3]daemonplan.Plan
		var wg sync.WaitGroup
		for g := range ins {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range got[g] {
					got[g][i], _ = daemonplan.Sync(ins[g], daemonplan.Options{})
				}
			}()
		}
		wg.Wait()
		for g := range got {
			for i := range got[g] {
				if diff := cmp.Diff(want[g], got[g][i], errorText); diff != "" {
					t.Fatalf("goroutine %d, sync %d: plan mismatch (-Planner +Sync):\n%s", g, i, diff)
				}
			}
		}
	})
}
