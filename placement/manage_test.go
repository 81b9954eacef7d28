package placement_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
)

var (
	noScheduleTaint = api.Taint{Key: "dedicated", Value: "user1", Effect: api.TaintEffectNoSchedule}
	noExecuteTaint  = api.Taint{Key: "dedicated", Value: "user1", Effect: api.TaintEffectNoExecute}
	noScheduleToler = api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "user1", Effect: api.TaintEffectNoSchedule}
)

func colorAffinity(values ...string) *api.NodeSelector {
	return &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: api.SelectorOpIn, Values: values}},
	}}}
}

// manageCase is one sync of upstream's daemon_controller_test.go, run once per update strategy unless surge is set.
type manageCase struct {
	name   string
	reason string
	ds     []func(*api.DaemonSet)
	build  func(f *fixture)
	want   counts
	// wantCreates and wantDeletes, when set, name the nodes and pods.
	wantCreates, wantDeletes []string
}

func runManageCases(t *testing.T, cases []manageCase, strategyMods []func(*api.DaemonSet), strategyNames []string) {
	t.Helper()
	for _, tc := range cases {
		for i, mod := range strategyMods {
			t.Run(tc.name+"/"+strategyNames[i], func(t *testing.T) {
				f := &fixture{ds: newDS(append([]func(*api.DaemonSet){mod}, tc.ds...)...)}
				if tc.build != nil {
					tc.build(f)
				}
				p, _ := f.plan(t, nil)
				if diff := cmp.Diff(tc.want, countsOf(p)); diff != "" {
					t.Errorf("%s\nManage() mismatch (-want +got):\n%s", tc.reason, diff)
				}
				if tc.wantCreates != nil {
					if diff := cmp.Diff(tc.wantCreates, createNodes(p), cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("%s\nManage() creates mismatch (-want +got):\n%s", tc.reason, diff)
					}
				}
				if tc.wantDeletes != nil {
					if diff := cmp.Diff(tc.wantDeletes, deletePods(p), cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("%s\nManage() deletes mismatch (-want +got):\n%s", tc.reason, diff)
					}
				}
			})
		}
	}
}

func bothStrategies() ([]func(*api.DaemonSet), []string) {
	var mods []func(*api.DaemonSet)
	var names []string
	for _, s := range strategies {
		mods = append(mods, s.mod)
		names = append(names, s.name)
	}
	return mods, names
}

func TestManageUpstreamScenarios(t *testing.T) {
	cases := []manageCase{
		{
			name:   "TestSimpleDaemonSetLaunchesPods",
			reason: "every node of five without a pod gets one",
			build:  func(f *fixture) { f.addNodes(0, 5, nil) },
			want:   counts{Creates: 5},
		},
		{
			name:   "TestNoNodesDoesNothing",
			reason: "no node, no pod: nothing to do",
			want:   counts{},
		},
		{
			name:   "TestOneNodeDaemonLaunchesPod",
			reason: "a single node gets its pod",
			build:  func(f *fixture) { f.addNodes(0, 1, nil) },
			want:   counts{Creates: 1},
		},
		{
			name:   "TestDealsWithExistingPods",
			reason: "node-0 lacks a pod and node-4's pods are released (label mismatch): 2 creates; node-2 and node-3 hold 1 and 4 excess pods: 5 deletes",
			build: func(f *fixture) {
				f.addNodes(0, 5, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1)
				f.addPods("node-2", simpleDaemonSetLabel, 2)
				f.addPods("node-3", simpleDaemonSetLabel, 5)
				f.addPods("node-4", simpleDaemonSetLabel2, 2)
			},
			want:        counts{Creates: 2, Deletes: 5},
			wantCreates: []string{"node-0", "node-4"},
			wantDeletes: []string{"node-2-pod-02", "node-3-pod-04", "node-3-pod-05", "node-3-pod-06", "node-3-pod-07"},
		},
		{
			name:   "TestSelectorDaemonLaunchesPods",
			reason: "the nodeSelector matches 3 of 7 nodes",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel }},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addNodes(4, 3, simpleNodeLabel)
			},
			want:        counts{Creates: 3},
			wantCreates: []string{"node-4", "node-5", "node-6"},
		},
		{
			name:   "TestSelectorDaemonDeletesUnselectedPods",
			reason: "5 selected nodes lack a pod; the 3+1 matching pods on unselected node-1 and node-4 go; node-0's label2 pods are released, not deleted",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel }},
			build: func(f *fixture) {
				f.addNodes(0, 5, nil)
				f.addNodes(5, 5, simpleNodeLabel)
				f.addPods("node-0", simpleDaemonSetLabel2, 2)
				f.addPods("node-1", simpleDaemonSetLabel, 3)
				f.addPods("node-1", simpleDaemonSetLabel2, 1)
				f.addPods("node-4", simpleDaemonSetLabel, 1)
			},
			want: counts{Creates: 5, Deletes: 4},
		},
		{
			name:   "TestSelectorDaemonDealsWithExistingPods",
			reason: "creates on node-5, node-7 (only released pods) and node-8; deletes 8 pods on unselected nodes and 12 excess on node-6",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel }},
			build: func(f *fixture) {
				f.addNodes(0, 5, nil)
				f.addNodes(5, 5, simpleNodeLabel)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
				f.addPods("node-1", simpleDaemonSetLabel, 3)
				f.addPods("node-1", simpleDaemonSetLabel2, 2)
				f.addPods("node-2", simpleDaemonSetLabel, 4)
				f.addPods("node-6", simpleDaemonSetLabel, 13)
				f.addPods("node-7", simpleDaemonSetLabel2, 4)
				f.addPods("node-9", simpleDaemonSetLabel, 1)
				f.addPods("node-9", simpleDaemonSetLabel2, 1)
			},
			want:        counts{Creates: 3, Deletes: 20},
			wantCreates: []string{"node-5", "node-7", "node-8"},
		},
		{
			name:   "TestBadSelectorDaemonDoesNothing",
			reason: "the nodeSelector matches no node",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel2 }},
			build: func(f *fixture) {
				f.addNodes(0, 5, nil)
				f.addNodes(5, 5, simpleNodeLabel)
			},
			want: counts{},
		},
		{
			name:        "TestNameDaemonSetLaunchesPods",
			reason:      "the template's nodeName picks node-0",
			ds:          []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeName = "node-0" }},
			build:       func(f *fixture) { f.addNodes(0, 5, nil) },
			want:        counts{Creates: 1},
			wantCreates: []string{"node-0"},
		},
		{
			name:   "TestBadNameDaemonSetDoesNothing",
			reason: "the template's nodeName names a node that does not exist",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeName = "node-10" }},
			build:  func(f *fixture) { f.addNodes(0, 5, nil) },
			want:   counts{},
		},
		{
			name:   "TestNameAndSelectorDaemonSetLaunchesPods",
			reason: "nodeName node-6 carries the selected labels",
			ds: []func(*api.DaemonSet){func(ds *api.DaemonSet) {
				ds.Template.NodeSelector = simpleNodeLabel
				ds.Template.NodeName = "node-6"
			}},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addNodes(4, 3, simpleNodeLabel)
			},
			want:        counts{Creates: 1},
			wantCreates: []string{"node-6"},
		},
		{
			name:   "TestInconsistentNameSelectorDaemonSetDoesNothing",
			reason: "nodeName node-0 lacks the selected labels",
			ds: []func(*api.DaemonSet){func(ds *api.DaemonSet) {
				ds.Template.NodeSelector = simpleNodeLabel
				ds.Template.NodeName = "node-0"
			}},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addNodes(4, 3, simpleNodeLabel)
			},
			want: counts{},
		},
		{
			name:   "TestSelectorDaemonSetLaunchesPods",
			reason: "the nodeSelector alone matches 3 of 7 nodes",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel }},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addNodes(4, 3, simpleNodeLabel)
			},
			want: counts{Creates: 3},
		},
		{
			name:   "TestNodeAffinityDaemonLaunchesPods",
			reason: "required affinity color In [blue] matches 3 of 7 nodes",
			ds: []func(*api.DaemonSet){func(ds *api.DaemonSet) {
				ds.Template.RequiredNodeAffinity = colorAffinity(simpleNodeLabel["color"])
			}},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addNodes(4, 3, simpleNodeLabel)
			},
			want:        counts{Creates: 3},
			wantCreates: []string{"node-4", "node-5", "node-6"},
		},
		{
			name:   "TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod",
			reason: "an untolerated NoSchedule taint lets the running pod stay",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, noScheduleTaint)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
			},
			want: counts{},
		},
		{
			name:   "TestNoExecuteTaintedDoesEvicitRunningIntolerantPod",
			reason: "an untolerated NoExecute taint evicts the running pod",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, noExecuteTaint)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
			},
			want: counts{Deletes: 1},
		},
		{
			name:   "TestTaintedNodeDaemonDoesNotLaunchIntolerantPod",
			reason: "an untolerated NoSchedule taint keeps new pods off",
			build:  func(f *fixture) { f.addNodes(0, 1, nil, noScheduleTaint) },
			want:   counts{},
		},
		{
			name:   "TestTaintedNodeDaemonLaunchesToleratePod",
			reason: "the DaemonSet tolerates the NoSchedule taint",
			ds: []func(*api.DaemonSet){func(ds *api.DaemonSet) {
				ds.Template.Tolerations = []api.Toleration{noScheduleToler}
			}},
			build: func(f *fixture) { f.addNodes(0, 1, nil, noScheduleTaint) },
			want:  counts{Creates: 1},
		},
		{
			name:   "TestNodeDaemonLaunchesToleratePod",
			reason: "a toleration on an untainted node changes nothing",
			ds: []func(*api.DaemonSet){func(ds *api.DaemonSet) {
				ds.Template.Tolerations = []api.Toleration{noScheduleToler}
			}},
			build: func(f *fixture) { f.addNodes(0, 1, nil) },
			want:  counts{Creates: 1},
		},
		{
			name:   "TestNotReadyNodeDaemonLaunchesPod",
			reason: "not-ready:NoExecute is covered by the default tolerations",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "TestUnreachableNodeDaemonLaunchesPod",
			reason: "unreachable:NoExecute is covered by the default tolerations",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "TestTaintPressureNodeDaemonLaunchesPod",
			reason: "disk, memory and pid pressure NoSchedule taints are covered by the default tolerations",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil,
					api.Taint{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
					api.Taint{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule},
					api.Taint{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "UnschedulableTaintLaunchesPod",
			reason: "a cordoned node (unschedulable:NoSchedule) still gets the daemon pod",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "NotReadyNoScheduleTaintDoesNotLaunchPod",
			reason: "the default not-ready toleration is NoExecute only, so not-ready:NoSchedule blocks new pods (NodeShouldRunDaemonPod)",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule})
			},
			want: counts{},
		},
		{
			name:   "NetworkUnavailableTaintWithoutHostNetwork",
			reason: "the network-unavailable toleration is added only with hostNetwork",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule})
			},
			want: counts{},
		},
		{
			name:   "NetworkUnavailableTaintWithHostNetwork",
			reason: "hostNetwork daemons tolerate network-unavailable:NoSchedule",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.Template.HostNetwork = true }},
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "PreferNoScheduleTaintIgnored",
			reason: "PreferNoSchedule taints play no part",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, api.Taint{Key: "soft", Effect: api.TaintEffectPreferNoSchedule})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "TestDaemonSetRespectsTermination",
			reason: "the node's only pod is terminating: without surge no replacement in this sync",
			build: func(f *fixture) {
				f.addNodes(0, 1, simpleNodeLabel)
				f.addPods("node-0", simpleDaemonSetLabel, 1, deleting)
			},
			want: counts{},
		},
		{
			name:   "TestDeleteUnscheduledPodForNotExistingNode",
			reason: "the unbound pod pinned to vanished node-3 is deleted; the pod bound to vanished node-2 is left to pod GC",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
				f.addPods("node-2", simpleDaemonSetLabel, 1)
				f.addPods("node-3", simpleDaemonSetLabel, 1, func(p *api.Pod) {
					p.NodeName = ""
					p.RequiredNodeAffinity = placement.PodNodeAffinity("node-3")
				})
			},
			want:        counts{Deletes: 1},
			wantDeletes: []string{"node-3-pod-02"},
		},
		{
			name:   "TestInsufficientCapacityNodeDaemonDoesNotUnscheduleRunningPod",
			reason: "resources are not modelled: the running pod stays",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
			},
			want: counts{},
		},
		{
			name:   "OrphanAdoptedNotRecreated",
			reason: "a matching orphan is adopted and counts as the node's pod",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, orphan)
			},
			want: counts{},
		},
		{
			name:   "ForeignPodIgnored",
			reason: "a pod controlled by another owner is not the DaemonSet's",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, func(p *api.Pod) {
					p.Controller = &api.OwnerRef{Kind: "ReplicaSet", Name: "rs", UID: "rs-uid"}
				})
			},
			want: counts{Creates: 1},
		},
		{
			name:   "SucceededPodDeletedWithoutBackoff",
			reason: "succeeded pods are deleted at once, with no event and no replacement in this sync",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 2, func(p *api.Pod) { p.Phase = api.PodSucceeded })
			},
			want: counts{Deletes: 2},
		},
	}
	mods, names := bothStrategies()
	runManageCases(t, cases, mods, names)
}

func TestDaemonKillFailedPods(t *testing.T) {
	cases := []struct {
		name           string
		reason         string
		failed, normal int
		want           counts
	}{
		{name: "normal pod", reason: "one running pod: nothing to do", failed: 0, normal: 1, want: counts{}},
		{name: "no pods", reason: "the node gets its pod", failed: 0, normal: 0, want: counts{Creates: 1}},
		{name: "failed pod", reason: "the failed pod goes (one event), its replacement comes in a later sync", failed: 1, normal: 0, want: counts{Deletes: 1, Events: 1}},
		{name: "failed and normal pods", reason: "the failed pod and two of three running ones go", failed: 1, normal: 3, want: counts{Deletes: 3, Events: 1}},
		{name: "two failed pods", reason: "one failed pod per node per backoff window", failed: 2, normal: 0, want: counts{Deletes: 1, Events: 1}},
	}
	for _, tc := range cases {
		for _, s := range strategies {
			t.Run(tc.name+"/"+s.name, func(t *testing.T) {
				f := &fixture{ds: newDS(s.mod)}
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, tc.failed, failed)
				f.addPods("node-0", simpleDaemonSetLabel, tc.normal)
				p, _ := f.plan(t, nil)
				if diff := cmp.Diff(tc.want, countsOf(p)); diff != "" {
					t.Errorf("%s\nManage() mismatch (-want +got):\n%s", tc.reason, diff)
				}
			})
		}
	}
}

// TestFailedPodOwnedBeforeAdopted: of several failed pods on one node,
// the one deleted in this backoff window is one the DaemonSet already
// controlled, never an orphan it adopts in this sync, even an older one:
// upstream meets the claimed pods owned first, orphans after (found by
// running the v1.37.2 controller side by side on generated clusters;
// docs/manage.md, M10).
func TestFailedPodOwnedBeforeAdopted(t *testing.T) {
	cases := []struct {
		name, reason string
		pods         func(f *fixture)
		want         []string
	}{
		{name: "older orphan, newer owned", reason: "the owned pod goes although the orphan is older",
			pods: func(f *fixture) {
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed, orphan)
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed)
			},
			want: []string{"node-0-pod-01"}},
		{name: "two owned, one orphan", reason: "the oldest owned pod goes",
			pods: func(f *fixture) {
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed, orphan)
				f.addPods("node-0", simpleDaemonSetLabel, 2, failed)
			},
			want: []string{"node-0-pod-01"}},
		{name: "orphans only", reason: "with no owned failed pod, the oldest adopted one goes",
			pods: func(f *fixture) {
				f.addPods("node-0", simpleDaemonSetLabel, 2, failed, orphan)
			},
			want: []string{"node-0-pod-00"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fixture{ds: newDS()}
			f.addNodes(0, 1, nil)
			tc.pods(f)
			p, _ := f.plan(t, nil)
			if diff := cmp.Diff(tc.want, deletePods(p)); diff != "" {
				t.Errorf("%s\nManage() deletes mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDaemonKillFailedPodsBackoff walks the per-node backoff with the clock
// (docs/manage.md, M10): delete, hold back until exactly the delay has passed, delete
// again with the delay doubled; an expired window or a new observed
// generation starts over.
func TestDaemonKillFailedPodsBackoff(t *testing.T) {
	f := &fixture{ds: newDS()}
	f.addNodes(0, 1, nil)
	f.addPods("node-0", simpleDaemonSetLabel, 1, failed)
	key := placement.BackoffKey{DaemonSetUID: "foo-uid", ObservedGeneration: 0, Node: "node-0"}

	type step struct {
		name        string
		at          time.Duration // after t0
		wantDeletes int
		wantEntry   placement.BackoffEntry
		wantRequeue time.Duration
	}
	steps := []step{
		{name: "first sync deletes", at: 0, wantDeletes: 1, wantEntry: placement.BackoffEntry{Delay: time.Second, LastUpdate: t0}},
		{name: "immediate resync waits", at: 0, wantEntry: placement.BackoffEntry{Delay: time.Second, LastUpdate: t0}, wantRequeue: time.Second},
		{name: "just before the delay", at: 999 * time.Millisecond, wantEntry: placement.BackoffEntry{Delay: time.Second, LastUpdate: t0}, wantRequeue: time.Millisecond},
		{name: "exactly the delay", at: time.Second, wantDeletes: 1, wantEntry: placement.BackoffEntry{Delay: 2 * time.Second, LastUpdate: t0.Add(time.Second)}},
		{name: "doubled delay holds", at: 2 * time.Second, wantEntry: placement.BackoffEntry{Delay: 2 * time.Second, LastUpdate: t0.Add(time.Second)}, wantRequeue: time.Second},
		{name: "doubled delay over", at: 3 * time.Second, wantDeletes: 1, wantEntry: placement.BackoffEntry{Delay: 4 * time.Second, LastUpdate: t0.Add(3 * time.Second)}},
		{name: "expired window starts over", at: 3*time.Second + 31*time.Minute, wantDeletes: 1, wantEntry: placement.BackoffEntry{Delay: time.Second, LastUpdate: t0.Add(3*time.Second + 31*time.Minute)}},
	}
	var backoff placement.Backoff
	for _, s := range steps {
		p, _ := planAt(t, f.ds, f.nodes, f.pods, t0.Add(s.at), testHash, backoff)
		if diff := cmp.Diff(s.wantDeletes, len(p.Delete)); diff != "" {
			t.Errorf("%s: Manage() deletes mismatch (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(placement.Backoff{key: s.wantEntry}, p.Backoff); diff != "" {
			t.Errorf("%s: Manage() backoff mismatch (-want +got):\n%s", s.name, diff)
		}
		if diff := cmp.Diff(s.wantRequeue, p.RequeueAfter); diff != "" {
			t.Errorf("%s: Manage() requeue mismatch (-want +got):\n%s", s.name, diff)
		}
		backoff = p.Backoff
	}

	// A new observed generation is a new key: deleted at once.
	ds2 := newDS(func(ds *api.DaemonSet) { ds.Status.ObservedGeneration = 2 })
	p, _ := planAt(t, ds2, f.nodes, f.pods, t0.Add(3*time.Second+31*time.Minute), testHash, backoff)
	if diff := cmp.Diff(1, len(p.Delete)); diff != "" {
		t.Errorf("new generation: Manage() deletes mismatch (-want +got):\n%s", diff)
	}

	// The delay doubles up to 15 minutes and no further.
	e := placement.BackoffEntry{Delay: 10 * time.Minute, LastUpdate: t0}
	p, _ = planAt(t, f.ds, f.nodes, f.pods, t0.Add(10*time.Minute), testHash, placement.Backoff{key: e})
	want := placement.BackoffEntry{Delay: placement.BackoffMax, LastUpdate: t0.Add(10 * time.Minute)}
	if diff := cmp.Diff(placement.Backoff{key: want}, p.Backoff); diff != "" {
		t.Errorf("cap: Manage() backoff mismatch (-want +got):\n%s", diff)
	}
	// The input backoff is not changed.
	if diff := cmp.Diff(placement.BackoffEntry{Delay: 10 * time.Minute, LastUpdate: t0}, e); diff != "" {
		t.Errorf("input backoff changed (-want +got):\n%s", diff)
	}
}

func TestSurgeScenarios(t *testing.T) {
	newPod := hashLabel(testHash)
	oldPod := hashLabel("")
	cases := []manageCase{
		{
			name:   "TestSurgeDealsWithExistingPods",
			reason: "as without surge: node-0 and node-4 get pods, 5 excess pods go",
			build: func(f *fixture) {
				f.addNodes(0, 5, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1)
				f.addPods("node-2", simpleDaemonSetLabel, 2)
				f.addPods("node-3", simpleDaemonSetLabel, 5)
				f.addPods("node-4", simpleDaemonSetLabel2, 2)
			},
			want: counts{Creates: 2, Deletes: 5},
		},
		{
			name:   "TestSurgePreservesReadyOldPods",
			reason: "node-1 keeps its new pod and its oldest ready old pod; the younger ready old pod goes; 3 empty nodes get pods",
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1, newPod, createdAgo(0))
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Hour), ready)
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Minute), ready)
			},
			want:        counts{Creates: 3, Deletes: 1},
			wantDeletes: []string{"node-1-pod-02"},
		},
		{
			name:   "TestSurgeCreatesNewPodWhenAtMaxSurgeAndOldPodDeleted",
			reason: "node-1's only pod is terminating: with surge it gets a new pod at once",
			build: func(f *fixture) {
				f.addNodes(0, 2, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, newPod, ready)
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, ready, deleting)
			},
			want:        counts{Creates: 1},
			wantCreates: []string{"node-1"},
		},
		{
			name:   "TestSurgeDeletesUnreadyOldPods",
			reason: "the oldest old pod is not ready, so it goes with the excess old pod",
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1, newPod, createdAgo(0))
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Hour))
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Minute), ready)
			},
			want:        counts{Creates: 3, Deletes: 2},
			wantDeletes: []string{"node-1-pod-01", "node-1-pod-02"},
		},
		{
			name:   "TestSurgePreservesOldReadyWithUnsatisfiedMinReady",
			reason: "the new pod is ready 10s of minReadySeconds 15: not available, the ready old pod stays",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.MinReadySeconds = 15 }},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1, newPod, createdAgo(0), readySince(10*time.Second))
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Hour), ready)
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Minute), ready)
			},
			want:        counts{Creates: 3, Deletes: 1},
			wantDeletes: []string{"node-1-pod-02"},
		},
		{
			name:   "TestSurgeDeletesOldReadyWithUnsatisfiedMinReady",
			reason: "the new pod is ready 20s ≥ minReadySeconds 15: available, the old pods go",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.MinReadySeconds = 15 }},
			build: func(f *fixture) {
				f.addNodes(0, 4, nil)
				f.addPods("node-1", simpleDaemonSetLabel, 1, newPod, createdAgo(0), readySince(20*time.Second))
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Hour), ready)
				f.addPods("node-1", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Minute), ready)
			},
			want:        counts{Creates: 3, Deletes: 2},
			wantDeletes: []string{"node-1-pod-01", "node-1-pod-02"},
		},
		{
			name:   "SurgeMinReadyBoundaryInclusive",
			reason: "ready exactly minReadySeconds counts as available since v1.34",
			ds:     []func(*api.DaemonSet){func(ds *api.DaemonSet) { ds.MinReadySeconds = 15 }},
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, newPod, createdAgo(0), readySince(15*time.Second))
				f.addPods("node-0", simpleDaemonSetLabel, 1, oldPod, createdAgo(time.Hour), ready)
			},
			want:        counts{Deletes: 1},
			wantDeletes: []string{"node-0-pod-01"},
		},
		{
			name:   "SurgeFailedPodReplacedAtOnce",
			reason: "with surge a node whose only pod failed gets a new pod in the same sync (podsShouldBeOnNode, surge branch)",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed)
			},
			want: counts{Creates: 1, Deletes: 1, Events: 1},
		},
	}
	runManageCases(t, cases,
		[]func(*api.DaemonSet){withSurge(api.Int(1)), withSurge(api.Percent("100%"))},
		[]string{"maxSurge=1", "maxSurge=100%"})
}

// TestManageTemplateWithoutLabels: upstream creates a pod from the template
// with the controller-revision-hash and pod-template-generation labels
// added (CreatePodTemplate), and refuses to create it only when it ends
// with no label at all. A template without labels, which a selector of
// DoesNotExist or NotIn requirements validly selects, still gets pods.
func TestManageTemplateWithoutLabels(t *testing.T) {
	unlabelled := func(gen bool) func(*api.DaemonSet) {
		return func(ds *api.DaemonSet) {
			ds.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.SelectorOpDoesNotExist}}}
			ds.Template.Labels = nil
			if gen {
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "3"}
			}
		}
	}
	tests := []struct {
		name, reason string
		gen          bool
		hash         string
		wantLabels   map[string]string
		wantErr      bool
	}{
		{"hash", "the revision hash labels the pod", false, "h1", map[string]string{api.LabelRevisionHash: "h1"}, false},
		{"generation", "the template generation labels the pod", true, "", map[string]string{api.LabelTemplateGeneration: "3"}, false},
		{"nothing", "no label at all: upstream's createPods fails every create", false, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{ds: newDS(unlabelled(tt.gen))}
			f.addNodes(0, 2, nil)
			c, err := placement.Compile(f.ds, placement.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ix, err := c.Index(f.nodes, f.pods)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ix.Manage(t0, tt.hash, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Manage error %v, want error %v (%s)", err, tt.wantErr, tt.reason)
			}
			if tt.wantErr {
				if len(p.Create) != 0 || p.SkippedCreates != 2 {
					t.Errorf("creates %v, skipped %d; want none issued, 2 skipped (%s)", p.Create, p.SkippedCreates, tt.reason)
				}
				return
			}
			if len(p.Create) != 2 {
				t.Fatalf("creates %v, want one per node (%s)", p.Create, tt.reason)
			}
			if diff := cmp.Diff(tt.wantLabels, p.Create[0].Labels); diff != "" {
				t.Errorf("labels (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}
