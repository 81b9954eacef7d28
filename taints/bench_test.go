package taints

import (
	"fmt"
	"testing"

	"github.com/daemonplan/daemonplan/api"
)

// benchFixture is a realistic node and daemon pod: a node with five taints
// (a control-plane taint, a dedicated taint, a soft taint, cordoning, and a
// GPU NoExecute taint) and a pod with six tolerations of its own plus the
// daemon defaults. Every NoSchedule/NoExecute taint is tolerated, so
// FirstUntolerated scans the whole node.
func benchFixture() (*Set, []api.Taint) {
	taints := []api.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule},
		{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Value: "present", Effect: api.TaintEffectNoExecute},
	}
	set := NewSet(benchTolerations(), Options{})
	return &set, taints
}

func benchTolerations() []api.Toleration {
	return MergeDaemonDefaults([]api.Toleration{
		{Key: "CriticalAddonsOnly", Operator: api.TolerationOpExists},
		{Key: "example.com/team", Operator: api.TolerationOpEqual, Value: "platform", Effect: api.TaintEffectNoSchedule},
		{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "example.com/dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "nvidia.com/gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	}, true)
}

var (
	sinkTaint api.Taint
	sinkFound bool
)

func BenchmarkFirstUntolerated(b *testing.B) {
	b.Run("compiled", func(b *testing.B) {
		set, taints := benchFixture()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkTaint, sinkFound = set.FirstUntolerated(taints, ScheduleBlocking)
		}
	})
	b.Run("naive", func(b *testing.B) {
		_, taints := benchFixture()
		tols := benchTolerations()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sinkTaint, sinkFound = FindUntolerated(taints, tols, ScheduleBlocking, Options{})
		}
	})
}

func BenchmarkNewSet(b *testing.B) {
	tols := benchTolerations()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := NewSet(tols, Options{})
		sinkFound = s.Tolerates(api.Taint{})
	}
}

// BenchmarkTolerationFlood checks 3,000 taints against 30,000 tolerations,
// none of which tolerates them, for three shapes of keys: keys that differ
// in their endings, keys that share their length and last eight bytes
// (which the set's index once hashed alone, making every lookup a scan of
// every toleration), and one key with 30,000 values. Matching must stay
// linear in the input whatever the keys: the three cases should cost about
// the same per taint.
func BenchmarkTolerationFlood(b *testing.B) {
	const nTols, nTaints = 30000, 3000
	cases := []struct {
		name         string
		key, value   func(i int) string
		taintKey     func(i int) string
		taintValue   string
		tolsOperator api.TolerationOperator
	}{
		{name: "distinct-endings", key: func(i int) string { return fmt.Sprintf("example.com/dedicated-%07d", i) },
			value: func(int) string { return "v" }, taintKey: func(i int) string { return fmt.Sprintf("example.com/dedicated-%07d", nTols+i) }},
		{name: "shared-endings", key: func(i int) string { return fmt.Sprintf("t%07d.example.com/dedicated", i) },
			value: func(int) string { return "v" }, taintKey: func(i int) string { return fmt.Sprintf("t%07d.example.com/dedicated", nTols+i) }},
		{name: "one-key-many-values", key: func(int) string { return "example.com/dedicated" },
			value: func(i int) string { return fmt.Sprintf("v%07d", i) }, taintKey: func(int) string { return "example.com/dedicated" }},
	}
	for _, tc := range cases {
		tols := make([]api.Toleration, nTols)
		for i := range tols {
			tols[i] = api.Toleration{Key: tc.key(i), Operator: api.TolerationOpEqual, Value: tc.value(i), Effect: api.TaintEffectNoSchedule}
		}
		taints := make([]api.Taint, nTaints)
		for i := range taints {
			taints[i] = api.Taint{Key: tc.taintKey(i), Value: "x", Effect: api.TaintEffectNoSchedule}
		}
		set := NewSet(tols, Options{})
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, t := range taints {
					if set.Tolerates(t) {
						b.Fatal("tolerated")
					}
				}
			}
		})
	}
}
