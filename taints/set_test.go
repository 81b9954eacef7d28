package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// untolerated is what FirstUntolerated returns.
type untolerated struct {
	Taint Taint
	Found bool
}

// TestDaemonTaintDecisions checks the taint part of NodeShouldRunDaemonPod
// (docs/eligibility.md, E6 and E7): the pod's tolerations with the daemon
// defaults merged in, ScheduleBlocking for shouldRun, ExecuteBlocking for
// shouldContinueRunning.
func TestDaemonTaintDecisions(t *testing.T) {
	none := untolerated{}
	blocked := func(tt Taint) untolerated { return untolerated{Taint: tt, Found: true} }
	var (
		noSchedule  = Taint{Key: "example.com/dedicated", Value: "infra", Effect: NoSchedule}
		noExecute   = Taint{Key: "example.com/evict", Effect: NoExecute}
		prefer      = Taint{Key: "example.com/soft", Effect: PreferNoSchedule}
		notReadyNS  = Taint{Key: KeyNotReady, Effect: NoSchedule}
		notReadyNE  = Taint{Key: KeyNotReady, Effect: NoExecute}
		unreachNS   = Taint{Key: KeyUnreachable, Effect: NoSchedule}
		unreachNE   = Taint{Key: KeyUnreachable, Effect: NoExecute}
		unsched     = Taint{Key: KeyUnschedulable, Effect: NoSchedule}
		netUnavail  = Taint{Key: KeyNetworkUnavailable, Effect: NoSchedule}
		diskPress   = Taint{Key: KeyDiskPressure, Effect: NoSchedule}
		memPress    = Taint{Key: KeyMemoryPressure, Effect: NoSchedule}
		pidPress    = Taint{Key: KeyPIDPressure, Effect: NoSchedule}
		controlPlan = Taint{Key: "node-role.kubernetes.io/control-plane", Effect: NoSchedule}
	)
	tests := []struct {
		name         string
		reason       string
		tols         []Toleration
		hostNetwork  bool
		taints       []Taint
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
			taints:       []Taint{noExecute},
			wantRun:      blocked(noExecute),
			wantContinue: blocked(noExecute),
		},
		{
			name:         "untolerated NoSchedule only",
			reason:       "shouldRun false, shouldContinueRunning true (TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod)",
			taints:       []Taint{noSchedule},
			wantRun:      blocked(noSchedule),
			wantContinue: none,
		},
		{
			name:   "only PreferNoSchedule untolerated",
			reason: "PreferNoSchedule never affects eligibility",
			taints: []Taint{prefer},
		},
		{
			name:   "unschedulable taint",
			reason: "the default unschedulable:NoSchedule toleration covers it",
			taints: []Taint{unsched},
		},
		{
			name:   "not-ready NoExecute",
			reason: "TestNotReadyNodeDaemonLaunchesPod, default toleration",
			taints: []Taint{notReadyNE},
		},
		{
			name:   "unreachable NoExecute",
			reason: "TestUnreachableNodeDaemonLaunchesPod, default toleration",
			taints: []Taint{unreachNE},
		},
		{
			name:         "not-ready NoSchedule",
			reason:       "the default not-ready toleration is NoExecute only, so shouldRun false, shouldContinueRunning true",
			taints:       []Taint{notReadyNS},
			wantRun:      blocked(notReadyNS),
			wantContinue: none,
		},
		{
			name:         "unreachable NoSchedule",
			reason:       "the default unreachable toleration is NoExecute only",
			taints:       []Taint{unreachNS},
			wantRun:      blocked(unreachNS),
			wantContinue: none,
		},
		{
			name:   "pressure taints",
			reason: "TestTaintPressureNodeDaemonLaunchesPod: disk/memory/pid-pressure NoSchedule tolerated by defaults",
			taints: []Taint{diskPress, memPress, pidPress},
		},
		{
			name:         "network-unavailable without hostNetwork",
			reason:       "AddOrUpdateDaemonPodTolerations: the network-unavailable default is added only with hostNetwork",
			taints:       []Taint{netUnavail},
			wantRun:      blocked(netUnavail),
			wantContinue: none,
		},
		{
			name:        "network-unavailable with hostNetwork",
			reason:      "AddOrUpdateDaemonPodTolerations: the 7th default, with hostNetwork",
			hostNetwork: true,
			taints:      []Taint{netUnavail},
		},
		{
			name:   "user toleration",
			reason: "TestTaintedNodeDaemonLaunchesToleratePod",
			tols:   []Toleration{{Key: "example.com/dedicated", Operator: Equal, Value: "infra", Effect: NoSchedule}},
			taints: []Taint{noSchedule},
		},
		{
			name:   "NoExecute tolerated for a limited time",
			reason: "ToleratesTaint: tolerationSeconds is ignored, the taint counts as tolerated",
			tols:   []Toleration{{Key: "example.com/evict", Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(60))}},
			taints: []Taint{noExecute},
		},
		{
			name:         "first untolerated in node order",
			reason:       "FindMatchingUntoleratedTaint reports the first selected untolerated taint",
			taints:       []Taint{prefer, unsched, controlPlan, noSchedule, noExecute},
			wantRun:      blocked(controlPlan),
			wantContinue: blocked(noExecute),
		},
		{
			name:   "tolerate everything",
			reason: "empty key with Exists tolerates every taint",
			tols:   []Toleration{{Operator: Exists}},
			taints: []Taint{controlPlan, noSchedule, noExecute, notReadyNS},
		},
		{
			name:         "tolerate every NoSchedule",
			reason:       "empty key with Exists and an effect tolerates every taint of that effect only",
			tols:         []Toleration{{Operator: Exists, Effect: NoSchedule}},
			taints:       []Taint{controlPlan, noExecute, noSchedule},
			wantRun:      blocked(noExecute),
			wantContinue: blocked(noExecute),
		},
		{
			name:         "user not-ready toleration with seconds",
			reason:       "AddOrUpdateTolerationInPodSpec: merged to the default, still NoExecute only",
			tols:         []Toleration{{Key: KeyNotReady, Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(300))}},
			taints:       []Taint{notReadyNE, notReadyNS},
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
	taints := []Taint{{Key: "a", Effect: NoSchedule}}
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
		odd := []Taint{{Key: "a", Effect: "Custom"}, {Key: "b"}}
		if got, ok := s.FirstUntolerated(odd, Effects(0xFF)); ok {
			t.Errorf("FirstUntolerated = %v, true; want nothing", got)
		}
	})
	t.Run("NewSet keeps no reference to its input", func(t *testing.T) {
		tols := []Toleration{{Key: "a", Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(5))}}
		s := NewSet(tols, Options{})
		tols[0].Key = "b"
		*tols[0].TolerationSeconds = 99
		if !s.Tolerates(Taint{Key: "a", Effect: NoExecute}) {
			t.Errorf("set changed when its input slice changed")
		}
		want := []Toleration{{Key: "a", Operator: Exists, Effect: NoExecute, TolerationSeconds: ptr(int64(5))}}
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
