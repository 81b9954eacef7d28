package sim_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/sim"
)

// The invariants of a rollout, checked after every sync. They recount
// everything from the snapshot the sync read, with internal/reference's
// naive eligibility, bucketing and availability, never with the planner's
// own helpers.

// snapshot is the cluster as one sync read it.
type snapshot struct {
	ds    api.DaemonSet
	nodes []api.Node
	pods  []api.Pod
	now   time.Time
}

// takeSnapshot copies what the next sync of c reads. Pods are copied by
// value: sim's Apply and Advance change c.Pods in place.
func takeSnapshot(c *sim.Cluster) snapshot {
	return snapshot{ds: c.DaemonSet, nodes: slices.Clone(c.Nodes), pods: slices.Clone(c.Pods), now: c.Now}
}

// budgets are the rolling update's limits recounted from the snapshot:
// desired nodes, scaled maxUnavailable and maxSurge (docs/rolling-update.md, R4).
type budgets struct{ desired, maxUnavailable, maxSurge int }

func (s snapshot) budgets() budgets {
	var b budgets
	for i := range s.nodes {
		if run, _ := reference.ShouldRun(&s.ds, &s.nodes[i]); run {
			b.desired++
		}
	}
	ru := s.ds.UpdateStrategy.RollingUpdate
	if s.ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil {
		return b
	}
	b.maxUnavailable = scale(ru.MaxUnavailable, b.desired)
	b.maxSurge = scale(ru.MaxSurge, b.desired)
	if b.desired > 0 && b.maxUnavailable == 0 && b.maxSurge == 0 {
		b.maxUnavailable = 1
	}
	return b
}

// scale resolves the budgets the generators draw: ints and "N%".
func scale(v *api.IntOrPercent, desired int) int {
	if v == nil {
		return 0
	}
	if !v.IsString {
		return int(v.IntVal)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil {
		panic("scale: generator drew " + v.StrVal)
	}
	return (n*desired + 99) / 100
}

// nodeState is one visited node's pods as the rolling update classifies
// them: pods being deleted ignored, split into new and old.
type nodeState struct {
	name      string
	desired   bool
	old, new_ []*api.Pod
}

// visited lists the nodes the rolling update visits: every node that
// should run the pod and every node holding pods of the DaemonSet.
func (s snapshot) visited(hash string) []nodeState {
	buckets := reference.Buckets(&s.ds, s.pods)
	gen := reference.Generation(&s.ds)
	var out []nodeState
	for i := range s.nodes {
		n := &s.nodes[i]
		run, _ := reference.ShouldRun(&s.ds, n)
		pods := buckets[n.Name]
		if !run && len(pods) == 0 {
			continue
		}
		st := nodeState{name: n.Name, desired: run}
		for _, p := range pods {
			switch {
			case p.Deleting:
			case reference.Updated(p, hash, gen):
				st.new_ = append(st.new_, p)
			default:
				st.old = append(st.old, p)
			}
		}
		out = append(out, st)
	}
	return out
}

func (s snapshot) available(p *api.Pod) bool {
	return reference.Available(p, s.ds.MinReadySeconds, s.now)
}

func (s snapshot) pod(name string) *api.Pod {
	for i := range s.pods {
		if s.pods[i].Name == name {
			return &s.pods[i]
		}
	}
	return nil
}

// checkUnavailableBudget: without surge, the available old pods a sync
// deletes as Outdated never exceed maxUnavailable minus the nodes already
// unavailable before it (docs/rolling-update.md, R7–R9). A visited node is
// unavailable unless it
// holds exactly one pod (not being deleted) and that pod is available.
func checkUnavailableBudget(s snapshot, p daemonplan.Plan) error {
	b := s.budgets()
	if b.maxSurge > 0 {
		return nil
	}
	unavailable := 0
	for _, st := range s.visited(p.Hash) {
		pods := append(slices.Clone(st.old), st.new_...)
		if len(pods) != 1 || !s.available(pods[0]) {
			unavailable++
		}
	}
	var deleted []string
	for _, d := range p.Delete {
		if pod := s.pod(d.Pod); d.Reason == placement.Outdated && pod != nil && s.available(pod) {
			deleted = append(deleted, d.Pod)
		}
	}
	if allowed := max(0, b.maxUnavailable-unavailable); len(deleted) > allowed {
		return fmt.Errorf("budget: %d available old pods deleted %v, maxUnavailable %d with %d nodes unavailable allows %d",
			len(deleted), deleted, b.maxUnavailable, unavailable, allowed)
	}
	return nil
}

// checkSurgeBudget: with surge, the new pods a sync creates next to an
// available old pod never exceed maxSurge minus the nodes already surging
// (holding duplicates, or an old pod and an unavailable new one)
// (docs/rolling-update.md, R11–R13). Creates next to an unavailable old pod,
// or on empty nodes, are
// outside the budget.
func checkSurgeBudget(s snapshot, p daemonplan.Plan) error {
	b := s.budgets()
	if b.maxSurge == 0 {
		return nil
	}
	surging := 0
	nodes := map[string]nodeState{}
	for _, st := range s.visited(p.Hash) {
		nodes[st.name] = st
		switch {
		case len(st.old) > 1 || len(st.new_) > 1:
			surging++
		case len(st.old) == 1 && len(st.new_) == 1 && !s.available(st.new_[0]):
			surging++
		}
	}
	var surged []string
	for _, cr := range p.Create {
		if st := nodes[cr.Node]; len(st.old) == 1 && len(st.new_) == 0 && s.available(st.old[0]) {
			surged = append(surged, cr.Node)
		}
	}
	if allowed := max(0, b.maxSurge-surging); len(surged) > allowed {
		return fmt.Errorf("surge budget: %d new pods next to available old ones on %v, maxSurge %d with %d nodes surging allows %d",
			len(surged), surged, b.maxSurge, surging, allowed)
	}
	return nil
}

// checkSurplus: with surge, old pods on nodes that should no longer run
// the pod (deleted as Unschedulable) go only while more pods are available
// than nodes desire them, so availability never drops below 100%
// (docs/rolling-update.md, R15). The tally counts, per visited node without
// duplicates, the old pod
// if it is available, else the new pod if it is.
func checkSurplus(s snapshot, p daemonplan.Plan) error {
	b := s.budgets()
	if b.maxSurge == 0 {
		return nil
	}
	tally := 0
	for _, st := range s.visited(p.Hash) {
		switch {
		case len(st.old) > 1 || len(st.new_) > 1:
		case len(st.old) == 1:
			if s.available(st.old[0]) {
				tally++
			}
		case len(st.new_) == 1:
			if s.available(st.new_[0]) {
				tally++
			}
		}
	}
	var deleted []string
	for _, d := range p.Delete {
		if d.Reason == placement.Unschedulable {
			deleted = append(deleted, d.Pod)
		}
	}
	if allowed := max(0, tally-b.desired); len(deleted) > allowed {
		return fmt.Errorf("surplus: %d pods on no-longer-eligible nodes deleted %v with %d available for %d desired",
			len(deleted), deleted, tally, b.desired)
	}
	return nil
}

// checkPodsPerNode: once the plan is applied, outside surge no node holds
// two running pods; with surge no node holds two new (or two old) ones.
func checkPodsPerNode(s snapshot, p daemonplan.Plan, after []api.Pod) error {
	return reference.CheckOnePodPerNode(&s.ds, s.nodes, after, p.Hash, reference.Surge(&s.ds))
}

// recountStatus counts the status (docs/status.md, S1–S6) from the
// snapshot: per node
// that should run the pod, its oldest pod decides ready, available and
// updated; nodes that should not run it but hold a pod are misscheduled.
func recountStatus(s snapshot, hash string) api.Status {
	gen := reference.Generation(&s.ds)
	var st api.Status
	for i := range s.nodes {
		n := &s.nodes[i]
		var pods []*api.Pod
		for j := range s.pods {
			if s.pods[j].NodeName == n.Name && s.pods[j].Controller != nil && s.pods[j].Controller.UID == s.ds.UID {
				pods = append(pods, &s.pods[j])
			}
		}
		run, _ := reference.ShouldRun(&s.ds, n)
		if !run {
			if len(pods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(pods) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		oldest := pods[0]
		for _, p := range pods[1:] {
			if p.Created.Before(oldest.Created) || p.Created.Equal(oldest.Created) && p.Name < oldest.Name {
				oldest = p
			}
		}
		if oldest.Ready {
			st.NumberReady++
			if s.available(oldest) {
				st.NumberAvailable++
			}
		}
		if reference.Updated(oldest, hash, gen) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	st.ObservedGeneration = s.ds.Generation
	return st
}

// checkStatus: the plan's status equals the recount (collision count
// aside), and its counters are consistent.
func checkStatus(s snapshot, p daemonplan.Plan) error {
	got := p.Status
	got.CollisionCount = nil
	if want := recountStatus(s, p.Hash); got != want {
		return fmt.Errorf("status %+v, recount %+v", got, want)
	}
	return reference.CheckStatus(p.Status)
}

// checkSync runs every per-sync invariant.
func checkSync(s snapshot, p daemonplan.Plan, after []api.Pod) error {
	var deletes []string
	for _, d := range p.Delete {
		deletes = append(deletes, d.Pod)
	}
	var errs []error
	if len(p.Errors) > 0 {
		errs = append(errs, fmt.Errorf("plan errors: %v", p.Errors))
	}
	errs = append(errs,
		reference.CheckDeletes(&s.ds, s.pods, deletes),
		checkUnavailableBudget(s, p),
		checkSurgeBudget(s, p),
		checkSurplus(s, p),
		checkPodsPerNode(s, p, after),
		checkStatus(s, p),
	)
	return errors.Join(errs...)
}

// checkConverged: every node that should run the pod runs exactly one pod,
// of the current revision and available.
func checkConverged(s snapshot, hash string) error {
	var errs []error
	buckets := reference.Buckets(&s.ds, s.pods)
	for i := range s.nodes {
		n := &s.nodes[i]
		if run, _ := reference.ShouldRun(&s.ds, n); !run {
			continue
		}
		pods := buckets[n.Name]
		switch {
		case len(pods) != 1:
			errs = append(errs, fmt.Errorf("node %s holds %d pods", n.Name, len(pods)))
		case pods[0].Labels[api.LabelRevisionHash] != hash:
			errs = append(errs, fmt.Errorf("node %s runs %s of revision %s, want %s", n.Name, pods[0].Name, pods[0].Labels[api.LabelRevisionHash], hash))
		case !s.available(pods[0]):
			errs = append(errs, fmt.Errorf("node %s: pod %s is not available (phase %s, ready %v)", n.Name, pods[0].Name, pods[0].Phase, pods[0].Ready))
		}
	}
	return errors.Join(errs...)
}
