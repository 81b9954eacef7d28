package progressive

import (
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/timeline"
)

// ETA is how long a rollout has left, for `rollout status`.
type ETA struct {
	// Remaining is the time until every node runs an available pod of
	// the revision, if the replacements go on at PerNode each, Budget at
	// a time, zone after zone, and the operator answers at once: it
	// does not count Waits.
	Remaining time.Duration
	// Nodes are the nodes left: outdated, or being replaced.
	Nodes int
	// Budget is how many nodes are replaced at a time.
	Budget int
	// PerNode is one node's replacement time: from the decision to
	// delete its old pod to a step seeing its new pod available.
	PerNode time.Duration
	// Source says where PerNode comes from: ETAMeasured (the mean of
	// Measured replacements of this rollout) or ETAModel (the timeline
	// model: nothing measured yet).
	Source   ETASource
	Measured int
	// Model is the timeline model's terms, with Source ETAModel.
	Model string
	// Waits are the operator's answers on the way that Remaining does
	// not count: "'rollout promote' after the canary", "'rollout resume'
	// (paused now)", "'rollout resume' at 2 pause points ahead".
	Waits []string
}

// ETASource says where an ETA's time per node comes from.
type ETASource string

// The sources of an ETA's time per node.
const (
	// ETAMeasured: the mean replacement time of the nodes this rollout
	// replaced so far (RolloutState.Replaced and ReplaceTime).
	ETAMeasured ETASource = "Measured"
	// ETAModel: the timeline model's (docs/timeline.md, T1): the pod's
	// grace period (the template's terminationGracePeriodSeconds, else
	// timeline.DefaultGracePeriod), then timeline.DefaultReadyAfter to
	// Ready, then minReadySeconds.
	ETAModel ETASource = "Model"
)

// String renders e for `rollout status`.
func (e *ETA) String() string {
	s := fmt.Sprintf("%s for %d nodes, %d at a time, %s per node", e.Remaining.Round(time.Second), e.Nodes, e.Budget, e.PerNode.Round(100*time.Millisecond))
	if e.Source == ETAMeasured {
		s += fmt.Sprintf(" (the mean of %d replacements measured)", e.Measured)
	} else {
		s += fmt.Sprintf(" (nothing measured yet: the timeline model, %s)", e.Model)
	}
	if len(e.Waits) > 0 {
		s += "; not counting the waits for " + strings.Join(e.Waits, " and ")
	}
	return s
}

// measure ends the measures of the nodes whose new pod is available,
// drops those of nodes whose old pod was not deleted after all (a pause
// or an abort dropped its delete) or that left, and starts one for each
// delete decided now.
func measure(st *RolloutState, nodes []NodeProgress, now time.Time) {
	byName := map[string]NodeProgress{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	inFlight := map[string]bool{}
	for _, f := range st.InFlight {
		inFlight[f.Node] = true
	}
	st.Replacing = slices.DeleteFunc(st.Replacing, func(r Replacing) bool {
		n, ok := byName[r.Node]
		switch {
		case !ok || !n.Desired:
			return true
		case n.State == Updated:
			if took := now.Sub(r.Since.Time); took > 0 {
				st.Replaced++
				st.ReplaceTime.Duration += took
			}
			return true
		case n.State == Outdated && !inFlight[r.Node]:
			return true
		}
		return false
	})
	for _, f := range st.InFlight {
		if f.Node != "" && !slices.ContainsFunc(st.Replacing, func(r Replacing) bool { return r.Node == f.Node }) {
			st.Replacing = append(st.Replacing, Replacing{Node: f.Node, Since: metav1.NewMicroTime(now)})
		}
	}
	slices.SortFunc(st.Replacing, func(a, b Replacing) int {
		if a.Node < b.Node {
			return -1
		}
		if a.Node > b.Node {
			return 1
		}
		return 0
	})
}

// estimate is the ETA of st (nil when it is done or aborted): a list
// schedule of the nodes left on budget slots, phase after phase (the
// nodes being replaced first, then the zones in order, then the rest),
// each node taking the per-node time, less what it has already run.
func estimate(st *RolloutState, pol Policy, nodes []NodeProgress, budget int, ds *appsv1.DaemonSet, now time.Time) *ETA {
	if st.Phase == PhaseDone || st.Phase == PhaseAborted {
		return nil
	}
	e := &ETA{Budget: max(budget, 1)}
	if st.Replaced > 0 {
		e.Source, e.Measured, e.PerNode = ETAMeasured, st.Replaced, st.ReplaceTime.Duration/time.Duration(st.Replaced)
	} else {
		grace := timeline.DefaultGracePeriod
		if g := ds.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
			grace = time.Duration(*g) * time.Second
		}
		minReady := ds.Spec.MinReadySeconds
		if pol.MinReadySeconds > 0 {
			minReady = pol.MinReadySeconds
		}
		mr := time.Duration(minReady) * time.Second
		e.Source, e.PerNode = ETAModel, grace+timeline.DefaultReadyAfter+mr
		e.Model = fmt.Sprintf("grace period %s + ready after %s + minReadySeconds %s", grace, timeline.DefaultReadyAfter, mr)
	}
	// The groups, in the order the phases take them.
	var order []string
	if z := pol.Zones; z != nil {
		order = st.Zones
		if order == nil {
			order = z.Order
		}
		if len(order) == 0 {
			for _, n := range nodes {
				if n.Zone != "" {
					order = append(order, n.Zone)
				}
			}
			slices.Sort(order)
			order = slices.Compact(order)
		}
	}
	group := func(n NodeProgress) int {
		if n.State.unavailable() {
			return 0
		}
		if i := slices.Index(order, n.Zone); i >= 0 && (st.Phase != PhaseZone || i >= slices.Index(order, st.Zone)) {
			return 1 + i
		}
		return 1 + len(order)
	}
	since := map[string]time.Time{}
	for _, r := range st.Replacing {
		since[r.Node] = r.Since.Time
	}
	groups := make([][]time.Duration, 2+len(order))
	for _, n := range nodes {
		if !n.State.pending() {
			continue
		}
		e.Nodes++
		left := e.PerNode
		if t, ok := since[n.Name]; ok && n.State.unavailable() {
			left = max(0, e.PerNode-now.Sub(t))
		}
		g := group(n)
		groups[g] = append(groups[g], left)
	}
	var t time.Duration
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		slots := make([]time.Duration, e.Budget)
		for i := range slots {
			slots[i] = t
		}
		for _, d := range g {
			i := slices.Index(slots, slices.Min(slots))
			slots[i] += d
		}
		t = slices.Max(slots)
	}
	e.Remaining = t
	switch {
	case st.Paused != nil:
		e.Waits = append(e.Waits, "'rollout resume' (paused now)")
	case st.Phase == PhaseCanary && pol.Canary != nil && !st.Promoted && !st.SkipCanary:
		e.Waits = append(e.Waits, "'rollout promote' after the canary")
	}
	// The pause points ahead.
	at := -1 // the canary
	switch st.Phase {
	case PhaseZone:
		at = slices.Index(order, st.Zone)
	case PhaseRemaining:
		at = len(order)
	}
	points := 0
	for i, z := range order {
		if i > at && slices.Contains(pol.PauseBefore, ZonePhase(z)) || i > at && i > 0 && pol.Zones.PauseBetween {
			points++
		}
	}
	if at < len(order) && slices.Contains(pol.PauseBefore, PhaseRest) {
		points++
	}
	if points > 0 {
		e.Waits = append(e.Waits, fmt.Sprintf("'rollout resume' at %d pause points ahead", points))
	}
	return e
}
