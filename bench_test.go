package daemonplan_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/benchkit"
)

// midRollout builds a cluster of n nodes halfway through a RollingUpdate:
// every node runs one ready pod, half of them of the old revision, a few
// nodes are tainted, and every thousandth pod has failed. The DaemonSet's
// status is a generation behind.
func midRollout(n int) daemonplan.Input {
	in := benchkit.Cluster(n, true)
	in.DaemonSet.Status.ObservedGeneration = 1
	for i := range in.Pods {
		if i%1000 == 3 {
			in.Pods[i].Phase, in.Pods[i].Ready = api.PodFailed, false
		}
	}
	return in
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
		// Collect what building left behind now, not in the timed loop.
		runtime.GC()
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
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "mid", n, midRollout)
			benchkit.ReportCPU(b, func(int) {
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
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			benchkit.ReportCPU(b, func(int) {
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
func BenchmarkPlanner(b *testing.B) { benchPlanner(b, false) }

// BenchmarkPlannerVersions is BenchmarkPlanner with every node given a
// Version, as kube/kubesync's Planner gives the nodes it converts: the
// Planner takes each node's decision from the last sync instead of reading
// its labels.
func BenchmarkPlannerVersions(b *testing.B) { benchPlanner(b, true) }

func benchPlanner(b *testing.B, versions bool) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			if versions {
				in.Nodes = slices.Clone(in.Nodes)
				for i := range in.Nodes {
					in.Nodes[i].Version = "1"
				}
			}
			pl := daemonplan.NewPlanner(daemonplan.Options{})
			// The second sync sizes the planner's memory for two lists of
			// kept pods (manage's and the rolling update's).
			for range 2 {
				if _, err := pl.Sync(in); err != nil {
					b.Fatal(err)
				}
			}
			benchkit.ReportCPU(b, func(int) {
				p, err := pl.Sync(in)
				if err != nil || len(p.Delete) == 0 {
					b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
				}
			})
		})
	}
}

// midRolloutShuffled is midRolloutSettled with nodes and pods in a random
// order, as an informer's lister returns them (it lists a map), where a
// list from the API server comes in name order.
func midRolloutShuffled(n int) daemonplan.Input {
	return shuffled(midRolloutSettled(n), 1)
}

// shuffled returns in with its nodes and pods in a random order drawn
// from seed, in arrays of their own.
func shuffled(in daemonplan.Input, seed uint64) daemonplan.Input {
	in.Nodes, in.Pods = slices.Clone(in.Nodes), slices.Clone(in.Pods)
	r := rand.New(rand.NewPCG(seed, 2))
	r.Shuffle(len(in.Nodes), func(i, j int) { in.Nodes[i], in.Nodes[j] = in.Nodes[j], in.Nodes[i] })
	r.Shuffle(len(in.Pods), func(i, j int) { in.Pods[i], in.Pods[j] = in.Pods[j], in.Pods[i] })
	return in
}

// BenchmarkSyncShuffled is BenchmarkSyncRollingUpdate and BenchmarkPlanner
// with nodes and pods in lister order, a new order every sync as a lister
// gives (two orders, one sync in each by turns): the sync sorts the nodes
// by name, and a Planner finds no pod where it was in the last snapshot.
func BenchmarkSyncShuffled(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			first := benchInput(b, "shuffled", n, midRolloutShuffled)
			b.StopTimer()
			second := shuffled(first, 2)
			runtime.GC()
			b.StartTimer()
			benchSyncAndPlanner(b, first, second)
		})
	}
}

// benchSyncAndPlanner runs a one-off Sync and a reused Planner on ins, by
// turns: a rolling update that deletes in every sync.
func benchSyncAndPlanner(b *testing.B, ins ...daemonplan.Input) {
	b.Run("Sync", func(b *testing.B) {
		benchkit.ReportCPU(b, func(i int) {
			if p, err := daemonplan.Sync(ins[i%len(ins)], daemonplan.Options{}); err != nil || len(p.Delete) == 0 {
				b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
			}
		})
	})
	b.Run("Planner", func(b *testing.B) {
		pl := daemonplan.NewPlanner(daemonplan.Options{})
		for i := range 2 {
			if _, err := pl.Sync(ins[i%len(ins)]); err != nil {
				b.Fatal(err)
			}
		}
		benchkit.ReportCPU(b, func(i int) {
			if p, err := pl.Sync(ins[i%len(ins)]); err != nil || len(p.Delete) == 0 {
				b.Fatalf("want rolling-update deletes, got %d (%v)", len(p.Delete), err)
			}
		})
	})
}

// labelSink keeps BenchmarkNodeSelectorRead's lookups from being dropped.
var labelSink int

// BenchmarkNodeSelectorRead is the floor under every sync: the one thing
// a sync cannot skip, looking up the nodeSelector's label in every node's
// label map, and nothing else, on BenchmarkPlanner's cluster. Once the
// label maps outgrow the processor's caches (between 10k and 100k nodes
// here) each lookup waits for memory, and this loop alone grows far more
// than tenfold from 10k to 100k nodes.
func BenchmarkNodeSelectorRead(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			key, want := "kubernetes.io/os", in.DaemonSet.Template.NodeSelector["kubernetes.io/os"]
			benchkit.ReportCPU(b, func(int) {
				matched := 0
				for i := range in.Nodes {
					if v, ok := in.Nodes[i].Labels[key]; ok && v == want {
						matched++
					}
				}
				if matched != len(in.Nodes) {
					b.Fatalf("%d of %d nodes match the nodeSelector", matched, len(in.Nodes))
				}
				labelSink += matched
			})
		})
	}
}

// midRolloutDecoded is midRolloutSettled with every node and pod holding
// its own strings and label maps, as objects decoded from the API server
// do (benchkit.Decoded): each label lookup and name comparison then reads
// memory of its own.
func midRolloutDecoded(n int) daemonplan.Input {
	return benchkit.Decoded(midRolloutSettled(n))
}

// BenchmarkSyncDecoded is BenchmarkSyncRollingUpdate and BenchmarkPlanner
// on objects that own their memory, as a controller's informer holds them.
func BenchmarkSyncDecoded(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			benchSyncAndPlanner(b, benchInput(b, "decoded", n, midRolloutDecoded))
		})
	}
}

// evictSize is four times the largest last-level cache of the machines
// these benchmarks run on (32 MiB): writing it pushes a cluster's memory
// out of every cache.
const evictSize = 128 << 20

var evictBuf []byte

// evictCaches overwrites evictSize bytes, so that what runs next finds
// none of its memory in the processor's caches.
func evictCaches() {
	if evictBuf == nil {
		evictBuf = make([]byte, evictSize)
	}
	for i := 0; i < len(evictBuf); i += 64 {
		evictBuf[i]++
	}
}

// BenchmarkSyncRollingUpdateCold is BenchmarkSyncRollingUpdate with the
// caches emptied before every sync (outside the timed part), as they are
// for a controller that syncs now and then between other work. It shows
// what the sync costs per node when none of the cluster is cached: a
// 10k-node cluster fits in a 32 MiB cache and is read from it in the warm
// benchmark, a 100k-node one does not, so the warm figures grow more than
// tenfold from 10k to 100k nodes and the cold ones need not.
func BenchmarkSyncRollingUpdateCold(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				evictCaches()
				b.StartTimer()
				if _, err := daemonplan.Sync(in, daemonplan.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNodeSelectorReadCold is BenchmarkNodeSelectorRead with the
// caches emptied before every pass, as BenchmarkSyncRollingUpdateCold.
func BenchmarkNodeSelectorReadCold(b *testing.B) {
	for _, n := range benchkit.Sizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, "settled", n, midRolloutSettled)
			key, want := "kubernetes.io/os", in.DaemonSet.Template.NodeSelector["kubernetes.io/os"]
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				evictCaches()
				b.StartTimer()
				matched := 0
				for i := range in.Nodes {
					if v, ok := in.Nodes[i].Labels[key]; ok && v == want {
						matched++
					}
				}
				labelSink += matched
			}
		})
	}
}
