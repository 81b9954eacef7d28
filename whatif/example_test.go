package whatif_test

import (
	"fmt"
	"slices"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/whatif"
)

// What would a new image with maxUnavailable 2, one node leaving the pool
// and a tainted node do to a settled cluster of five nodes?
func ExampleDiff() {
	before := settled(panicT{}, 5, maxUnavailable(1))

	ds := before.DaemonSet.DeepCopy()
	ds.TemplateData = []byte(`{"image":"agent:v2"}`)
	ds.UpdateStrategy.RollingUpdate.MaxUnavailable = api.Int(2)
	nodes := slices.Clone(before.Nodes)
	nodes[1] = api.Node{Name: "node-1", Labels: map[string]string{"pool": "gpu"}}
	nodes[3] = api.Node{Name: "node-3", Labels: map[string]string{"pool": "general"},
		Taints: []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}}

	rep, err := whatif.Diff(before, daemonplan.Input{DaemonSet: ds, Nodes: nodes}, whatif.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(rep.Table())
	// Output:
	// the edit:
	// Replaced   node-0
	// Loses      node-1 (NotEligible: node does not match nodeSelector key pool)
	// Replaced   node-2
	// Loses      node-3 (UntoleratedTaint: untolerated taint maintenance:NoExecute: pods are evicted)
	// Replaced   node-4
	// unchanged 0, gains 0, loses 2, replaced 3, outdated 0, not yet replaced 0
	// pending anyway: nothing
	// with the edit: 3 steps (8 syncs, 20s), maxUnavailable 2, maxSurge 0: settles
}

// panicT lets the test helpers run in an example.
type panicT struct{}

func (panicT) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (panicT) FailNow()                          { panic("FailNow") }

// A rollout to agent:v2 is under way in a cluster of five nodes, and
// node-3 is about to get its pod back. What would a NoExecute taint on
// node-3 do? Only node-3 changes: it no longer gets the pod. The other
// nodes are replaced with or without the taint: that is listed apart, as
// what the cluster does anyway.
func ExampleDiff_pending() {
	before := pendingCluster(panicT{}, 5, maxUnavailable(1), 0, 0, func(i int) bool { return i == 3 })

	nodes := slices.Clone(before.Nodes)
	nodes[3] = api.Node{Name: "node-3", Labels: map[string]string{"pool": "general"},
		Taints: []api.Taint{{Key: "maintenance", Effect: api.TaintEffectNoExecute}}}

	rep, err := whatif.Diff(before, daemonplan.Input{Nodes: nodes}, whatif.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Print(rep.Table())
	// Output:
	// the edit:
	// Loses      node-3 (untolerated taint maintenance:NoExecute: pods are evicted; anyway: Gains)
	// unchanged 4, gains 0, loses 1, replaced 0, outdated 0, not yet replaced 0
	// pending anyway:
	// Replaced   node-0
	// Replaced   node-1
	// Replaced   node-2
	// Gains      node-3
	// Replaced   node-4
	// unchanged 0, gains 1, loses 0, replaced 4, outdated 0, not yet replaced 0
	// with the edit: 4 steps (13 syncs, 40s), maxUnavailable 1, maxSurge 0: settles
}
