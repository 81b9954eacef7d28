package kubesync_test

import (
	"fmt"
	"reflect"

	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
)

func ExamplePlanner() {
	// A controller keeps one Planner per DaemonSet and gives it, at every
	// sync, what its listers hold: here a cluster of 4 nodes mid-rollout.
	pl, err := kubesync.NewPlanner(kubesync.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := kubecluster.Build(4, true, 1)
	p, err := pl.Sync(s, kubecluster.Now, kubesync.State{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first sync: delete", p.Delete[0].Pod, "updated", p.Status.UpdatedNumberScheduled)
	// Between syncs the informers replace the objects that were written,
	// each with a new resourceVersion, and list in another order: here the
	// old pods were replaced. The Planner converts only the new objects,
	// and plans as Sync does.
	next := kubecluster.Churn(s, 1, 7)
	p, _ = pl.Sync(next, kubecluster.Now, kubesync.State{})
	cold, _ := kubesync.Sync(next, kubecluster.Now, kubesync.State{}, kubesync.Options{})
	fmt.Println("second sync:", len(p.Delete), "deletes, updated", p.Status.UpdatedNumberScheduled, "as Sync:", reflect.DeepEqual(p, cold))
	// Output:
	// first sync: delete agent-000001 updated 2
	// second sync: 0 deletes, updated 4 as Sync: true
}
