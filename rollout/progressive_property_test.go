package rollout_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
)

// drawLayout draws a layout for build: up to 12 nodes, each with an
// optional prefix and up to two pods. Vanished nodes ("?") only when
// vanished is set.
func drawLayout(t *rapid.T, vanished bool) []string {
	prefixes := []string{"", "", "", "!"}
	if vanished {
		prefixes = append(prefixes, "?")
	}
	n := rapid.IntRange(1, 12).Draw(t, "nodes")
	layout := make([]string, n)
	for i := range layout {
		entry := rapid.SampledFrom(prefixes).Draw(t, "prefix")
		for range rapid.IntRange(0, 2).Draw(t, "pods") {
			entry += rapid.SampledFrom([]string{"O", "O", "O", "o", "N", "N", "n", "m", "G", "T", "F"}).Draw(t, "pod")
		}
		layout[i] = entry
	}
	return layout
}

func drawBudgets(t *rapid.T) api.UpdateStrategy {
	v := rapid.SampledFrom([]*api.IntOrPercent{api.Int(1), api.Int(2), api.Int(4), api.Percent("30%"), api.Percent("100%")}).Draw(t, "budget")
	if rapid.Bool().Draw(t, "surge") {
		return maxSurge(v)
	}
	return maxUnavailable(v)
}

// hasLetter reports whether a layout holds one of the pod letters.
func hasLetter(layout []string, letters string) bool {
	for _, e := range layout {
		for _, r := range e {
			for _, l := range letters {
				if r == l {
					return true
				}
			}
		}
	}
	return false
}

// TestProgressiveNeutral is a differential property: extensions set to
// values that change nothing plan exactly as RollingUpdate (upstream). An
// everything scope, a zero partition, a promoted canary, partitioned
// scaling, surge with unavailability on a spec with one budget, zones over
// unlabelled nodes, and strict budgets when no old pod is unavailable are
// all neutral, and so is a partition of 0; the node filters only when no
// node has vanished (they leave vanished nodes to pod GC).
func TestProgressiveNeutral(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		vanished := rapid.Bool().Draw(rt, "vanished")
		layout := drawLayout(rt, vanished)
		f := build(drawBudgets(rt), layout...)
		f.ds.MinReadySeconds = rapid.SampledFrom([]int32{0, 10}).Draw(rt, "minReady")
		want, _, wantErr := rollout.RollingUpdate(f.cluster(rt), t0, hashNew, rollout.Progressive{})

		neutral := []rollout.Progressive{
			{PartitionedScaling: true},
			{Partition: api.Int(0)},
			{SurgeWithUnavailable: true},
			{Canary: &rollout.Canary{Nodes: api.Int(1), Verdicts: map[string]rollout.Verdict{hashNew: rollout.Promote}}, SurgeWithUnavailable: true},
		}
		if !vanished {
			neutral = append(neutral,
				rollout.Progressive{Scope: &api.LabelSelector{}},
				rollout.Progressive{Partition: api.Percent("0%"), PartitionedScaling: true},
				rollout.Progressive{Zones: &rollout.Zones{MaxConcurrent: rapid.IntRange(0, 3).Draw(rt, "k")}},
				rollout.Progressive{Canary: &rollout.Canary{Nodes: api.Percent("50%"), SpreadKeys: []string{"zone"},
					Verdicts: map[string]rollout.Verdict{hashNew: rollout.Promote}}},
			)
		}
		if !hasLetter(layout, "oF") {
			neutral = append(neutral, rollout.Progressive{StrictBudgets: true})
		}
		p := rapid.SampledFrom(neutral).Draw(rt, "options")
		got, prog, gotErr := rollout.RollingUpdate(f.cluster(rt), t0, hashNew, p)
		if (wantErr == nil) != (gotErr == nil) {
			rt.Fatalf("error %v with %+v, upstream %v", gotErr, p, wantErr)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("RollingUpdate with Progressive%s differs from the zero Progressive (-upstream +progressive):\n%s", describeOpts(p), diff)
		}
		if prog.Held != rollout.NotHeld {
			rt.Fatalf("neutral options hold the rollout: %v", prog.Held)
		}
	})
}

// TestProgressiveIgnoresInputOrder: permuting nodes and pods changes no
// progressive step, and the input is left unchanged.
func TestProgressiveIgnoresInputOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tt := rapid.SampledFrom(progressiveCases).Draw(rt, "case")
		f := build(tt.strategy, tt.layout...)
		f.label(tt.labels)
		want, wantProg, wantErr := rollout.RollingUpdate(f.cluster(rt), t0, hashNew, tt.opts)

		g := build(tt.strategy, tt.layout...)
		g.label(tt.labels)
		g.nodes = rapid.Permutation(g.nodes).Draw(rt, "nodes")
		g.pods = rapid.Permutation(g.pods).Draw(rt, "pods")
		nodesBefore, podsBefore := cloneNodes(g.nodes), clonePods(g.pods)
		got, gotProg, gotErr := rollout.RollingUpdate(g.cluster(rt), t0, hashNew, tt.opts)
		if (wantErr == nil) != (gotErr == nil) {
			rt.Fatalf("error %v after permuting, %v before", gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("step of permuted input mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantProg, gotProg, cmpopts.EquateEmpty()); diff != "" {
			rt.Fatalf("progress of permuted input mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(nodesBefore, g.nodes); diff != "" {
			rt.Fatalf("changed its nodes (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(podsBefore, g.pods); diff != "" {
			rt.Fatalf("changed its pods (-before +after):\n%s", diff)
		}
	})
}

func describeOpts(p rollout.Progressive) string {
	s := fmt.Sprintf("{Partition:%v PartitionedScaling:%v Scope:%v StrictBudgets:%v SurgeWithUnavailable:%v",
		p.Partition, p.PartitionedScaling, p.Scope, p.StrictBudgets, p.SurgeWithUnavailable)
	if p.Zones != nil {
		s += fmt.Sprintf(" Zones:%+v", *p.Zones)
	}
	if p.Canary != nil {
		s += fmt.Sprintf(" Canary:%+v", *p.Canary)
	}
	return s + "}"
}
