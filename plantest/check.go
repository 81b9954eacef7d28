package plantest

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/selector"
)

// Invariant names one invariant the checkers enforce.
type Invariant uint8

// The invariants. Each checker's doc says which it reports and what it
// promises. [CheckSync] reports the violations of [daemonplan.CheckPlan]'s
// rules as Sorted (rule 1), Ownership (rules 2, 3 and 5), Eligibility
// (rule 4) and Stop (rule 6).
const (
	// Ownership: the plan deletes, releases, adopts and relabels only pods
	// the DaemonSet may act on, and writes only such revisions
	// (daemonplan.CheckPlan, rules 2, 3 and 5).
	Ownership Invariant = iota + 1
	// PodsPerNode: once the plan is applied, no node holds two running
	// pods of the DaemonSet, or with surge two of one revision
	// (CheckPodsPerNode).
	PodsPerNode
	// MaxUnavailable: a rolling-update pass without surge deletes
	// available old pods only within maxUnavailable (CheckBudgets).
	MaxUnavailable
	// MaxSurge: a rolling-update pass with surge creates new pods beside
	// available old ones only within maxSurge (CheckBudgets).
	MaxSurge
	// Surplus: a rolling-update pass with surge deletes available pods
	// only beside an available new pod or while more pods are available
	// than nodes want one (CheckBudgets).
	Surplus
	// StatusRecount: the plan's status equals a recount of the snapshot
	// (CheckStatus).
	StatusRecount
	// Stop: a sync that stops early writes nothing past the point where it
	// stops (daemonplan.CheckPlan, rule 6, and CheckStop).
	Stop
	// Determinism: the plan does not depend on the order of the input
	// (CheckPermutation).
	Determinism
	// Converged: every node that should run the pod runs exactly one,
	// up to date and available (CheckConverged).
	Converged
	// Sorted: every list of the plan is sorted, without repeats
	// (daemonplan.CheckPlan, rule 1).
	Sorted
	// Eligibility: the plan creates pods only on nodes of the input that
	// should run one, at most one per node (daemonplan.CheckPlan, rule 4).
	Eligibility
)

var invariantNames = [...]string{
	Ownership:      "Ownership",
	PodsPerNode:    "PodsPerNode",
	MaxUnavailable: "MaxUnavailable",
	MaxSurge:       "MaxSurge",
	Surplus:        "Surplus",
	StatusRecount:  "StatusRecount",
	Stop:           "Stop",
	Determinism:    "Determinism",
	Converged:      "Converged",
	Sorted:         "Sorted",
	Eligibility:    "Eligibility",
}

func (i Invariant) String() string {
	return enum.Name(invariantNames[:], int(i), "Invariant")
}

// Finding is one broken invariant: which, and what the checker saw.
type Finding struct {
	Invariant Invariant
	Detail    string
}

func (v Finding) Error() string { return v.Invariant.String() + ": " + v.Detail }

// Findings is the error every checker returns: all the violations it
// found, in a stable order. A checker returns nil, never an empty
// Findings.
type Findings []Finding

func (vs Findings) Error() string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.Error()
	}
	return strings.Join(lines, "\n")
}

// Has reports whether vs holds a violation of inv.
func (vs Findings) Has(inv Invariant) bool {
	return slices.ContainsFunc(vs, func(v Finding) bool { return v.Invariant == inv })
}

// Violated reports whether err, as returned by a checker, holds a
// violation of inv.
func Violated(err error, inv Invariant) bool {
	vs, ok := err.(Findings)
	return ok && vs.Has(inv)
}

// err returns vs as an error: nil when empty.
func (vs Findings) err() error {
	if len(vs) == 0 {
		return nil
	}
	return vs
}

func (vs *Findings) add(inv Invariant, format string, args ...any) {
	*vs = append(*vs, Finding{Invariant: inv, Detail: fmt.Sprintf(format, args...)})
}

func (vs *Findings) merge(err error) {
	if err != nil {
		*vs = append(*vs, err.(Findings)...)
	}
}

// view is what the checkers know of a snapshot: the DaemonSet as Sync
// plans it (defaulted) and the pods and revisions of its namespace by name.
type view struct {
	in   daemonplan.Input
	ds   api.DaemonSet
	pods map[string]*api.Pod
	revs map[string]*revision.Revision
}

func newView(fn string, in daemonplan.Input) *view {
	if in.DaemonSet == nil {
		panic("plantest." + fn + ": Input.DaemonSet is nil")
	}
	v := &view{in: in, ds: api.Default(in.DaemonSet), pods: map[string]*api.Pod{}, revs: map[string]*revision.Revision{}}
	for i := range in.Pods {
		if p := &in.Pods[i]; p.Namespace == v.ds.Namespace && v.pods[p.Name] == nil {
			v.pods[p.Name] = p
		}
	}
	for i := range in.Revisions {
		if r := &in.Revisions[i]; r.Namespace == v.ds.Namespace && v.revs[r.Name] == nil {
			v.revs[r.Name] = r
		}
	}
	return v
}

// claims applies the DaemonSet's claim rules to a pod: (claimed, adopt,
// release).
func (v *view) claims(p *api.Pod) (bool, bool, bool) { return reference.Claims(&v.ds, p) }

// stopped reports a sync that upstream ends before any write: the
// DaemonSet is being deleted or its selector selects everything (no
// matchLabels and no matchExpressions).
func (v *view) stopped() bool {
	s := v.ds.Selector
	return v.ds.Deleting || s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// CheckSync checks the plan p that [daemonplan.Sync] (with zero Options but
// for Hash) returned for in, and returns all the violations found. It
// panics if in.DaemonSet is nil.
//
// It builds on [daemonplan.CheckSync], the safeguard any caller may run
// before applying a plan: each violation of its rules is reported under
// the [Invariant] that names it ([Sorted], [Ownership], [Eligibility], [Stop];
// see the constants). Then it runs the checkers a test kit adds, which judge
// what depends on upstream's counting rather than on the plan alone:
// [CheckPodsPerNode], [CheckBudgets], [CheckStatus] and [CheckStop].
//
// These checkers recount from in with a deliberately naive transcription
// of upstream's rules (eligibility, claiming, buckets, availability; the
// package internal/testsupport/reference), never with the planner's own
// code. They trust p.Hash as the current revision's hash.
func CheckSync(in daemonplan.Input, p daemonplan.Plan) error {
	newView("CheckSync", in) // panics on a nil DaemonSet, as every checker
	var vs Findings
	vs.merge(checkRules(in, p))
	vs.merge(CheckPodsPerNode(in, p))
	vs.merge(CheckBudgets(in, p))
	vs.merge(CheckStatus(in, p))
	vs.merge(CheckStop(in, p))
	return vs.err()
}

// ruleInvariants names the Invariant of each rule of daemonplan.CheckPlan.
var ruleInvariants = [...]Invariant{1: Sorted, 2: Ownership, 3: Ownership, 4: Eligibility, 5: Ownership, 6: Stop}

// checkRules runs daemonplan.CheckPlan and reports each of its
// violations under the Invariant of its rule.
func checkRules(in daemonplan.Input, p daemonplan.Plan) error {
	err := daemonplan.CheckPlan(in, p)
	if err == nil {
		return nil
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	var vs Findings
	for _, e := range errs {
		v, ok := e.(daemonplan.Violation)
		if !ok || v.Rule <= 0 || v.Rule >= len(ruleInvariants) {
			panic(fmt.Sprintf("plantest.CheckSync: daemonplan.CheckPlan returned %v (%T), not a Violation of a known rule", e, e))
		}
		vs.add(ruleInvariants[v.Rule], "%s", v.Detail)
	}
	return vs.err()
}

func firstOf(a, _, _ bool) bool { return a }

// historyBuilt reports whether the sync of p got past the selector check,
// the node index and the construction of the history (docs/manage.md, M1,
// steps 2–4). It did not when the DaemonSet is being deleted or selects
// everything; when the selector does not parse; when a node is listed
// twice; or when the plan has Errors and no hash and either bumps the
// collision count (a name collision, docs/history.md, H9) or the
// namespace holds two revisions of one name. A plan without a hash may
// otherwise have built its history: the current revision may carry no
// hash label (H12).
func (v *view) historyBuilt(p daemonplan.Plan) bool {
	if v.stopped() {
		return false
	}
	if _, err := selector.Compile(v.ds.Selector); err != nil {
		return false
	}
	names := map[string]bool{}
	for _, n := range v.in.Nodes {
		if names[n.Name] {
			return false
		}
		names[n.Name] = true
	}
	if len(p.Errors) == 0 || p.Hash != "" {
		return true
	}
	if !equalCount(p.Status.CollisionCount, v.in.DaemonSet.Status.CollisionCount) {
		return false
	}
	revs := map[string]bool{}
	for _, r := range v.in.Revisions {
		if r.Namespace == v.ds.Namespace {
			if revs[r.Name] {
				return false
			}
			revs[r.Name] = true
		}
	}
	return true
}

// manageRan reports whether the sync of p reached upstream's manage step:
// the history is built and expectations are satisfied.
func (v *view) manageRan(p daemonplan.Plan) bool {
	return v.historyBuilt(p) && !v.in.ExpectationsPending
}

// after returns the pods of the snapshot once p's adoptions, releases,
// deletes and creates are applied, creates as pods bound to their node.
// Relabels are left out: the sync classified pods by the labels it read
// (upstream relabels every claimed pod when it removes duplicate
// revisions, old ones included).
func (v *view) after(p daemonplan.Plan) []api.Pod {
	ch := reference.PlanChanges(placement.ManagePlan{Adopt: p.Adopt, Release: p.Release, Create: p.Create, Delete: p.Delete})
	out := reference.Apply(&v.ds, v.in.Pods, ch, v.in.Now)
	for i, c := range p.Create {
		out[len(out)-len(p.Create)+i].NodeName = c.Node
	}
	return out
}

// CheckPodsPerNode reports [PodsPerNode] violations. When the sync reached
// upstream's manage step (the DaemonSet live, its history built as
// [CheckStatus] judges, expectations satisfied) and the burst limit cut no
// delete:
// once p's pod writes are applied, no node of the snapshot holds two
// running pods of the DaemonSet (running: neither Failed, Succeeded nor
// being deleted); with surge, no node holds two running pods whose
// revision-hash label is p.Hash, nor two whose label is not
// (docs/manage.md, M7–M9; upstream: podsShouldBeOnNode). Surge here is
// a non-zero maxSurge: a negative one, which validation rejects, does
// not surge in manage but takes the rolling update's surge path, which
// creates a new pod beside an unavailable old one (upstream's branch).
// Pods are classified by the labels the sync read: Relabel is not
// applied.
func CheckPodsPerNode(in daemonplan.Input, p daemonplan.Plan) error {
	v := newView("CheckPodsPerNode", in)
	if !v.manageRan(p) || p.SkippedDeletes > 0 {
		return nil
	}
	var vs Findings
	b, _ := v.budgets()
	surge := reference.Surge(&v.ds) || v.ds.UpdateStrategy.Type == api.RollingUpdate && b.maxSurge != 0
	if err := reference.CheckOnePodPerNode(&v.ds, in.Nodes, v.after(p), p.Hash, surge); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			vs.add(PodsPerNode, "%s", line)
		}
	}
	return vs.err()
}

// budgets are the rolling update's limits recounted from the snapshot.
type budgets struct{ desired, maxUnavailable, maxSurge int }

// scale resolves an int-or-percent against desired, rounding up (upstream:
// GetScaledValueFromIntOrPercent), exactly and saturated at the int32
// range as api.IntOrPercent.Scaled documents; ok is false for a malformed
// value.
func scale(x *api.IntOrPercent, desired int) (int, bool) {
	if x == nil {
		return 0, true
	}
	if !x.IsString {
		return int(x.IntVal), true
	}
	n, ok := new(big.Int).SetString(strings.TrimSuffix(x.StrVal, "%"), 10)
	if !ok || !n.IsInt64() || !strings.HasSuffix(x.StrVal, "%") {
		return 0, false
	}
	n.Mul(n, big.NewInt(int64(desired)))
	q, m := new(big.Int).DivMod(n, big.NewInt(100), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	switch {
	case q.Cmp(big.NewInt(math.MaxInt32)) >= 0:
		return math.MaxInt32, true
	case q.Cmp(big.NewInt(math.MinInt32)) <= 0:
		return math.MinInt32, true
	}
	return int(q.Int64()), true
}

func (v *view) budgets() (budgets, bool) {
	var b budgets
	for i := range v.in.Nodes {
		if run, _ := reference.ShouldRun(&v.ds, &v.in.Nodes[i]); run {
			b.desired++
		}
	}
	ru := v.ds.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return b, false
	}
	var ok1, ok2 bool
	b.maxUnavailable, ok1 = scale(ru.MaxUnavailable, b.desired)
	b.maxSurge, ok2 = scale(ru.MaxSurge, b.desired)
	if b.desired > 0 && b.maxUnavailable == 0 && b.maxSurge == 0 {
		b.maxUnavailable = 1
	}
	return b, ok1 && ok2
}

// nodePods is one node's pods as the rolling update sees them: pods being
// deleted left out, the others split into up-to-date and old.
type nodePods struct {
	node           string
	newPods, olds  []*api.Pod
	hasAvailableNP bool
}

// visit returns, by node name, what upstream's rolling update visits:
// every node of the snapshot that should run the pod or holds pods of the
// DaemonSet, and every node that is gone but still targeted by its pods.
func (v *view) visit(hash string) map[string]*nodePods {
	buckets := reference.Buckets(&v.ds, v.in.Pods)
	gen := reference.Generation(&v.ds)
	out := map[string]*nodePods{}
	add := func(node string) {
		np := &nodePods{node: node}
		for _, p := range buckets[node] {
			switch {
			case p.Deleting:
			case reference.Updated(p, hash, gen):
				np.newPods = append(np.newPods, p)
				np.hasAvailableNP = np.hasAvailableNP || v.available(p)
			default:
				np.olds = append(np.olds, p)
			}
		}
		out[node] = np
	}
	for i := range v.in.Nodes {
		n := &v.in.Nodes[i]
		if run, _ := reference.ShouldRun(&v.ds, n); run || len(buckets[n.Name]) > 0 {
			add(n.Name)
		}
	}
	for node := range buckets {
		if out[node] == nil {
			add(node)
		}
	}
	return out
}

func (v *view) available(p *api.Pod) bool {
	return reference.Available(p, v.ds.MinReadySeconds, v.in.Now)
}

// CheckBudgets reports [MaxUnavailable], [MaxSurge] and [Surplus] violations.
// It applies to a plan of the RollingUpdate strategy whose sync reached the
// rolling update: no Errors, the DaemonSet live, expectations satisfied,
// and nothing for upstream's manage to
// do (the naive reference plans no create and no delete), so that every
// write of p is the rolling update's (docs/rolling-update.md, R1; upstream:
// rollingUpdate). Budgets
// are scaled against the nodes that should run the pod, percentages
// rounded up, both zero meaning maxUnavailable 1; surge means a non-zero
// maxSurge (a negative one takes the surge path, as upstream's branch). A
// node is visited when it should run the pod or holds pods of the
// DaemonSet (gone nodes included); its pods not being deleted are new (up
// to date) or old.
//
//  1. [MaxUnavailable], without surge: the available old pods p deletes are
//     at most maxUnavailable minus the visited nodes already unavailable
//     (all but those holding exactly one pod, available) (R7–R9).
//  2. [MaxSurge], with surge: the nodes holding exactly one pod, old and
//     available, that p creates a pod on, are at most maxSurge minus the
//     visited nodes already surging (holding two new or two old pods, or
//     an old pod and an unavailable new one) (R11, R13).
//  3. [Surplus], with surge: the available pods p deletes, an old pod beside
//     an available new one aside, are at most the available pods (per
//     visited node without duplicates, its old pod, else its new pod)
//     minus the nodes that should run the pod (R12, R14, R15).
func CheckBudgets(in daemonplan.Input, p daemonplan.Plan) error {
	v := newView("CheckBudgets", in)
	if v.ds.UpdateStrategy.Type != api.RollingUpdate || !v.manageRan(p) || len(p.Errors) > 0 {
		return nil
	}
	b, ok := v.budgets()
	if !ok {
		return nil
	}
	if m := reference.Manage(&v.ds, in.Nodes, in.Pods, in.Now, p.Hash, in.Backoff); len(m.Creates)+len(m.Deletes) > 0 {
		return nil
	}
	visited := v.visit(p.Hash)
	var vs Findings
	// deleted lists the pods of the DaemonSet that p deletes, available
	// and not being deleted, with the node they are on.
	type deletion struct {
		pod *api.Pod
		np  *nodePods
	}
	var deleted []deletion
	for _, d := range p.Delete {
		pod := v.pods[d.Pod]
		if pod == nil || pod.Deleting || !v.available(pod) || !firstOf(v.claims(pod)) {
			continue
		}
		node, _ := reference.TargetNode(pod)
		deleted = append(deleted, deletion{pod, visited[node]})
	}
	gen := reference.Generation(&v.ds)

	if b.maxSurge == 0 { // upstream's branch: a negative maxSurge surges
		unavailable := 0
		for _, np := range visited {
			pods := append(slices.Clone(np.olds), np.newPods...)
			if len(pods) != 1 || !v.available(pods[0]) {
				unavailable++
			}
		}
		var names []string
		for _, d := range deleted {
			if !reference.Updated(d.pod, p.Hash, gen) {
				names = append(names, d.pod.Name)
			}
		}
		if allowed := max(0, b.maxUnavailable-unavailable); len(names) > allowed {
			vs.add(MaxUnavailable, "%d available old pods deleted %v; maxUnavailable %d with %d of %d visited nodes unavailable allows %d",
				len(names), names, b.maxUnavailable, unavailable, len(visited), allowed)
		}
		return vs.err()
	}

	surging, tally := 0, 0
	for _, np := range visited {
		switch {
		case len(np.olds) > 1 || len(np.newPods) > 1:
			surging++
			continue
		case len(np.olds) == 1 && len(np.newPods) == 1 && !v.available(np.newPods[0]):
			surging++
		}
		switch {
		case len(np.olds) == 1:
			if v.available(np.olds[0]) {
				tally++
			}
		case len(np.newPods) == 1:
			if v.available(np.newPods[0]) {
				tally++
			}
		}
	}
	var surged []string
	for _, c := range p.Create {
		if np := visited[c.Node]; np != nil && len(np.olds) == 1 && len(np.newPods) == 0 && v.available(np.olds[0]) {
			surged = append(surged, c.Node)
		}
	}
	if allowed := max(0, b.maxSurge-surging); len(surged) > allowed {
		vs.add(MaxSurge, "%d new pods beside available old ones on %v; maxSurge %d with %d nodes surging allows %d",
			len(surged), surged, b.maxSurge, surging, allowed)
	}
	var names []string
	for _, d := range deleted {
		if d.np != nil && d.np.hasAvailableNP && !reference.Updated(d.pod, p.Hash, gen) {
			continue
		}
		names = append(names, d.pod.Name)
	}
	if allowed := max(0, tally-b.desired); len(names) > allowed {
		vs.add(Surplus, "%d available pods deleted %v with %d available for %d desired allows %d",
			len(names), names, tally, b.desired, allowed)
	}
	return vs.err()
}

// counters are the seven status counters upstream compares before writing.
func counters(s api.Status) [7]int32 {
	return [7]int32{s.CurrentNumberScheduled, s.NumberMisscheduled, s.DesiredNumberScheduled, s.NumberReady,
		s.UpdatedNumberScheduled, s.NumberAvailable, s.NumberUnavailable}
}

// CheckStatus reports [StatusRecount] violations (docs/status.md, S1–S9;
// upstream: updateDaemonSetStatus, storeDaemonSetStatus).
//
//  1. When the sync built its history (a plan without Errors or with a
//     hash; see below), the status is recounted from the snapshot with
//     p.Hash: per
//     node that should run the pod, desired; if it holds pods of the
//     DaemonSet, current, and its oldest pod decides ready, available and
//     updated; a node that should not run the pod but holds one is
//     misscheduled; unavailable is desired minus available.
//     observedGeneration is the DaemonSet's generation, or the input's
//     while expectations are pending. StatusChanged is true exactly when a
//     counter differs from the input status or the input's
//     observedGeneration is behind; p.Status is then the recount, else the
//     input status. The collision count is the input's.
//  2. Otherwise (a DaemonSet being deleted or selecting everything, a
//     selector that does not parse, a history that cannot be built), the
//     counters and observedGeneration are the input's; only the collision
//     count may change.
//
// Whether the history was built is judged from the snapshot and the plan,
// not from p.Hash alone: the current revision may carry no hash label
// (docs/history.md, H12).
func CheckStatus(in daemonplan.Input, p daemonplan.Plan) error {
	v := newView("CheckStatus", in)
	var vs Findings
	old := in.DaemonSet.Status
	if !v.historyBuilt(p) {
		if counters(p.Status) != counters(old) || p.Status.ObservedGeneration != old.ObservedGeneration {
			vs.add(StatusRecount, "status %s changed by a sync that counted nothing (input %s)", renderStatus(p.Status), renderStatus(old))
		}
		return vs.err()
	}
	want := reference.Status(&v.ds, in.Nodes, in.Pods, in.Now, p.Hash)
	if in.ExpectationsPending {
		want.ObservedGeneration = old.ObservedGeneration
	}
	changed := counters(want) != counters(old) || old.ObservedGeneration < v.ds.Generation
	if p.StatusChanged != changed {
		vs.add(StatusRecount, "StatusChanged %v; recount %s against input %s says %v", p.StatusChanged, renderStatus(want), renderStatus(old), changed)
	}
	expect := old
	if changed {
		expect = want
	}
	if counters(p.Status) != counters(expect) || p.Status.ObservedGeneration != expect.ObservedGeneration {
		vs.add(StatusRecount, "status %s, recount %s", renderStatus(p.Status), renderStatus(expect))
	}
	if !equalCount(p.Status.CollisionCount, old.CollisionCount) {
		vs.add(StatusRecount, "collision count %s, input %s", renderCount(p.Status.CollisionCount), renderCount(old.CollisionCount))
	}
	return vs.err()
}

func renderStatus(s api.Status) string {
	return fmt.Sprintf("{desired %d current %d ready %d available %d updated %d unavailable %d misscheduled %d observedGeneration %d}",
		s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberReady, s.NumberAvailable, s.UpdatedNumberScheduled,
		s.NumberUnavailable, s.NumberMisscheduled, s.ObservedGeneration)
}

func equalCount(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func renderCount(c *int32) string {
	if c == nil {
		return "nil"
	}
	return strconv.Itoa(int(*c))
}

// CheckStop reports [Stop] violations beyond [daemonplan.CheckPlan]'s rule 6
// (which [CheckSync] reports as Stop too: a DaemonSet being deleted or
// selecting everything gets no write; a plan whose history failed, with
// Errors and no hash, creates, deletes and relabels nothing): a sync that
// stops early issues only the writes upstream issues before it stops
// (docs/manage.md, M1; upstream: syncDaemonSet).
//
//  1. A DaemonSet being deleted, or whose selector selects everything, gets
//     no status write either.
//  2. A plan with Errors creates no pod, whatever its hash. If the sync
//     failed before or while constructing the history (a selector that
//     does not parse, a name collision that bumps the collision count;
//     from a planner of your own, also a node or a revision name listed
//     twice, which [daemonplan.Sync] refuses up front), it also adopts and
//     releases no pod.
//  3. A plan with Errors or with expectations pending cleans up no history:
//     every revision it deletes holds the current template (a duplicate of
//     the current revision).
//  4. With expectations pending, no pod is created or deleted.
func CheckStop(in daemonplan.Input, p daemonplan.Plan) error {
	v := newView("CheckStop", in)
	var vs Findings
	if v.stopped() {
		if p.StatusChanged {
			vs.add(Stop, "a DaemonSet being deleted or selecting everything gets a status write")
		}
		return vs.err()
	}
	errored := len(p.Errors) > 0
	if errored && len(p.Create) > 0 {
		vs.add(Stop, "a failed sync creates %d pods", len(p.Create))
	}
	if errored && !v.historyBuilt(p) {
		for _, l := range []struct {
			name string
			n    int
		}{{"adopts", len(p.Adopt)}, {"releases", len(p.Release)}} {
			if l.n > 0 {
				vs.add(Stop, "a sync that failed before its history was known %s: %d", l.name, l.n)
			}
		}
	}
	if in.ExpectationsPending && len(p.Create)+len(p.Delete) > 0 {
		vs.add(Stop, "a sync with expectations pending creates %d and deletes %d pods", len(p.Create), len(p.Delete))
	}
	if errored || in.ExpectationsPending {
		current := revision.TemplateData(&v.ds)
		for _, name := range p.Revisions.Delete {
			vs.add(Stop, "a sync that failed or waits on expectations cleans up old revision %s", name)
		}
		for _, name := range p.Revisions.DeleteDuplicates {
			if r := v.revs[name]; r != nil && !bytes.Equal(r.Data, current) {
				vs.add(Stop, "revision %s is deleted as a duplicate of the current template but holds another", name)
			}
		}
	}
	return vs.err()
}

// CheckConverged reports [Converged] violations for a snapshot the caller
// believes settled, p being the plan of a sync of it (it reads p.Hash):
//
//  1. every node that should run the pod holds exactly one pod of the
//     DaemonSet, not being deleted, available and, for RollingUpdate, up
//     to date (its hash label is p.Hash or its template-generation label
//     the DaemonSet's);
//  2. a node whose pods may not continue running holds none but pods
//     being deleted, and any other node at most one.
func CheckConverged(in daemonplan.Input, p daemonplan.Plan) error {
	v := newView("CheckConverged", in)
	var vs Findings
	rolling := v.ds.UpdateStrategy.Type == api.RollingUpdate
	if rolling && p.Hash == "" {
		vs.add(Converged, "the plan names no current revision")
	}
	buckets := reference.Buckets(&v.ds, in.Pods)
	gen := reference.Generation(&v.ds)
	for i := range in.Nodes {
		n := &in.Nodes[i]
		run, cont := reference.ShouldRun(&v.ds, n)
		var live []*api.Pod
		for _, pod := range buckets[n.Name] {
			if !pod.Deleting {
				live = append(live, pod)
			}
		}
		switch {
		case run && len(buckets[n.Name]) != 1:
			vs.add(Converged, "node %s should run one pod and holds %d", n.Name, len(buckets[n.Name]))
		case run && len(live) == 0:
			vs.add(Converged, "node %s: pod %s is being deleted", n.Name, buckets[n.Name][0].Name)
		case run && !v.available(live[0]):
			vs.add(Converged, "node %s: pod %s is not available (phase %q, ready %v)", n.Name, live[0].Name, live[0].Phase, live[0].Ready)
		case run && rolling && !reference.Updated(live[0], p.Hash, gen):
			vs.add(Converged, "node %s: pod %s is of revision %q, want %q", n.Name, live[0].Name, live[0].Labels[api.LabelRevisionHash], p.Hash)
		case !cont && len(live) > 0:
			vs.add(Converged, "node %s may not run the pod and holds %d", n.Name, len(live))
		case !run && len(live) > 1:
			vs.add(Converged, "node %s holds %d pods", n.Name, len(live))
		}
	}
	return vs.err()
}

// SyncFunc plans one sync. [daemonplan.Sync] with fixed Options is one:
//
//	func(in daemonplan.Input) (daemonplan.Plan, error) { return daemonplan.Sync(in, opts) }
//
// and so is the Sync method of a [daemonplan.Planner].
type SyncFunc func(daemonplan.Input) (daemonplan.Plan, error)

// CheckPermutation reports a [Determinism] violation when plan returns
// anything different for in and for permuted, which must hold the same
// nodes, pods and revisions in another order (see [Permutation];
// docs/determinism.md, D4): a
// different error, or a plan that differs in any field (errors compared by
// message). Each differing field is one violation.
func CheckPermutation(plan SyncFunc, in, permuted daemonplan.Input) error {
	a, errA := plan(in)
	b, errB := plan(permuted)
	var vs Findings
	if errorText(errA) != errorText(errB) {
		vs.add(Determinism, "error %q, on permuted input %q", errorText(errA), errorText(errB))
	}
	for _, f := range diffPlans(a, b) {
		vs.add(Determinism, "%s", f)
	}
	return vs.err()
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// diffPlans names the fields in which a and b differ.
func diffPlans(a, b daemonplan.Plan) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := 0; i < va.NumField(); i++ {
		name := va.Type().Field(i).Name
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		if name == "Errors" {
			fa, fb = errorTexts(a.Errors), errorTexts(b.Errors)
		}
		if !reflect.DeepEqual(fa, fb) {
			out = append(out, fmt.Sprintf("Plan.%s differs: %v, on permuted input %v", name, fa, fb))
		}
	}
	return out
}

func errorTexts(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// SyncStep is one sync of a sequence: the snapshot it read and its plan.
type SyncStep struct {
	Input daemonplan.Input
	Plan  daemonplan.Plan
}

// CheckSteps runs [CheckSync] on every step of a sequence and returns all
// violations, each Detail prefixed with "step <i>: " (from 0).
func CheckSteps(steps []SyncStep) error {
	var vs Findings
	for i, s := range steps {
		if err := CheckSync(s.Input, s.Plan); err != nil {
			for _, v := range err.(Findings) {
				v.Detail = fmt.Sprintf("step %d: %s", i, v.Detail)
				vs = append(vs, v)
			}
		}
	}
	return vs.err()
}
