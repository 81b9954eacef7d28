package taints

import "testing"

// benchFixture is a realistic node and daemon pod: a node with five taints
// (a control-plane taint, a dedicated taint, a soft taint, cordoning, and a
// GPU NoExecute taint) and a pod with six tolerations of its own plus the
// daemon defaults. Every NoSchedule/NoExecute taint is tolerated, so
// FirstUntolerated scans the whole node.
func benchFixture() (*Set, []Taint) {
	taints := []Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: NoSchedule},
		{Key: "example.com/dedicated", Value: "infra", Effect: NoSchedule},
		{Key: "example.com/spot", Value: "true", Effect: PreferNoSchedule},
		{Key: KeyUnschedulable, Effect: NoSchedule},
		{Key: "nvidia.com/gpu", Value: "present", Effect: NoExecute},
	}
	set := NewSet(benchTolerations(), Options{})
	return &set, taints
}

func benchTolerations() []Toleration {
	return MergeDaemonDefaults([]Toleration{
		{Key: "CriticalAddonsOnly", Operator: Exists},
		{Key: "example.com/team", Operator: Equal, Value: "platform", Effect: NoSchedule},
		{Key: "node-role.kubernetes.io/control-plane", Operator: Exists, Effect: NoSchedule},
		{Key: "example.com/dedicated", Operator: Equal, Value: "infra", Effect: NoSchedule},
		{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "nvidia.com/gpu", Operator: Exists, Effect: NoExecute},
	}, true)
}

var (
	sinkTaint Taint
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
		sinkFound = s.Tolerates(Taint{})
	}
}
