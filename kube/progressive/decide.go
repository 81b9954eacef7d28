package progressive

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// NodeStage is where one node stands in a rollout.
type NodeStage string

// The node states. Updating, Deleting and Missing nodes are unavailable:
// they spend the budget.
const (
	// Updated: one live pod, of the revision rolled out, available.
	Updated NodeStage = "Updated"
	// Updating: a live pod of the revision rolled out, not available yet.
	Updating NodeStage = "Updating"
	// Outdated: a live pod of an older revision.
	Outdated NodeStage = "Outdated"
	// Deleting: the old pod is being deleted (recorded in flight,
	// terminating, or failed) and no live pod runs.
	Deleting NodeStage = "Deleting"
	// Missing: the node should run a pod and has none: the DaemonSet
	// controller has not created it yet.
	Missing NodeStage = "Missing"
	// Idle: the node should run no pod and has none.
	Idle NodeStage = "Idle"
)

// unavailable reports the states that spend the budget.
func (s NodeStage) unavailable() bool { return s == Updating || s == Deleting || s == Missing }

// pending reports the states a phase waits for.
func (s NodeStage) pending() bool { return s == Outdated || s.unavailable() }

// NodeProgress is one node's state in a step.
type NodeProgress struct {
	Name string
	// Zone is the node's value of the zone key (policy.zones.key); empty
	// without zones.
	Zone  string
	State NodeStage
	// Pod is the node's live pod of the DaemonSet, when there is one.
	Pod string
	// Desired reports a node that should run the pod.
	Desired bool
}

// decision is what decide makes of a snapshot: the new rollout, the
// deletes to issue after writing it, and what the step saw.
type decision struct {
	next    *Rollout
	changed bool
	deletes []toDelete
	plan    daemonplan.Plan
	nodes   []NodeProgress
	budget  int
	inUse   int
	waiting string
	// failed are the pods whose gate failures paused or aborted next.
	failed []gateFailure
	eta    *ETA
	// restore is the strategy to write back with next: the rollout is
	// done and its Restore is cleared.
	restore *appsv1.DaemonSetUpdateStrategy
}

// gateFailure is a pod that failed a gate, and why.
type gateFailure struct {
	uid types.UID
	why string
}

// toDelete is a pod to delete and its node.
type toDelete struct {
	pod  *corev1.Pod
	node string
}

// planner plans syncs of one snapshot as if the DaemonSet were on
// RollingUpdate with the policy's budget.
type planner struct {
	in   daemonplan.Input
	opts daemonplan.Options
	// pods are the snapshot's pods by UID.
	pods map[types.UID]*corev1.Pod
	ds   *appsv1.DaemonSet
}

// newPlanner converts the snapshot once. Pods whose UIDs are in deleting
// are given to the planner as terminating: their deletes were decided.
func newPlanner(s *load.Snapshot, pol Policy, now time.Time, v upstream.Version, deleting map[types.UID]bool) (*planner, error) {
	in, opts, err := kubesync.Input(s, now, kubesync.State{}, kubesync.Options{KubernetesVersion: v})
	if err != nil {
		return nil, err
	}
	// in.DaemonSet is the conversion's own copy; its strategy is replaced,
	// not changed in place.
	PlanAs(in.DaemonSet, pol)
	for i := range in.Pods {
		if deleting[types.UID(in.Pods[i].UID)] {
			in.Pods[i].Deleting = true
		}
	}
	p := &planner{in: in, opts: opts, pods: map[types.UID]*corev1.Pod{}, ds: s.DaemonSet}
	for _, pod := range s.Pods {
		p.pods[pod.UID] = pod
	}
	return p, nil
}

// PlanAs sets what the driver plans ds as: the strategy RollingUpdate
// with pol's maxUnavailable and maxSurge 0, and pol's minReadySeconds when
// it sets one. pol is defaulted (Policy.Defaulted). ds's strategy is
// replaced, not changed in place.
func PlanAs(ds *api.DaemonSet, pol Policy) {
	ds.UpdateStrategy = api.UpdateStrategy{
		Type:          api.RollingUpdate,
		RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: convert.IntOrPercent(pol.MaxUnavailable), MaxSurge: api.Int(0)},
	}
	if pol.MinReadySeconds > 0 {
		ds.MinReadySeconds = pol.MinReadySeconds
	}
}

// plan is the core's sync with the extensions of the rollout's phase.
func (p *planner) plan(pol Policy, st *RolloutState) (daemonplan.Plan, error) {
	opts := p.opts
	opts.Progressive = ProgressiveOf(pol, st)
	return daemonplan.Sync(p.in, opts)
}

// ProgressiveOf builds the core's extensions for the phase st is in
// (docs/progressive-live.md, the table of phases): pause when paused,
// done or aborted; the canary in the canary phase; the zone's nodes in a
// zone phase; nothing for the rest. pol is defaulted (Policy.Defaulted).
func ProgressiveOf(pol Policy, st *RolloutState) rollout.Progressive {
	pr := rollout.Progressive{StrictBudgets: pol.StrictBudgets}
	switch {
	case st.Paused != nil || st.Phase == PhaseDone || st.Phase == PhaseAborted:
		pr.Pause = true
	case st.Phase == PhaseCanary && pol.Canary != nil:
		pr.Canary = &rollout.Canary{Nodes: convert.IntOrPercent(pol.Canary.Nodes), Selector: convert.LabelSelector(pol.Canary.Selector)}
	case st.Phase == PhaseZone:
		pr.Scope = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
			{Key: pol.Zones.Key, Operator: api.SelectorOpIn, Values: []string{st.Zone}},
		}}
	}
	return pr
}

// decide runs one step on a snapshot, without I/O: r is the rollout read
// from the snapshot's DaemonSet (not changed).
func decide(s *load.Snapshot, r *Rollout, now time.Time, v upstream.Version) (decision, error) {
	next := r.clone()
	pol := r.Policy.Defaulted()
	st := &next.Status
	ds := s.DaemonSet
	d := decision{next: next}

	// In-flight deletes: those whose pods still run, still the
	// DaemonSet's, are pending; the others are done.
	live := map[types.UID]*corev1.Pod{}
	for _, pod := range s.Pods {
		if pod.DeletionTimestamp == nil && controlledBy(pod, ds.UID) {
			live[pod.UID] = pod
		}
	}
	deleting := map[types.UID]bool{}
	st.InFlight = slices.DeleteFunc(st.InFlight, func(f InFlight) bool {
		if live[f.UID] == nil {
			return true
		}
		deleting[f.UID] = true
		return false
	})
	pl, err := newPlanner(s, pol, now, v, deleting)
	if err != nil {
		return d, err
	}

	// The revision: the DaemonSet's current one. A new one (the template
	// changed) starts a new rollout under the same policy; a pause by the
	// user stays.
	probe, err := pl.plan(pol, st)
	if err != nil {
		return d, err
	}
	hash := probe.Hash
	if hash == "" || len(probe.Errors) > 0 {
		d.plan, d.waiting = probe, fmt.Sprintf("the plan has no revision hash or failed: %v", probe.Errors)
		d.changed = !equalStatus(&r.Status, st)
		return d, nil
	}
	if st.Revision != hash {
		restart(st, hash)
	}
	if st.Phase == "" {
		st.Phase = PhaseCanary
	}
	st.Generation = ds.Generation
	v0 := view(pl, probe, pol, hash, now)
	Advance(st, pol, v0, pl.in.Nodes)

	plan, err := pl.plan(pol, st)
	if err != nil {
		return d, err
	}
	d.plan = plan
	d.nodes = view(pl, plan, pol, hash, now)
	d.budget, d.inUse = budget(pol, d.nodes)

	if st.Phase != PhaseDone && st.Phase != PhaseAborted {
		d.failed = gate(st, pol, pl, hash, now)
	}
	switch {
	case st.Paused != nil:
		d.waiting = fmt.Sprintf("paused by %s: %s", st.Paused.By, st.Paused.Reason)
		st.InFlight = nil
	case st.Phase == PhaseAborted:
		d.waiting = "aborted: " + st.Reason
		st.InFlight = nil
	case st.Phase == PhaseDone:
		st.InFlight = nil
	case ds.Status.ObservedGeneration < ds.Generation:
		d.waiting = fmt.Sprintf("the DaemonSet controller has not observed generation %d yet (status.observedGeneration %d)", ds.Generation, ds.Status.ObservedGeneration)
	default:
		for _, f := range st.InFlight {
			d.deletes = append(d.deletes, toDelete{live[f.UID], f.Node})
		}
		for _, del := range plan.Delete {
			pod := podNamed(s.Pods, del.Pod)
			if del.Reason != placement.Outdated || pod == nil || live[pod.UID] == nil || deleting[pod.UID] {
				continue
			}
			if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
				continue
			}
			st.InFlight = append(st.InFlight, InFlight{Pod: pod.Name, UID: pod.UID, Node: del.Node})
			d.deletes = append(d.deletes, toDelete{pod, del.Node})
		}
		if len(d.deletes) == 0 {
			d.waiting = waitingFor(plan, st, d.nodes)
		}
	}
	slices.SortFunc(d.deletes, func(a, b toDelete) int { return strings.Compare(a.pod.Name, b.pod.Name) })
	// Nodes and the budget in use as the step leaves them.
	for _, td := range d.deletes {
		if i := slices.IndexFunc(d.nodes, func(n NodeProgress) bool { return n.Name == td.node }); i >= 0 && d.nodes[i].State == Outdated {
			d.nodes[i].State = Deleting
			d.inUse++
		}
	}
	slices.SortFunc(st.InFlight, func(a, b InFlight) int { return strings.Compare(a.Pod, b.Pod) })
	if st.Phase == PhaseDone && st.Restore != nil {
		d.restore, st.Restore = st.Restore, nil
	}
	measure(st, d.nodes, now)
	d.eta = estimate(st, pol, d.nodes, d.budget, ds, now)
	d.changed = !equalStatus(&r.Status, st) || len(d.deletes) > 0
	return d, nil
}

// restart starts a new rollout of hash in st, under the same policy.
func restart(st *RolloutState, hash string) {
	paused := st.Paused
	if paused != nil && paused.By != ByUser {
		paused = nil
	}
	*st = RolloutState{Revision: hash, Phase: PhaseCanary, Paused: paused, InFlight: st.InFlight, SkipCanary: st.Revision == "" && st.SkipCanary,
		// The measures of the ETA: the same DaemonSet's pods, replaced
		// the same way.
		Replacing: st.Replacing, Replaced: st.Replaced, ReplaceTime: st.ReplaceTime, Restore: st.Restore}
}

// Advance moves st past the phases that are complete, as a step does
// before it plans: nodes is every node's state under the plan of st's
// phase (View), allNodes the cluster's nodes (for the zone order, resolved
// when the first zone phase starts). It enters the first phase after the
// canary once the canary is promoted (or there is none, or it is
// skipped), the next zone with work once a zone has none left, then the
// rest, and Done once no node is pending; a pause point of the policy
// pauses st on entering its phase. A paused, done or aborted rollout does
// not move. pol is defaulted (Policy.Defaulted).
func Advance(st *RolloutState, pol Policy, nodes []NodeProgress, allNodes []api.Node) {
	if st.Paused != nil || st.Phase == PhaseDone || st.Phase == PhaseAborted {
		return
	}
	if !slices.ContainsFunc(nodes, func(n NodeProgress) bool { return n.State.pending() }) {
		st.Phase, st.Zone = PhaseDone, ""
		return
	}
	if st.Phase == PhaseCanary && (pol.Canary == nil || st.SkipCanary || st.Promoted) {
		enterAfter(st, pol, nodes, allNodes, "")
		return
	}
	if st.Phase == PhaseZone && !zonePending(nodes, st.Zone) {
		enterAfter(st, pol, nodes, allNodes, st.Zone)
	}
}

// enterAfter enters the first phase after the canary (from "") or after
// zone from that has work, pausing there if the policy says so.
func enterAfter(st *RolloutState, pol Policy, nodes []NodeProgress, allNodes []api.Node, from string) {
	if pol.Zones != nil && st.Zones == nil {
		st.Zones = zoneOrder(pol.Zones, allNodes)
	}
	i := 0
	if from != "" {
		i = slices.Index(st.Zones, from) + 1
	}
	for ; i < len(st.Zones); i++ {
		z := st.Zones[i]
		if !zonePending(nodes, z) {
			continue
		}
		st.Phase, st.Zone = PhaseZone, z
		switch {
		case slices.Contains(pol.PauseBefore, ZonePhase(z)):
			st.Paused = &PauseState{By: ByPolicy, Reason: "pause point before zone " + z}
		case from != "" && pol.Zones.PauseBetween:
			st.Paused = &PauseState{By: ByPolicy, Reason: fmt.Sprintf("zone %s done; pause between zones before zone %s", from, z)}
		}
		return
	}
	st.Phase, st.Zone = PhaseRemaining, ""
	if slices.Contains(pol.PauseBefore, PhaseRest) {
		st.Paused = &PauseState{By: ByPolicy, Reason: "pause point before the remaining nodes"}
	}
}

// zoneOrder is the policy's order, or every value of the key found on the
// nodes, by name.
func zoneOrder(z *ZonesPolicy, nodes []api.Node) []string {
	if len(z.Order) > 0 {
		return slices.Clone(z.Order)
	}
	var out []string
	for _, n := range nodes {
		if v := n.Labels[z.Key]; v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func zonePending(nodes []NodeProgress, zone string) bool {
	return slices.ContainsFunc(nodes, func(n NodeProgress) bool { return n.Zone == zone && n.State.pending() })
}

// view is View of the planner's input.
func view(pl *planner, p daemonplan.Plan, pol Policy, hash string, now time.Time) []NodeProgress {
	return View(pl.in, string(pl.ds.UID), p, pol, hash, now)
}

// View is every node's state in a rollout of the revision hash, by node
// name: the nodes of p (a plan of in, whose Plan.Nodes it reads: a whole
// daemonplan.Sync's), and the nodes the pods of the DaemonSet whose UID is
// dsUID are bound to. pol is defaulted (Policy.Defaulted): its zone key
// names each node's zone.
func View(in daemonplan.Input, dsUID string, p daemonplan.Plan, pol Policy, hash string, now time.Time) []NodeProgress {
	byNode := map[string]*NodeProgress{}
	node := func(name string) *NodeProgress {
		if n := byNode[name]; n != nil {
			return n
		}
		n := &NodeProgress{Name: name}
		byNode[name] = n
		return n
	}
	zoneKey := ""
	if pol.Zones != nil {
		zoneKey = pol.Zones.Key
	}
	for _, nd := range p.Nodes {
		node(nd.Node).Desired = nd.Decision.ShouldRun
	}
	for i := range in.Nodes {
		if n := byNode[in.Nodes[i].Name]; n != nil && zoneKey != "" {
			n.Zone = in.Nodes[i].Labels[zoneKey]
		}
	}
	gen := api.TemplateGeneration(in.DaemonSet)
	minReady := in.DaemonSet.MinReadySeconds
	type count struct{ old, fresh, freshAvailable, going int }
	counts := map[string]*count{}
	uid := dsUID
	for i := range in.Pods {
		pod := &in.Pods[i]
		if pod.Controller == nil || pod.Controller.UID != uid {
			continue
		}
		// A pod not bound yet is the node's its node affinity names, as
		// the controller counts it.
		name, err := api.TargetNodeName(pod)
		if err != nil {
			continue
		}
		n := node(name)
		c := counts[n.Name]
		if c == nil {
			c = &count{}
			counts[n.Name] = c
		}
		switch {
		case pod.Deleting || api.IsTerminal(pod):
			c.going++
		case !api.IsUpdated(pod, hash, gen):
			c.old++
			n.Pod = pod.Name
		default:
			c.fresh++
			n.Pod = pod.Name
			if api.IsAvailable(pod, minReady, now) {
				c.freshAvailable++
			}
		}
	}
	out := make([]NodeProgress, 0, len(byNode))
	for _, n := range byNode {
		c := counts[n.Name]
		if c == nil {
			c = &count{}
		}
		switch {
		case c.old > 0:
			n.State = Outdated
		case c.fresh == 1 && c.freshAvailable == 1:
			n.State = Updated
		case c.fresh > 0:
			n.State = Updating
		case c.going > 0:
			n.State = Deleting
		case n.Desired:
			n.State = Missing
		default:
			n.State = Idle
		}
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b NodeProgress) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// budget is maxUnavailable resolved against the desired nodes (rounded up,
// as the core scales it), and how many nodes spend it.
func budget(pol Policy, nodes []NodeProgress) (int, int) {
	desired, inUse := 0, 0
	for _, n := range nodes {
		if n.Desired {
			desired++
		}
		if n.State.unavailable() {
			inUse++
		}
	}
	b, err := convert.IntOrPercent(pol.MaxUnavailable).Scaled(desired, true)
	if err != nil || b < 1 {
		b = 1
	}
	return b, inUse
}

// gate judges the live pods of the revision rolled out; the first failure
// pauses or aborts st (pol.Gates.OnFailure). Waived pods are not judged.
// It returns the failures that paused or aborted st.
func gate(st *RolloutState, pol Policy, pl *planner, hash string, now time.Time) []gateFailure {
	var out []gateFailure
	for _, pod := range sortedPods(pl.pods) {
		if pod.DeletionTimestamp != nil || !controlledBy(pod, pl.ds.UID) || pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash || slices.Contains(st.Waived, pod.UID) {
			continue
		}
		if why := judge(*pol.Gates, pod.Status.Phase == corev1.PodFailed, restarts(pod), isReady(pod), now.Sub(pod.CreationTimestamp.Time)); why != "" {
			out = append(out, gateFailure{pod.UID, fmt.Sprintf("pod %s on node %s %s", pod.Name, podNode(pod), why)})
		}
	}
	return failGate(st, pol, out)
}

// judge is the gates' verdict on one new pod: why it fails them, or ""
// when it passes. age is the time since the pod's creation. The rule is the
// core canary's (rollout.AutoFail.Judge), with the policy's thresholds; it
// judges a live step's pods (gate) and a simulated step's
// (Simulation.BeforeSync).
func judge(g Gates, failed bool, restarts int32, ready bool, age time.Duration) string {
	return rollout.AutoFail{MaxRestarts: *g.MaxRestarts, MaxUnready: g.ReadyDeadline.Duration}.Judge(failed, restarts, ready, age)
}

// failGate pauses or aborts st for the failures, as pol.Gates.OnFailure
// says, and returns the failures that did; none when there are none, or
// when the user's pause stands (a gate does not take it over).
func failGate(st *RolloutState, pol Policy, failures []gateFailure) []gateFailure {
	if len(failures) == 0 {
		return nil
	}
	reason := "gate failed: " + failures[0].why
	if len(failures) > 1 {
		reason += fmt.Sprintf(" (and %d more pods)", len(failures)-1)
	}
	if pol.Gates.OnFailure == ActionAbort {
		st.Phase, st.Zone, st.Reason = PhaseAborted, "", reason
		return failures
	}
	if st.Paused == nil || st.Paused.By == ByGate {
		failed := make([]types.UID, len(failures))
		for i, f := range failures {
			failed[i] = f.uid
		}
		st.Paused = &PauseState{By: ByGate, Reason: reason, Pods: failed}
		return failures
	}
	return nil
}

// waitingFor says why a step that could delete deleted nothing.
func waitingFor(p daemonplan.Plan, st *RolloutState, nodes []NodeProgress) string {
	if st.Phase == PhaseCanary && p.Progress.Canary != nil && p.Progress.Canary.Phase == rollout.PhaseWaiting {
		return "the canary nodes run the new revision: waiting for 'rollout promote' (or 'rollout abort')"
	}
	if len(p.Create) > 0 {
		return fmt.Sprintf("waiting for the DaemonSet controller to create %d pods", len(p.Create))
	}
	n := 0
	for _, x := range nodes {
		if x.State.unavailable() {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("%d nodes are being updated: waiting for their new pods to become available", n)
	}
	return "nothing to delete in this phase"
}

func sortedPods(m map[types.UID]*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func podNamed(pods []*corev1.Pod, name string) *corev1.Pod {
	for _, p := range pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// podNode is the node a pod is bound to, or, not bound yet, the node its
// node affinity names (as the DaemonSet controller creates it).
func podNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return "<unbound>"
}

// controlledBy reports a pod whose controller reference names uid.
func controlledBy(p *corev1.Pod, uid types.UID) bool {
	for _, ref := range p.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return uid != "" && ref.UID == uid
		}
	}
	return false
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// restarts sums the restart counts of the pod's containers.
func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, c := range p.Status.ContainerStatuses {
		n += c.RestartCount
	}
	return n
}

// equalStatus compares two statuses but for the time they were written.
func equalStatus(a, b *RolloutState) bool {
	x, y := *a, *b
	x.Updated, y.Updated = b.Updated, b.Updated
	ra, err1 := (&Rollout{Status: x}).Encode()
	rb, err2 := (&Rollout{Status: y}).Encode()
	return err1 == nil && err2 == nil && ra == rb
}
