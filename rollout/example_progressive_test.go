package rollout_test

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// exampleCluster indexes six nodes in zones a, a, b, b, c, c, each running
// an available pod of the old revision "old".
func exampleCluster(ds *api.DaemonSet) *placement.Index {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
	var nodes []api.Node
	var pods []api.Pod
	for i := range 6 {
		node := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, api.Node{Name: node, Labels: map[string]string{rollout.LabelZone: string(rune('a' + i/2))}})
		pods = append(pods, api.Pod{
			Namespace: "default", Name: "agent-" + node, Controller: owner, NodeName: node,
			Labels: map[string]string{"app": "agent", api.LabelRevisionHash: "old", api.LabelTemplateGeneration: "1"},
			Phase:  api.PodRunning, Ready: true, Created: now.Add(-time.Hour),
		})
	}
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	ix, err := c.Index(nodes, pods)
	if err != nil {
		panic(err)
	}
	return ix
}

func exampleDaemonSet(maxUnavailable int32) *api.DaemonSet {
	return &api.DaemonSet{
		Namespace: "default", Name: "agent", UID: "uid-agent",
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:    api.PodTemplate{Labels: map[string]string{"app": "agent"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(maxUnavailable), MaxSurge: api.Int(0),
		}},
	}
}

func ExampleRollingUpdate_progressive() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ix := exampleCluster(exampleDaemonSet(6))
	for _, p := range []rollout.Progressive{
		{},
		{Partition: api.Int(4)},
		{Zones: &rollout.Zones{}},
		{Canary: &rollout.Canary{Nodes: api.Int(2), SpreadKeys: []string{rollout.LabelZone}}},
	} {
		step, prog, err := rollout.RollingUpdate(ix, now, "new", p)
		if err != nil {
			panic(err)
		}
		var nodes []string
		for _, d := range step.Delete {
			nodes = append(nodes, d.Node)
		}
		fmt.Printf("delete on %v", nodes)
		if prog.Zones != nil {
			fmt.Printf(", zones active %v", prog.Zones.Active)
		}
		if prog.Canary != nil {
			fmt.Printf(", canary %v %v", prog.Canary.Phase, prog.Canary.Nodes)
		}
		fmt.Println()
	}
	// Output:
	// delete on [node-0 node-1 node-2 node-3 node-4 node-5]
	// delete on [node-4 node-5]
	// delete on [node-0 node-1], zones active [a]
	// delete on [node-0 node-2], canary Running [node-0 node-2]
}

func ExampleProgressive_Validate() {
	p := rollout.Progressive{
		Partition: api.Percent("120%"),
		Canary:    &rollout.Canary{SpreadKeys: []string{"zone", "zone"}},
	}
	for _, e := range p.Validate() {
		fmt.Printf("%s: %s\n", e.Type, e.Field)
	}
	fmt.Println("zero value is upstream:", rollout.Progressive{}.IsZero())
	// Output:
	// Invalid: partition
	// Required: canary.nodes
	// Duplicate: canary.spreadKeys[1]
	// zero value is upstream: true
}

func ExampleProgressive_Manage() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ds := exampleDaemonSet(1)
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	ix, err := c.Index([]api.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}, nil)
	if err != nil {
		panic(err)
	}
	mp, err := ix.Manage(now, "new", nil)
	if err != nil {
		panic(err)
	}
	p := rollout.Progressive{Partition: api.Int(3), PartitionedScaling: true}
	kept, held := p.Manage(rollout.IndexNodes(ix), "new", mp, nil)
	fmt.Printf("manage creates %d; partitioned scaling keeps %d (on %s) and holds %d\n", len(mp.Create), len(kept.Create), kept.Create[0].Node, held)
	frozen, _ := rollout.Progressive{Freeze: true}.Manage(rollout.IndexNodes(ix), "new", mp, nil)
	fmt.Println("frozen:", len(frozen.Create), "creates")
	// Output:
	// manage creates 4; partitioned scaling keeps 1 (on a) and holds 3
	// frozen: 0 creates
}

func ExampleCanary_RollbackTarget() {
	old := []revision.Revision{
		{Name: "agent-1", Revision: 1, Labels: map[string]string{api.LabelRevisionHash: "h1"}},
		{Name: "agent-2", Revision: 2, Labels: map[string]string{api.LabelRevisionHash: "h2"}},
	}
	c := &rollout.Canary{Nodes: api.Int(1), Verdicts: map[string]rollout.Verdict{"h1": rollout.Promote}}
	fmt.Println(c.RollbackTarget(old))
	c.Verdicts = nil
	fmt.Println(c.RollbackTarget(old))
	// Output:
	// 1 h1
	// 2 h2
}

// Judge is the health gates' rule on one new pod, shared by the canary's
// AutoFail and the live driver's gates.
func ExampleAutoFail_Judge() {
	gate := rollout.AutoFail{MaxRestarts: 3, MaxUnready: 5 * time.Minute}
	fmt.Printf("%q\n", gate.Judge(false, 3, false, time.Minute))
	fmt.Printf("%q\n", gate.Judge(false, 4, false, time.Minute))
	fmt.Printf("%q\n", gate.Judge(false, 0, false, 6*time.Minute))
	fmt.Printf("%q\n", gate.Judge(true, 0, false, 0))
	// Output:
	// ""
	// "restarted 4 times (gate: at most 3)"
	// "not Ready 6m0s after its creation (gate: Ready within 5m0s)"
	// "failed"
}
