package daemonplan_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/taints"
)

// midRollout builds a cluster of n nodes halfway through a RollingUpdate:
// every node runs one ready pod, half of them of the old revision, and a
// few nodes are tainted, unlabelled or hold a failed pod.
func midRollout(n int) daemonplan.Input {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ds := &api.DaemonSet{
		Namespace: "kube-system", Name: "agent", UID: "ds-uid", Generation: 2,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:    &selector.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: api.PodTemplate{
			Labels:        map[string]string{"app": "agent"},
			RestartPolicy: "Always",
			NodeSelector:  map[string]string{"kubernetes.io/os": "linux"},
			Tolerations:   []taints.Toleration{{Key: "dedicated", Operator: taints.Equal, Value: "infra", Effect: taints.NoSchedule}},
		},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate,
			RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Percent("10%"), MaxSurge: api.Int(0)}},
		Status: api.Status{ObservedGeneration: 1},
	}
	oldDS := *ds
	oldDS.Template.Tolerations = nil
	oldData, newData := revision.TemplateData(&oldDS), revision.TemplateData(ds)
	oldHash, newHash := revision.DefaultHash(&oldDS, nil), revision.DefaultHash(ds, nil)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}
	revs := []revision.Revision{
		{Namespace: "kube-system", Name: "agent-" + oldHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: oldHash}, Controller: owner, Revision: 1, Data: oldData},
		{Namespace: "kube-system", Name: "agent-" + newHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: newHash}, Controller: owner, Revision: 2, Data: newData},
	}
	oldLabels := map[string]string{"app": "agent", api.LabelRevisionHash: oldHash, api.LabelTemplateGeneration: "1"}
	newLabels := map[string]string{"app": "agent", api.LabelRevisionHash: newHash, api.LabelTemplateGeneration: "2"}
	nodes := make([]api.Node, n)
	pods := make([]api.Pod, 0, n)
	for i := range nodes {
		name := fmt.Sprintf("node-%06d", i)
		labels := make(map[string]string, 20)
		for j := 0; j < 18; j++ {
			labels[fmt.Sprintf("example.com/label-%02d", j)] = "v"
		}
		labels["kubernetes.io/os"] = "linux"
		labels["kubernetes.io/hostname"] = name
		nodes[i] = api.Node{Name: name, Labels: labels}
		if i%50 == 7 {
			nodes[i].Taints = []taints.Taint{{Key: "dedicated", Value: "infra", Effect: taints.NoSchedule}}
		}
		l := oldLabels
		if i%2 == 0 {
			l = newLabels
		}
		p := api.Pod{Namespace: "kube-system", Name: fmt.Sprintf("agent-%06d", i), Labels: l, Controller: owner,
			NodeName: name, Phase: api.PodRunning, Ready: true, ReadySince: now.Add(-time.Hour), Created: now.Add(-2 * time.Hour)}
		if i%1000 == 3 {
			p.Phase, p.Ready = api.PodFailed, false
		}
		pods = append(pods, p)
	}
	return daemonplan.Input{DaemonSet: ds, Nodes: nodes, Pods: pods, Revisions: revs, Now: now}
}

// reportCPU runs the benchmark loop body and reports, besides the wall
// time, the CPU time of the whole process per operation (cpu-ns/op): on a
// machine shared with other work the wall time grows with the load, the
// CPU time much less.
func reportCPU(b *testing.B, body func()) {
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	for i := 0; i < b.N; i++ {
		body()
	}
	b.StopTimer()
	if used := processCPU() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// benchSizes are the cluster sizes of the sync benchmarks. 1M nodes takes
// a few seconds to build; -short stops at 100k.
func benchSizes() []int {
	if testing.Short() {
		return []int{1000, 10000, 100000}
	}
	return []int{1000, 10000, 100000, 1000000}
}

// benchInputs builds each size once per benchmark binary: the 1M-node
// cluster takes seconds to build and hundreds of megabytes to hold.
var benchInputs = map[string]daemonplan.Input{}

func benchInput(b *testing.B, kind string, n int, build func(int) daemonplan.Input) daemonplan.Input {
	key := fmt.Sprintf("%s/%d", kind, n)
	in, ok := benchInputs[key]
	if !ok {
		b.StopTimer()
		in = build(n)
		// Keep only the largest cluster built last: 1M nodes do not fit
		// twice in a small machine.
		clear(benchInputs)
		benchInputs[key] = in
		b.StartTimer()
	}
	return in
}

// midRolloutSettled is midRollout without failed pods: manage has nothing
// to do, so the rolling update runs too.
func midRolloutSettled(n int) daemonplan.Input {
	in := midRollout(n)
	for i := range in.Pods {
		if in.Pods[i].Phase == api.PodFailed {
			in.Pods[i].Phase, in.Pods[i].Ready = api.PodRunning, true
		}
	}
	return in
}

// BenchmarkSync is one full sync (history, manage, cleanup, status) of a
// cluster mid-rollout, with failed pods for manage to delete.
func BenchmarkSync(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "mid", n, midRollout)
			reportCPU(b, func() {
				if _, err := daemonplan.Sync(in, daemonplan.Options{}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkSyncRollingUpdate is a sync in which manage has nothing to do,
// so the rolling update runs too: history, manage, rolling update,
// cleanup, status.
func BenchmarkSyncRollingUpdate(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			reportCPU(b, func() {
				p, err := daemonplan.Sync(in, daemonplan.Options{})
				if err != nil || len(p.Delete) == 0 {
					b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
				}
			})
		})
	}
}

// BenchmarkPlanner is BenchmarkSyncRollingUpdate with a Planner that keeps
// its memory across syncs: the steady state of a controller.
func BenchmarkPlanner(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			pl := daemonplan.NewPlanner(daemonplan.Options{})
			// The second sync sizes the planner's memory for two lists of
			// kept pods (manage's and the rolling update's).
			for range 2 {
				if _, err := pl.Sync(in); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, func() {
				p, err := pl.Sync(in)
				if err != nil || len(p.Delete) == 0 {
					b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
				}
			})
		})
	}
}

// midRolloutShuffled is midRolloutSettled with nodes and pods in a random
// (but fixed) order, as an informer's lister returns them (it lists a
// map), where a list from the API server comes in name order.
func midRolloutShuffled(n int) daemonplan.Input {
	in := midRolloutSettled(n)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(in.Nodes), func(i, j int) { in.Nodes[i], in.Nodes[j] = in.Nodes[j], in.Nodes[i] })
	r.Shuffle(len(in.Pods), func(i, j int) { in.Pods[i], in.Pods[j] = in.Pods[j], in.Pods[i] })
	return in
}

// BenchmarkSyncShuffled is BenchmarkSyncRollingUpdate and BenchmarkPlanner
// with nodes and pods in lister order: the sync sorts the nodes by name.
func BenchmarkSyncShuffled(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "shuffled", n, midRolloutShuffled)
			b.Run("Sync", func(b *testing.B) {
				reportCPU(b, func() {
					if p, err := daemonplan.Sync(in, daemonplan.Options{}); err != nil || len(p.Delete) == 0 {
						b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
					}
				})
			})
			b.Run("Planner", func(b *testing.B) {
				pl := daemonplan.NewPlanner(daemonplan.Options{})
				for range 2 {
					if _, err := pl.Sync(in); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, func() {
					if p, err := pl.Sync(in); err != nil || len(p.Delete) == 0 {
						b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
					}
				})
			})
		})
	}
}
