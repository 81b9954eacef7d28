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
	// Replaced   node-0
	// Loses      node-1 (NotEligible: node does not match nodeSelector key pool)
	// Replaced   node-2
	// Loses      node-3 (UntoleratedTaint: untolerated taint maintenance:NoExecute: pods are evicted)
	// Replaced   node-4
	// unchanged 0, gains 0, loses 2, replaced 3, outdated 0, not yet replaced 0
	// 3 steps (8 syncs, 20s), maxUnavailable 2, maxSurge 0: settles
}

// panicT lets the test helpers run in an example.
type panicT struct{}

func (panicT) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (panicT) FailNow()                          { panic("FailNow") }
