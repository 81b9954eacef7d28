package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

// untolerated is what FirstUntolerated returns.
type untolerated struct {
	Taint api.Taint
	Found bool
}

// TestDaemonTaintDecisions checks the taint part of NodeShouldRunDaemonPod
// (docs/eligibility.md, E6 and E7): the pod's tolerations with the daemon
// defaults merged in, ScheduleBlocking for shouldRun, ExecuteBlocking for
// shouldContinueRunning.
func TestDaemonTaintDecisions(t *testing.T) {
	none := untolerated{}
	blocked := func(tt api.Taint) untolerated { return untolerated{Taint: tt, Found: true} }
	var (
		noSchedule  = api.Taint{Key: "example.com/dedicated", Value: "infra", Effect: api.TaintEffectNoSchedule}
		noExecute   = api.Taint{Key: "example.com/evict", Effect: api.TaintEffectNoExecute}
		prefer      = api.Taint{Key: "example.com/soft", Effect: api.TaintEffectPreferNoSchedule}
		notReadyNS  = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule}
		notReadyNE  = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
		unreachNS   = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}
		unreachNE   = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
		unsched     = api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}
		netUnavail  = api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}
		diskPress   = api.Taint{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule}
		memPress    = api.Taint{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule}
		pidPress    = api.Taint{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule}
		controlPlan = api.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}
	)
	tests := []struct {
		name         string
		reason       string
		tols         []api.Toleration
		hostNetwork  bool
		taints       []api.Taint
		wantRun      untolerated // FirstUntolerated(ScheduleBlocking)
		wantContinue untolerated // FirstUntolerated(ExecuteBlocking)
	}{
		{
			name:   "untainted node",
			reason: "TestSimpleDaemonSetLaunchesPods: no taints, nothing blocks",
		},
		{
			name:         "untolerated NoExecute",
			reason:       "shouldRun false, shouldContinueRunning false (TestNoExecuteTaintedDoesEvicitRunningIntolerantPod)",
			taints:       []api.Taint{noExecute},
			wantRun:      blocked(noExecute),
			wantContinue: blocked(noExecute),
		},
		{
			name:         "untolerated NoSchedule only",
			reason:       "shouldRun false, shouldContinueRunning true (TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod)",
			taints:       []api.Taint{noSchedule},
			wantRun:      blocked(noSchedule),
			wantContinue: none,
		},
		{
			name:   "only PreferNoSchedule untolerated",
			reason: "PreferNoSchedule never affects eligibility",
			taints: []api.Taint{prefer},
		},
		{
			name:   "unschedulable taint",
			reason: "the default unschedulable:NoSchedule toleration covers it",
			taints: []api.Taint{unsched},
		},
		{
			name:   "not-ready NoExecute",
			reason: "TestNotReadyNodeDaemonLaunchesPod, default toleration",
			taints: []api.Taint{notReadyNE},
		},
		{
			name:   "unreachable NoExecute",
			reason: "TestUnreachableNodeDaemonLaunchesPod, default toleration",
			taints: []api.Taint{unreachNE},
		},
		{
			name:         "not-ready NoSchedule",
			reason:       "the default not-ready toleration is NoExecute only, so shouldRun false, shouldContinueRunning true",
			taints:       []api.Taint{notReadyNS},
			wantRun:      blocked(notReadyNS),
			wantContinue: none,
		},
		{
			name:         "unreachable NoSchedule",
			reason:       "the default unreachable toleration is NoExecute only",
			taints:       []api.Taint{unreachNS},
			wantRun:      blocked(unreachNS),
			wantContinue: none,
		},
		{
			name:   "pressure taints",
			reason: "TestTaintPressureNodeDaemonLaunchesPod: disk/memory/pid-pressure NoSchedule tolerated by defaults",
			taints: []api.Taint{diskPress, memPress, pidPress},
		},
		{
			name:         "network-unavailable without hostNetwork",
			reason:       "AddOrUpdateDaemonPodTolerations: the network-unavailable default is added only with hostNetwork",
			taints:       []api.Taint{netUnavail},
			wantRun:      blocked(netUnavail),
			wantContinue: none,
		},
		{
			name:        "network-unavailable with hostNetwork",
			reason:      "AddOrUpdateDaemonPodTolerations: the 7th default, with hostNetwork",
			hostNetwork: true,
			taints:      []api.Taint{netUnavail},
		},
		{
			name:   "user toleration",
			reason: "TestTaintedNodeDaemonLaunchesToleratePod",
			tols:   []api.Toleration{{Key: "example.com/dedicated", Operator: api.TolerationOpEqual, Value: "infra", Effect: api.TaintEffectNoSchedule}},
			taints: []api.Taint{noSchedule},
		},
		{
			name:   "NoExecute tolerated for a limited time",
			reason: "ToleratesTaint: tolerationSeconds is ignored, the taint counts as tolerated",
			tols:   []api.Toleration{{Key: "example.com/evict", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(60))}},
			taints: []api.Taint{noExecute},
		},
		{
			name:         "first untolerated in node order",
			reason:       "FindMatchingUntoleratedTaint reports the first selected untolerated taint",
			taints:       []api.Taint{prefer, unsched, controlPlan, noSchedule, noExecute},
			wantRun:      blocked(controlPlan),
			wantContinue: blocked(noExecute),
		},
		{
			name:   "tolerate everything",
			reason: "empty key with Exists tolerates every taint",
			tols:   []api.Toleration{{Operator: api.TolerationOpExists}},
			taints: []api.Taint{controlPlan, noSchedule, noExecute, notReadyNS},
		},
		{
			name:         "tolerate every NoSchedule",
			reason:       "empty key with Exists and an effect tolerates every taint of that effect only",
			tols:         []api.Toleration{{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}},
			taints:       []api.Taint{controlPlan, noExecute, noSchedule},
			wantRun:      blocked(noExecute),
			wantContinue: blocked(noExecute),
		},
		{
			name:         "user not-ready toleration with seconds",
			reason:       "AddOrUpdateTolerationInPodSpec: merged to the default, still NoExecute only",
			tols:         []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}},
			taints:       []api.Taint{notReadyNE, notReadyNS},
			wantRun:      blocked(notReadyNS),
			wantContinue: none,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tols := MergeDaemonDefaults(tc.tols, tc.hostNetwork)
			set := NewSet(tols, Options{})
			var got [2]untolerated
			got[0].Taint, got[0].Found = set.FirstUntolerated(tc.taints, ScheduleBlocking)
			got[1].Taint, got[1].Found = set.FirstUntolerated(tc.taints, ExecuteBlocking)
			want := [2]untolerated{tc.wantRun, tc.wantContinue}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FirstUntolerated [run, continue] mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
			var naive [2]untolerated
			naive[0].Taint, naive[0].Found = FindUntolerated(tc.taints, tols, ScheduleBlocking, Options{})
			naive[1].Taint, naive[1].Found = FindUntolerated(tc.taints, tols, ExecuteBlocking, Options{})
			if diff := cmp.Diff(want, naive); diff != "" {
				t.Errorf("FindUntolerated [run, continue] mismatch (-want +got) (%s):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSetEdges(t *testing.T) {
	taints := []api.Taint{{Key: "a", Effect: api.TaintEffectNoSchedule}}
	t.Run("zero Set tolerates nothing", func(t *testing.T) {
		var s Set
		got, ok := s.FirstUntolerated(taints, AllEffects)
		if diff := cmp.Diff(untolerated{taints[0], true}, untolerated{got, ok}); diff != "" {
			t.Errorf("FirstUntolerated mismatch (-want +got):\n%s", diff)
		}
		if s.Tolerations() != nil {
			t.Errorf("Tolerations() = %v, want nil", s.Tolerations())
		}
	})
	t.Run("empty effect selection checks nothing", func(t *testing.T) {
		var s Set
		if got, ok := s.FirstUntolerated(taints, 0); ok {
			t.Errorf("FirstUntolerated(_, 0) = %v, true; want nothing", got)
		}
	})
	t.Run("unknown taint effects are never selected", func(t *testing.T) {
		var s Set
		odd := []api.Taint{{Key: "a", Effect: "Custom"}, {Key: "b"}}
		if got, ok := s.FirstUntolerated(odd, Effects(0xFF)); ok {
			t.Errorf("FirstUntolerated = %v, true; want nothing", got)
		}
	})
	t.Run("NewSet keeps no reference to its input", func(t *testing.T) {
		tols := []api.Toleration{{Key: "a", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(5))}}
		s := NewSet(tols, Options{})
		tols[0].Key = "b"
		*tols[0].TolerationSeconds = 99
		if !s.Tolerates(api.Taint{Key: "a", Effect: api.TaintEffectNoExecute}) {
			t.Errorf("set changed when its input slice changed")
		}
		want := []api.Toleration{{Key: "a", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(5))}}
		if diff := cmp.Diff(want, s.Tolerations()); diff != "" {
			t.Errorf("Tolerations() mismatch (-want +got):\n%s", diff)
		}
		s.Tolerations()[0].Key = "c"
		if diff := cmp.Diff(want, s.Tolerations()); diff != "" {
			t.Errorf("Tolerations() returned shared storage (-want +got):\n%s", diff)
		}
	})
}

func TestFirstUntoleratedAllocs(t *testing.T) {
	set, taints := benchFixture()
	allocs := testing.AllocsPerRun(100, func() {
		set.FirstUntolerated(taints, ScheduleBlocking)
		set.FirstUntolerated(taints, ExecuteBlocking)
	})
	if allocs != 0 {
		t.Errorf("FirstUntolerated allocates %v times per run, want 0", allocs)
	}
}
