package overhead_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/overhead"
	"github.com/daemonplan/daemonplan/resource"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func cpuMem(cpu, mem string) resource.List {
	l := resource.List{}
	if cpu != "" {
		l["cpu"] = resource.MustParse(cpu)
	}
	if mem != "" {
		l["memory"] = resource.MustParse(mem)
	}
	return l
}

func agent(priority int32, policy string, requests resource.List, ports ...int32) *api.DaemonSet {
	c := api.Container{Name: "agent", Resources: api.Resources{Requests: requests}}
	for _, p := range ports {
		c.Ports = append(c.Ports, api.ContainerPort{ContainerPort: p, HostPort: p})
	}
	return &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "agent-uid", Template: api.PodTemplate{
		Priority: &priority, PreemptionPolicy: policy, Containers: []api.Container{c},
	}}
}

func pod(name string, priority int32, started int, requests resource.List, labels map[string]string) overhead.PodUsage {
	p := overhead.PodUsage{Namespace: "apps", Name: name, Priority: priority, Requests: requests, Labels: labels}
	if started > 0 {
		p.StartTime = t0.Add(time.Duration(started) * time.Minute)
	}
	return p
}

// schedulingSummary is a Scheduling with victims by name.
type schedulingSummary struct {
	Outcome       string
	Reason        overhead.PendingReason
	Insufficient  []string
	Victims       []string
	PDBViolations int
}

func summarizeScheduling(sch overhead.Scheduling, st *overhead.NodeState) schedulingSummary {
	out := schedulingSummary{Outcome: sch.Outcome.String(), Reason: sch.Reason, Insufficient: sch.Fit.Insufficient, PDBViolations: sch.PDBViolations}
	for _, k := range sch.Victims {
		out.Victims = append(out.Victims, st.Pods[k].Name)
	}
	return out
}

func TestSchedule(t *testing.T) {
	alloc := resource.List{"cpu": resource.MustParse("2"), "memory": resource.MustParse("4Gi"), "pods": resource.MustParse("10")}
	app := map[string]string{"app": "web"}
	tests := []struct {
		name, reason string
		ds           *api.DaemonSet
		st           overhead.NodeState
		want         schedulingSummary
	}{{
		name:   "fits",
		reason: "room left beside the pods there",
		ds:     agent(0, "", cpuMem("500m", "")),
		st:     overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{pod("a", 0, 1, cpuMem("1", ""), nil)}},
		want:   schedulingSummary{Outcome: "Fits"},
	}, {
		name:   "equal priority stays pending",
		reason: "only strictly lower priorities are preempted (kubernetes#140984)",
		ds:     agent(0, "", cpuMem("500m", "")),
		st:     overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{pod("a", 0, 1, cpuMem("1800m", ""), nil)}},
		want:   schedulingSummary{Outcome: "Pending", Reason: overhead.NoLowerPriority, Insufficient: []string{"cpu"}},
	}, {
		name:   "policy Never",
		reason: "a non-preempting pod waits",
		ds:     agent(1000, api.PreemptNever, cpuMem("500m", "")),
		st:     overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{pod("a", 0, 1, cpuMem("1800m", ""), nil)}},
		want:   schedulingSummary{Outcome: "Pending", Reason: overhead.PreemptionNever, Insufficient: []string{"cpu"}},
	}, {
		name:   "larger than the node",
		reason: "a request above allocatable is unresolvable: no preemption",
		ds:     agent(1000, "", cpuMem("3", "")),
		st:     overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{pod("a", 0, 1, cpuMem("100m", ""), nil)}},
		want:   schedulingSummary{Outcome: "Pending", Reason: overhead.LargerThanNode, Insufficient: []string{"cpu"}},
	}, {
		name:   "higher-priority pods hold the room",
		reason: "with every lower-priority pod gone it still does not fit",
		ds:     agent(1000, "", cpuMem("1", "")),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			pod("low", 0, 1, cpuMem("200m", ""), nil), pod("high", 2000, 1, cpuMem("1700m", ""), nil),
		}},
		want: schedulingSummary{Outcome: "Pending", Reason: overhead.PreemptionDoesNotHelp, Insufficient: []string{"cpu"}},
	}, {
		name:   "least important preempted, most important reprieved",
		reason: "victims are reprieved from the highest priority down; the oldest of equal priority is kept",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			pod("young", 10, 9, cpuMem("600m", ""), nil), pod("old", 10, 1, cpuMem("600m", ""), nil),
			pod("mid", 20, 5, cpuMem("600m", ""), nil),
		}},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"young"}},
	}, {
		name:   "not started counts as youngest",
		reason: "a pod without a start time counts as started now",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			pod("new", 10, 0, cpuMem("600m", ""), nil), pod("old", 10, 1, cpuMem("600m", ""), nil),
			pod("older", 10, 0, cpuMem("600m", ""), nil),
		}},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"older"}},
	}, {
		name:   "PDB-protected pod reprieved first",
		reason: "violating victims are reprieved before the others, so an unprotected pod goes instead",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{
			Allocatable: alloc,
			Pods: []overhead.PodUsage{
				pod("web", 0, 9, cpuMem("600m", ""), app), pod("batch", 10, 1, cpuMem("600m", ""), nil),
				pod("other", 20, 1, cpuMem("600m", ""), nil),
			},
			Budgets: []overhead.DisruptionBudget{{Namespace: "apps", Name: "web", Selector: &api.LabelSelector{MatchLabels: app}}},
		},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"batch"}},
	}, {
		name:   "PDB violated when nothing else suffices",
		reason: "a protected pod is chosen when the others are not enough, and counted",
		ds:     agent(1000, "", cpuMem("1500m", "")),
		st: overhead.NodeState{
			Allocatable: alloc,
			Pods: []overhead.PodUsage{
				pod("web", 0, 9, cpuMem("900m", ""), app), pod("batch", 10, 1, cpuMem("900m", ""), nil),
			},
			Budgets: []overhead.DisruptionBudget{{Namespace: "apps", Name: "web", Selector: &api.LabelSelector{MatchLabels: app}}},
		},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"batch", "web"}, PDBViolations: 1},
	}, {
		name:   "budget with room is no violation",
		reason: "disruptionsAllowed 1 lets one matching pod go",
		ds:     agent(1000, "", cpuMem("1500m", "")),
		st: overhead.NodeState{
			Allocatable: alloc,
			Pods: []overhead.PodUsage{
				pod("web", 0, 9, cpuMem("900m", ""), app), pod("batch", 10, 1, cpuMem("900m", ""), nil),
			},
			Budgets: []overhead.DisruptionBudget{{Namespace: "apps", Name: "web", Selector: &api.LabelSelector{MatchLabels: app}, DisruptionsAllowed: 1}},
		},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"batch", "web"}},
	}, {
		name:   "host port held by a lower-priority pod",
		reason: "NodePorts is resolved by preemption",
		ds:     agent(1000, "", nil, 9100),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			{Namespace: "apps", Name: "exporter", HostPorts: []api.ContainerPort{{ContainerPort: 9100, HostPort: 9100}}},
			pod("other", 0, 1, cpuMem("100m", ""), nil),
		}},
		want: schedulingSummary{Outcome: "Preempts", Victims: []string{"exporter"}},
	}, {
		name:   "port conflict hides a request larger than the node, no lower priority",
		reason: "judge case gen-21 (seed 1): NodePorts fails before NodeResourcesFit runs, so the node is not unresolvable; with no lower-priority pod the scheduler finds no victims",
		ds:     agent(1000, "", cpuMem("", "8Gi"), 9100),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			{Namespace: "apps", Name: "exporter", Priority: 1000, HostPorts: []api.ContainerPort{{ContainerPort: 9100, HostPort: 9100}}},
		}},
		want: schedulingSummary{Outcome: "Pending", Reason: overhead.NoLowerPriority, Insufficient: []string{"memory"}},
	}, {
		name:   "port conflict hides a request larger than the node, lower priority there",
		reason: "preemption is tried (the port is resolvable) and, with every candidate gone, the request still does not fit",
		ds:     agent(1000, "", cpuMem("", "8Gi"), 9100),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			{Namespace: "apps", Name: "exporter", HostPorts: []api.ContainerPort{{ContainerPort: 9100, HostPort: 9100}}},
		}},
		want: schedulingSummary{Outcome: "Pending", Reason: overhead.PreemptionDoesNotHelp, Insufficient: []string{"memory"}},
	}, {
		name:   "pod count",
		reason: "a full node makes room by one pod, the least important",
		ds:     agent(1000, "", cpuMem("10m", "")),
		st: overhead.NodeState{Allocatable: resource.List{"cpu": resource.MustParse("2"), "pods": resource.MustParse("2")}, Pods: []overhead.PodUsage{
			pod("a", 5, 1, nil, nil), pod("b", 1, 1, nil, nil),
		}},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"pods"}, Victims: []string{"b"}},
	}, {
		name:   "own pod left out",
		reason: "the DaemonSet's own pod is neither counted nor a victim (F6)",
		ds:     agent(1000, "", cpuMem("1500m", "")),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			{OwnerUID: "agent-uid", Namespace: "kube-system", Name: "agent-old", Requests: cpuMem("1500m", "")},
		}},
		want: schedulingSummary{Outcome: "Fits"},
	}, {
		name:   "old pod given without its owner counts (surge)",
		reason: "a new pod created beside its DaemonSet's old one (maxSurge) is judged with it there (SC9); of equal priority it is no victim",
		ds:     agent(1000, "", cpuMem("1500m", "")),
		st: overhead.NodeState{Allocatable: alloc, Pods: []overhead.PodUsage{
			{Namespace: "kube-system", Name: "agent-old", Priority: 1000, Requests: cpuMem("1500m", "")},
		}},
		want: schedulingSummary{Outcome: "Pending", Reason: overhead.NoLowerPriority, Insufficient: []string{"cpu"}},
	}, {
		name:   "nominated pod of higher priority holds its room",
		reason: "the scheduler counts a pod nominated to the node with a priority at least the pod's (F8)",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{Allocatable: alloc,
			Pods:      []overhead.PodUsage{pod("low", 0, 1, cpuMem("1", ""), nil)},
			Nominated: []overhead.PodUsage{pod("waiting", 2000, 0, cpuMem("800m", ""), nil)},
		},
		want: schedulingSummary{Outcome: "Preempts", Insufficient: []string{"cpu"}, Victims: []string{"low"}},
	}, {
		name:   "nominated pod of equal priority counts",
		reason: "at least the pod's priority: equal counts too (F8), and a nominated pod is never a victim",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{Allocatable: alloc,
			Nominated: []overhead.PodUsage{pod("waiting", 1000, 0, cpuMem("1800m", ""), nil)},
		},
		want: schedulingSummary{Outcome: "Pending", Reason: overhead.NoLowerPriority, Insufficient: []string{"cpu"}},
	}, {
		name:   "nominated pod of lower priority ignored",
		reason: "a lower-priority nominated pod does not hold room against this pod (F8)",
		ds:     agent(1000, "", cpuMem("500m", "")),
		st: overhead.NodeState{Allocatable: alloc,
			Pods:      []overhead.PodUsage{pod("a", 0, 1, cpuMem("1", ""), nil)},
			Nominated: []overhead.PodUsage{pod("waiting", 10, 0, cpuMem("1800m", ""), nil)},
		},
		want: schedulingSummary{Outcome: "Fits"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := overhead.Compile([]*api.DaemonSet{tt.ds}, overhead.Options{})
			got := summarizeScheduling(s.Schedule(0, &tt.st), &tt.st)
			if d := gocmp.Diff(tt.want, got); d != "" {
				t.Errorf("Schedule() mismatch (-want +got), %s:\n%s", tt.reason, d)
			}
		})
	}
}

// genNode draws a node with pods of priorities around the daemon's,
// labels that two budgets select, start times and host ports.
func genNode(t *rapid.T) (*api.DaemonSet, overhead.NodeState) {
	milli := func(label string, max int) resource.Quantity {
		return resource.NewMilliQuantity(int64(rapid.IntRange(0, max).Draw(t, label))*100, resource.DecimalSI)
	}
	st := overhead.NodeState{Allocatable: resource.List{
		"cpu": milli("alloc.cpu", 40), "memory": milli("alloc.memory", 40),
		"pods": resource.NewQuantity(int64(rapid.IntRange(1, 8).Draw(t, "alloc.pods")), resource.DecimalSI),
	}}
	for k := range rapid.IntRange(0, 7).Draw(t, "pods") {
		p := overhead.PodUsage{
			Namespace: "apps", Name: fmt.Sprintf("p%d", k),
			Requests: resource.List{"cpu": milli("cpu", 15), "memory": milli("memory", 15)},
			Priority: int32(rapid.IntRange(0, 3).Draw(t, "priority")),
		}
		if s := rapid.IntRange(0, 4).Draw(t, "started"); s > 0 {
			p.StartTime = t0.Add(time.Duration(s) * time.Minute)
		}
		if rapid.Bool().Draw(t, "labeled") {
			p.Labels = map[string]string{"app": rapid.SampledFrom([]string{"a", "b"}).Draw(t, "app")}
		}
		if rapid.IntRange(0, 3).Draw(t, "port") == 0 {
			p.HostPorts = []api.ContainerPort{{ContainerPort: 80, HostPort: 80}}
		}
		st.Pods = append(st.Pods, p)
	}
	for _, app := range []string{"a", "b"} {
		if rapid.Bool().Draw(t, "budget."+app) {
			st.Budgets = append(st.Budgets, overhead.DisruptionBudget{
				Namespace: "apps", Name: app, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}},
				DisruptionsAllowed: int32(rapid.IntRange(0, 1).Draw(t, "allowed."+app)),
			})
		}
	}
	var ports []int32
	if rapid.Bool().Draw(t, "agent.port") {
		ports = append(ports, 80)
	}
	ds := agent(int32(rapid.IntRange(0, 4).Draw(t, "agent.priority")), "",
		resource.List{"cpu": milli("agent.cpu", 20), "memory": milli("agent.memory", 20)}, ports...)
	return ds, st
}

// without returns st with the pods marked in gone left out.
func without(st overhead.NodeState, gone map[int]bool) overhead.NodeState {
	out := st
	out.Pods = nil
	for k, p := range st.Pods {
		if !gone[k] {
			out.Pods = append(out.Pods, p)
		}
	}
	return out
}

// TestSchedulePreemption checks Schedule's victims: of lower priority
// only; with them gone the pod fits; each one alone given back, it does
// not (the reprieve kept every pod it could); a PDB-protected victim is
// chosen only when, with every unprotected candidate and every other
// victim gone, the pod still does not fit with it back; and st is never
// changed.
func TestSchedulePreemption(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds, st := genNode(t)
		before := gocmp.Diff(nil, st)
		s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
		sch := s.Schedule(0, &st)
		if after := gocmp.Diff(nil, st); after != before {
			t.Fatalf("Schedule changed its NodeState")
		}
		if (sch.Outcome == overhead.Fits) != s.Fit(0, &st).Fits {
			t.Fatalf("outcome %s, Fit %v", sch.Outcome, s.Fit(0, &st).Fits)
		}
		if sch.Outcome != overhead.Preempts {
			if len(sch.Victims) > 0 {
				t.Fatalf("%s with victims", sch.Outcome)
			}
			// A pod left Pending would not fit even with every
			// lower-priority pod gone, or has none to preempt.
			lower := map[int]bool{}
			for k, p := range st.Pods {
				if p.Priority < *ds.Template.Priority {
					lower[k] = true
				}
			}
			rest := without(st, lower)
			switch sch.Reason {
			case overhead.LargerThanNode, overhead.PreemptionDoesNotHelp:
				if s.Fit(0, &rest).Fits {
					t.Fatalf("Pending (%s), but the pod fits once every lower-priority pod is gone", sch.Reason)
				}
			case overhead.NoLowerPriority:
				if len(lower) > 0 {
					t.Fatalf("NoLowerPriority with %d pods of lower priority", len(lower))
				}
			}
			return
		}
		gone := map[int]bool{}
		for _, k := range sch.Victims {
			if st.Pods[k].Priority >= *ds.Template.Priority {
				t.Fatalf("victim %s has priority %d, the pod %d", st.Pods[k].Name, st.Pods[k].Priority, *ds.Template.Priority)
			}
			gone[k] = true
		}
		after := without(st, gone)
		if f := s.Fit(0, &after); !f.Fits {
			t.Fatalf("the victims gone, the pod still does not fit: %+v", f)
		}
		for _, k := range sch.Victims {
			delete(gone, k)
			back := without(st, gone)
			if s.Fit(0, &back).Fits {
				t.Fatalf("victim %s need not go: the pod fits with it", st.Pods[k].Name)
			}
			gone[k] = true
		}
		// Protected victims: chosen only when the unprotected are not enough.
		var protected []int
		for _, k := range sch.Victims {
			if candidatesByBudget(st, *ds.Template.Priority)[k] {
				protected = append(protected, k)
			}
		}
		if len(protected) != sch.PDBViolations {
			t.Fatalf("%d protected victims, PDBViolations %d", len(protected), sch.PDBViolations)
		}
		for _, v := range protected {
			all := map[int]bool{}
			violating := candidatesByBudget(st, *ds.Template.Priority)
			for k, p := range st.Pods {
				if p.Priority < *ds.Template.Priority && !violating[k] {
					all[k] = true
				}
			}
			for _, k := range sch.Victims {
				if k != v {
					all[k] = true
				}
			}
			rest := without(st, all)
			if s.Fit(0, &rest).Fits {
				t.Fatalf("protected victim %s chosen though the pod fits with it and without every unprotected candidate", st.Pods[v].Name)
			}
		}
	})
}

// candidatesByBudget marks the candidates (priority below prio) whose
// eviction a budget does not allow, spending each budget's allowance from
// the most important candidate down: higher priority, then started
// earlier (not started last), then name.
func candidatesByBudget(st overhead.NodeState, prio int32) map[int]bool {
	var cands []int
	for k, p := range st.Pods {
		if p.Priority < prio {
			cands = append(cands, k)
		}
	}
	key := func(k int) (int32, bool, time.Time, string) {
		p := st.Pods[k]
		return -p.Priority, p.StartTime.IsZero(), p.StartTime, p.Name
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a1, a2, a3, a4 := key(cands[i])
		b1, b2, b3, b4 := key(cands[j])
		switch {
		case a1 != b1:
			return a1 < b1
		case a2 != b2:
			return !a2
		case !a3.Equal(b3):
			return a3.Before(b3)
		}
		return a4 < b4
	})
	return markViolating(st, cands)
}

func markViolating(st overhead.NodeState, order []int) map[int]bool {
	allowed := map[string]int32{}
	for _, b := range st.Budgets {
		allowed[b.Name] = b.DisruptionsAllowed
	}
	out := map[int]bool{}
	for _, k := range order {
		app, ok := st.Pods[k].Labels["app"]
		if _, budget := allowed[app]; !ok || !budget {
			continue
		}
		allowed[app]--
		if allowed[app] < 0 {
			out[k] = true
		}
	}
	return out
}

// TestScheduleOrderFree: the order of the node's pods and budgets never
// changes the answer: the same victims, by name, in the same order.
func TestScheduleOrderFree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds, st := genNode(t)
		s := overhead.Compile([]*api.DaemonSet{ds}, overhead.Options{})
		want := summarizeScheduling(s.Schedule(0, &st), &st)
		shuffled := st
		shuffled.Pods = rapid.Permutation(st.Pods).Draw(t, "pods")
		shuffled.Budgets = rapid.Permutation(st.Budgets).Draw(t, "budgets")
		got := summarizeScheduling(s.Schedule(0, &shuffled), &shuffled)
		if d := gocmp.Diff(want, got); d != "" {
			t.Fatalf("Schedule() depends on input order (-first +shuffled):\n%s", d)
		}
	})
}
