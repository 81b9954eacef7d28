package overhead

import (
	"cmp"
	"slices"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/selector"
)

// DisruptionBudget is a PodDisruptionBudget as the scheduler's preemption
// reads it.
type DisruptionBudget struct {
	Namespace, Name string
	// Selector is spec.selector; nil, empty or invalid matches nothing.
	Selector *api.LabelSelector
	// DisruptionsAllowed is status.disruptionsAllowed.
	DisruptionsAllowed int32
	// DisruptedPods are the names in status.disruptedPods: evictions the
	// API server has already counted.
	DisruptedPods []string
}

// ScheduleOutcome is what the scheduler does with a daemon pod on its node.
type ScheduleOutcome int

// The outcomes. The zero value is no outcome.
const (
	// Fits: the pod is bound beside the pods already there.
	Fits ScheduleOutcome = iota + 1
	// Pending: the pod stays Pending; Scheduling.Reason says why.
	Pending
	// Preempts: the scheduler preempts Scheduling.Victims, and the pod is
	// bound once they are gone.
	Preempts
	// NotCreated: admission refuses the pod ([Daemon.Refused]); there is
	// nothing to schedule.
	NotCreated
)

func (o ScheduleOutcome) String() string {
	switch o {
	case Fits:
		return "Fits"
	case Pending:
		return "Pending"
	case Preempts:
		return "Preempts"
	case NotCreated:
		return "NotCreated"
	}
	return "ScheduleOutcome(0)"
}

// PendingReason says why a pod that does not fit stays Pending instead of
// preempting.
type PendingReason string

// The reasons, with the rule of docs/overhead.md each follows.
const (
	// PreemptionNever: the pod's preemption policy is Never (SC2).
	PreemptionNever PendingReason = "PreemptionNever"
	// LargerThanNode: the pod requests more of a resource than the node
	// has allocatable at all, and binds no host port taken there; no
	// preemption can help (SC3).
	LargerThanNode PendingReason = "LargerThanNode"
	// NoLowerPriority: no pod on the node has a lower priority (SC4).
	NoLowerPriority PendingReason = "NoLowerPriority"
	// PreemptionDoesNotHelp: even with every lower-priority pod gone the
	// pod does not fit (SC5).
	PreemptionDoesNotHelp PendingReason = "PreemptionDoesNotHelp"
)

// Scheduling is the scheduler's answer for a daemon pod on its node.
type Scheduling struct {
	Outcome ScheduleOutcome
	// Fit is the pod's fit beside every pod there (F1–F6): why it does not
	// fit when Outcome is Pending or Preempts.
	Fit Fit
	// Reason says why a Pending pod does not preempt.
	Reason PendingReason
	// Victims are the indices in NodeState.Pods of the pods preempted,
	// from the most important to the least (SC6).
	Victims []int
	// PDBViolations counts the victims whose eviction a
	// PodDisruptionBudget does not allow (SC7).
	PDBViolations int
}

// Schedule says what kube-scheduler does with DaemonSet i's pod on the node
// described by st (docs/overhead.md, SC1–SC8): it fits (F1–F6), or it stays
// Pending with a reason, or it preempts pods of lower priority there, chosen
// as the default preemption plugin chooses them on that one node. A pod
// refused by admission is NotCreated. st is read, never changed.
func (s *Catalog) Schedule(i int, st *NodeState) Scheduling {
	return s.schedule(&s.daemons[i], st)
}

// ScheduleBeside is Schedule for a pod created while the DaemonSet's own
// pods are still bound to the node (docs/overhead.md, SC9): during a
// rolling update with maxSurge the old pod runs until the new one is
// available, and a pod being deleted holds its room until it is gone.
// Those pods then count like any other (F6 does not apply): their requests,
// ports and pod count, and, of lower priority, they may be preempted.
func (s *Catalog) ScheduleBeside(i int, st *NodeState) Scheduling {
	d := s.daemons[i]
	// Without a UID no pod is the DaemonSet's own (own).
	d.UID = ""
	return s.schedule(&d, st)
}

func (s *Catalog) schedule(d *daemon, st *NodeState) Scheduling {
	if len(d.Refused) > 0 {
		return Scheduling{Outcome: NotCreated}
	}
	gone := make([]bool, len(st.Pods))
	out := Scheduling{Fit: s.fit(d, st, gone)}
	if out.Fit.Fits {
		out.Outcome = Fits
		return out
	}
	out.Outcome = Pending
	switch {
	case d.PreemptionPolicy == api.PreemptNever:
		out.Reason = PreemptionNever
		return out
	case len(out.Fit.PortConflicts) == 0 && largerThanNode(d, st):
		// The scheduler's NodePorts filter runs before NodeResourcesFit
		// and stops the node's filtering: a taken port is resolvable, so
		// the shortfall is found only with the candidates gone (SC5).
		out.Reason = LargerThanNode
		return out
	}
	var cands []int
	for k := range st.Pods {
		if own(d, &st.Pods[k]) {
			continue
		}
		if st.Pods[k].Priority < d.Priority {
			cands = append(cands, k)
			gone[k] = true
		}
	}
	if len(cands) == 0 {
		out.Reason = NoLowerPriority
		return out
	}
	if !s.fit(d, st, gone).Fits {
		out.Reason = PreemptionDoesNotHelp
		return out
	}
	slices.SortStableFunc(cands, func(a, b int) int { return moreImportant(&st.Pods[a], &st.Pods[b]) })
	violating, other := splitByBudgets(cands, st)
	var victims []int
	reprieve := func(k int) bool {
		gone[k] = false
		if s.fit(d, st, gone).Fits {
			return true
		}
		gone[k] = true
		victims = append(victims, k)
		return false
	}
	for _, k := range violating {
		if !reprieve(k) {
			out.PDBViolations++
		}
	}
	for _, k := range other {
		reprieve(k)
	}
	slices.SortStableFunc(victims, func(a, b int) int { return moreImportant(&st.Pods[a], &st.Pods[b]) })
	out.Outcome, out.Victims = Preempts, victims
	return out
}

// own reports whether p is d's own pod, left out of every judgement (F6).
func own(d *daemon, p *PodUsage) bool { return d.UID != "" && p.OwnerUID == d.UID }

// largerThanNode reports whether d requests more of a checked resource
// than the node has allocatable at all (SC3; upstream noderesources
// fitsRequest, the Unresolvable mark of each insufficient resource).
func largerThanNode(d *daemon, st *NodeState) bool {
	var want, alloc usage
	want.add(d.Requests)
	alloc.add(st.Allocatable)
	if !want.any() {
		return false
	}
	for _, name := range []string{"cpu", "memory", "ephemeral-storage"} {
		if w := want.fixed[name]; w > 0 && w > alloc.fixed[name] {
			return true
		}
	}
	for name, w := range want.scalar {
		if w > 0 && w > alloc.scalar[name] {
			return true
		}
	}
	return false
}

// moreImportant orders pods from the most important (SC6; upstream
// pkg/scheduler/framework/preemption/util.go, MoreImportantVictim for
// single pods): higher priority first, then the one started earlier; a
// pod without a start time counts as started now, after every pod that
// has one. daemonplan breaks the remaining ties by namespace and name.
func moreImportant(a, b *PodUsage) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	switch {
	case a.StartTime.IsZero() && !b.StartTime.IsZero():
		return 1
	case !a.StartTime.IsZero() && b.StartTime.IsZero():
		return -1
	}
	if c := a.StartTime.Compare(b.StartTime); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// splitByBudgets splits the candidates, in their order, into those whose
// eviction some budget does not allow and the others (SC7; upstream
// preemption/util.go, FilterVictimsWithPDBViolation): each budget's
// allowance is spent by the matching candidates in order, and a candidate
// that finds a matching budget spent is violating. A pod without labels
// matches no budget, nor does a budget of another namespace, one whose
// selector is nil, empty or invalid, or one that lists the pod among its
// disrupted pods.
func splitByBudgets(cands []int, st *NodeState) (violating, other []int) {
	sels := make([]selector.Selector, len(st.Budgets))
	allowed := make([]int32, len(st.Budgets))
	for j := range st.Budgets {
		b := &st.Budgets[j]
		allowed[j] = b.DisruptionsAllowed
		if sel, err := selector.Compile(b.Selector); err == nil && !sel.Empty() {
			sels[j] = sel
		} else {
			sels[j] = selector.Nothing()
		}
	}
	for _, k := range cands {
		p := &st.Pods[k]
		if violates(p, st.Budgets, sels, allowed) {
			violating = append(violating, k)
		} else {
			other = append(other, k)
		}
	}
	return violating, other
}

func violates(p *PodUsage, budgets []DisruptionBudget, sels []selector.Selector, allowed []int32) bool {
	if len(p.Labels) == 0 {
		return false
	}
	for j := range budgets {
		b := &budgets[j]
		if b.Namespace != p.Namespace || !sels[j].Matches(p.Labels) || slices.Contains(b.DisruptedPods, p.Name) {
			continue
		}
		allowed[j]--
		if allowed[j] < 0 {
			return true
		}
	}
	return false
}
