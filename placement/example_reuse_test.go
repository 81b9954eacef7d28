package placement_test

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

// examplePod is a Running, Ready pod of exampleDaemonSet on node.
func examplePod(name, node string, created time.Time) api.Pod {
	return api.Pod{
		Namespace: "kube-system", Name: name,
		Labels:     map[string]string{"app": "log-agent", api.LabelRevisionHash: "5d4f8c"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "log-agent", UID: "uid-1"},
		NodeName:   node, Phase: api.PodRunning, Ready: true, Created: created,
	}
}

func ExampleIndex_Reset() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	linux := map[string]string{"kubernetes.io/os": "linux"}
	nodes := []api.Node{{Name: "worker-1", Labels: linux}, {Name: "worker-2", Labels: linux}}
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pods := []api.Pod{examplePod("log-agent-a", "worker-1", created)}

	// One Index for every sync: each Reset reuses the memory of the last.
	var ix placement.Index
	for sync := 1; sync <= 2; sync++ {
		if err := ix.Reset(c, nodes, pods); err != nil {
			panic(err)
		}
		plan, err := ix.Manage(created.Add(time.Hour), "5d4f8c", nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("sync %d: %d creates, keep %v\n", sync, len(plan.Create), plan.Keep)
		// The caller applies the plan: worker-2 gets its pod.
		pods = append(pods, examplePod("log-agent-b", "worker-2", created.Add(time.Hour)))
	}
	// Output:
	// sync 1: 1 creates, keep [log-agent-a]
	// sync 2: 0 creates, keep [log-agent-a log-agent-b]
}

func ExampleCompiled_Claim() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	owned := examplePod("log-agent-a", "worker-1", time.Time{})
	orphan := owned
	orphan.Controller = nil
	relabelled := owned
	relabelled.Labels = map[string]string{"app": "debug"}
	other := owned
	other.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "uid-2"}
	for _, p := range []api.Pod{owned, orphan, relabelled, other} {
		fmt.Println(c.Claim(&p))
	}
	// Output:
	// Owned
	// Adopted
	// Released
	// Ignored
}

func ExampleCompiled_ManageNode() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	node := api.Node{Name: "worker-1", Labels: map[string]string{"kubernetes.io/os": "linux"}}
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	ready := examplePod("log-agent-a", "worker-1", now.Add(-time.Hour))
	failed := examplePod("log-agent-b", "worker-1", now.Add(-time.Minute))
	failed.Phase, failed.Ready = api.PodFailed, false

	m := c.ManageNode(nil, node.Name, c.Decide(&node), []*api.Pod{&ready, &failed}, now, "5d4f8c", nil)
	fmt.Println("create:", m.Create)
	for _, d := range m.Delete {
		fmt.Println("delete:", d.Pod, d.Reason)
	}
	fmt.Println("backoff:", m.BackoffSet, m.Backoff.Delay)
	// Output:
	// create: false
	// delete: log-agent-b Failed
	// backoff: true 1s
}

func ExampleCompiled_IsUpdated() {
	ds := exampleDaemonSet()
	ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "3"}
	c, err := placement.Compile(ds, placement.Options{})
	if err != nil {
		panic(err)
	}
	byHash := api.Pod{Labels: map[string]string{api.LabelRevisionHash: "5d4f8c"}}
	byGeneration := api.Pod{Labels: map[string]string{api.LabelRevisionHash: "old", api.LabelTemplateGeneration: "3"}}
	old := api.Pod{Labels: map[string]string{api.LabelRevisionHash: "old", api.LabelTemplateGeneration: "2"}}
	fmt.Println(c.IsUpdated(&byHash, "5d4f8c"), c.IsUpdated(&byGeneration, "5d4f8c"), c.IsUpdated(&old, "5d4f8c"))
	// Output:
	// true true false
}

func ExampleOlderPod() {
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pods := []*api.Pod{
		{Name: "c", NodeName: "worker-1", Created: t.Add(time.Minute)},
		{Name: "unbound", Created: t},
		{Name: "b", NodeName: "worker-1", Created: t},
		{Name: "a", NodeName: "worker-1", Created: t},
	}
	slices.SortFunc(pods, placement.OlderPod)
	for _, p := range pods {
		fmt.Print(p.Name, " ")
	}
	fmt.Println()
	// Output:
	// a b c unbound
}

func ExampleIndex_Keep() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	nodes := []api.Node{{Name: "worker-1", Labels: map[string]string{"kubernetes.io/os": "linux"}}}
	pods := []api.Pod{examplePod("log-agent-b", "worker-1", time.Time{}), examplePod("log-agent-a", "worker-1", time.Time{})}
	ix, err := c.Index(nodes, pods)
	if err != nil {
		panic(err)
	}
	fmt.Println(ix.Keep(nil))
	fmt.Println(ix.Keep([]placement.Delete{{Pod: "log-agent-a", Node: "worker-1", Reason: placement.Duplicate}}))
	// Output:
	// [log-agent-a log-agent-b]
	// [log-agent-b]
}

func ExampleIndex_Buckets() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	linux := map[string]string{"kubernetes.io/os": "linux"}
	nodes := []api.Node{{Name: "worker-1", Labels: linux}, {Name: "worker-2", Labels: linux}}
	old := examplePod("log-agent-b", "worker-2", time.Time{})
	old.Labels = map[string]string{"app": "log-agent", api.LabelRevisionHash: "old"}
	ix, err := c.Index(nodes, []api.Pod{examplePod("log-agent-a", "worker-1", time.Time{}), old})
	if err != nil {
		panic(err)
	}
	for b := range ix.Buckets("5d4f8c") {
		for j, p := range b.Pods {
			fmt.Println(b.Node, p.Name, b.Updated(j))
		}
	}
	// Output:
	// worker-1 log-agent-a true
	// worker-2 log-agent-b false
}

func ExampleIndex_Forget() {
	c, err := placement.Compile(exampleDaemonSet(), placement.Options{})
	if err != nil {
		panic(err)
	}
	// A pool of Indexes serves syncs in a row; each forgets its snapshot
	// before it goes back, so that the pool keeps no snapshot alive.
	pool := sync.Pool{New: func() any { return new(placement.Index) }}
	for _, node := range []string{"worker-1", "worker-2"} {
		ix := pool.Get().(*placement.Index)
		nodes := []api.Node{{Name: node, Labels: map[string]string{"kubernetes.io/os": "linux"}}}
		if err := ix.Reset(c, nodes, nil); err != nil {
			panic(err)
		}
		plan, err := ix.Manage(time.Time{}, "5d4f8c", nil)
		if err != nil {
			panic(err)
		}
		fmt.Println(plan.Create[0].Node)
		ix.Forget()
		pool.Put(ix)
	}
	// Output:
	// worker-1
	// worker-2
}
