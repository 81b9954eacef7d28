package rollout_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
)

// The invariants of the progressive extensions, checked after every sync
// of the state machine. They recount from the snapshot the sync read, with
// internal/testsupport/reference's eligibility, bucketing and availability,
// never with the planner's helpers; they know the rules of
// docs/progressive-delivery.md, not how the step implements them.

// snap is what one sync read.
type snap struct {
	ds    api.DaemonSet
	nodes []api.Node
	pods  []api.Pod
	now   time.Time
	opts  rollout.Progressive
	// restarts are the restart counts the caller reported.
	restarts map[string]int32
}

// vnode is one visited node: a node that should run the pod or holds pods
// of the DaemonSet. Pods being deleted are left out of old and new_.
type vnode struct {
	name    string
	labels  map[string]string
	desired bool
	old     []*api.Pod
	new_    []*api.Pod
}

func (v *vnode) outdated() bool { return len(v.old) == 1 && len(v.new_) == 0 }

// committed: a desired node that holds no single outdated pod.
func (v *vnode) committed() bool { return v.desired && !v.outdated() }

func (s *snap) available(p *api.Pod) bool { return reference.Available(p, s.ds.MinReadySeconds, s.now) }

// inFlight: duplicates, a desired node without live pods, or a new pod
// next to an old one or not available yet.
func (s *snap) inFlight(v *vnode) bool {
	switch {
	case len(v.old) > 1 || len(v.new_) > 1:
		return true
	case len(v.new_) == 0:
		return len(v.old) == 0 && v.desired
	default:
		return len(v.old) == 1 || !s.available(v.new_[0])
	}
}

// surging: duplicates, or an old pod next to a new one that is not
// available.
func (s *snap) surging(v *vnode) bool {
	return len(v.old) > 1 || len(v.new_) > 1 || len(v.old) == 1 && len(v.new_) == 1 && !s.available(v.new_[0])
}

// lacksAvailable: a desired node none of whose live pods is available.
func (s *snap) lacksAvailable(v *vnode) bool {
	if !v.desired {
		return false
	}
	for _, p := range append(slices.Clone(v.old), v.new_...) {
		if s.available(p) {
			return false
		}
	}
	return true
}

// visit lists the visited nodes of the snapshot in node order. The machine
// never removes nodes, so every bucket has a node.
func (s *snap) visit(hash string) []vnode {
	buckets := reference.Buckets(&s.ds, s.pods)
	gen := reference.Generation(&s.ds)
	var out []vnode
	for i := range s.nodes {
		n := &s.nodes[i]
		run, _ := reference.ShouldRun(&s.ds, n)
		pods := buckets[n.Name]
		if !run && len(pods) == 0 {
			continue
		}
		v := vnode{name: n.Name, labels: n.Labels, desired: run}
		for _, p := range pods {
			switch {
			case p.Deleting:
			case reference.Updated(p, hash, gen):
				v.new_ = append(v.new_, p)
			default:
				v.old = append(v.old, p)
			}
		}
		out = append(out, v)
	}
	return out
}

// touched are the outdated nodes the rolling update wrote to: their old
// pod deleted as Outdated, or a new pod created next to it (manage creates
// next to an old pod only when that pod is terminal).
func touched(vs []vnode, p daemonplan.Plan) map[string]bool {
	byName := map[string]*vnode{}
	for i := range vs {
		byName[vs[i].name] = &vs[i]
	}
	out := map[string]bool{}
	for _, d := range p.Delete {
		if v := byName[d.Node]; v != nil && v.outdated() && d.Reason == placement.Outdated && v.old[0].Name == d.Pod {
			out[d.Node] = true
		}
	}
	for _, c := range p.Create {
		if v := byName[c.Node]; v != nil && v.outdated() && !api.IsTerminal(v.old[0]) {
			out[c.Node] = true
		}
	}
	return out
}

// budgetsOf resolves the strategy's budgets against desired nodes as
// upstream does (percentages rounded up; both zero means maxUnavailable 1).
func budgetsOf(ds *api.DaemonSet, desired int) (maxUnavailable, maxSurge int) {
	ru := ds.UpdateStrategy.RollingUpdate
	scaled := func(v *api.IntOrPercent) int {
		if v == nil {
			return 0
		}
		if !v.IsString {
			return int(v.IntVal)
		}
		n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		return (n*desired + 99) / 100
	}
	maxUnavailable, maxSurge = scaled(ru.MaxUnavailable), scaled(ru.MaxSurge)
	if desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	return maxUnavailable, maxSurge
}

// domain is a set of nodes sharing budgets: the whole cluster, and each
// zone group with Zones.PerGroupBudgets.
type domain struct {
	name  string
	nodes []*vnode
}

func (s *snap) gating(hash string) bool {
	return s.opts.Canary != nil && s.opts.Canary.Verdicts[hash] != rollout.Promote
}

func zoneKey(z *rollout.Zones) string {
	if z.Key == "" {
		return rollout.LabelZone
	}
	return z.Key
}

func (s *snap) domains(vs []vnode, hash string) []domain {
	cluster := domain{name: "*"}
	for i := range vs {
		cluster.nodes = append(cluster.nodes, &vs[i])
	}
	if s.opts.Zones == nil || !s.opts.Zones.PerGroupBudgets || s.gating(hash) {
		return []domain{cluster}
	}
	out := []domain{cluster}
	key := zoneKey(s.opts.Zones)
	for i := range vs {
		name := vs[i].labels[key]
		j := slices.IndexFunc(out, func(d domain) bool { return d.name == name })
		if j < 0 {
			out = append(out, domain{name: name})
			j = len(out) - 1
		}
		out[j].nodes = append(out[j].nodes, &vs[i])
	}
	return out
}

func desiredOf(nodes []*vnode) int {
	k := 0
	for _, v := range nodes {
		if v.desired {
			k++
		}
	}
	return k
}

func count[T any](xs []T, f func(T) bool) int {
	k := 0
	for _, x := range xs {
		if f(x) {
			k++
		}
	}
	return k
}

// checkHolds: paused means no rollout write; frozen means no write at all.
func checkHolds(s *snap, vs []vnode, p daemonplan.Plan) error {
	switch {
	case s.opts.Freeze && len(p.Create)+len(p.Delete) > 0:
		return fmt.Errorf("frozen, yet %d creates and %d deletes", len(p.Create), len(p.Delete))
	case s.opts.Pause:
		if t := touched(vs, p); len(t) > 0 {
			return fmt.Errorf("paused, yet the rollout wrote to %v", keys(t))
		}
		for _, d := range p.Delete {
			if d.Reason == placement.Outdated || d.Reason == placement.Unschedulable {
				return fmt.Errorf("paused, yet %s deleted as %s", d.Pod, d.Reason)
			}
		}
	}
	return nil
}

// checkScope: the rollout never touches a node outside the scope.
func checkScope(s *snap, vs []vnode, p daemonplan.Plan) error {
	if s.opts.Scope == nil {
		return nil
	}
	sel, err := selector.Compile(s.opts.Scope)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if touched(vs, p)[v.name] && !sel.Matches(v.labels) {
			return fmt.Errorf("scope %v left: %s (labels %v) touched", s.opts.Scope.MatchLabels, v.name, v.labels)
		}
	}
	return nil
}

// checkPartition: the rollout touches at most (outdated nodes − partition)
// nodes, so at least partition nodes keep an old pod; with partitioned
// scaling, manage's creates never leave fewer than partition desired
// nodes without a new pod.
func checkPartition(s *snap, vs []vnode, p daemonplan.Plan) error {
	if s.opts.Partition == nil {
		return nil
	}
	desired := count(vs, func(v vnode) bool { return v.desired })
	part := scaleDown(s.opts.Partition, desired)
	outdated := count(vs, func(v vnode) bool { return v.outdated() })
	if t := touched(vs, p); len(t) > max(0, outdated-part) {
		return fmt.Errorf("partition %d crossed: %d outdated nodes, the rollout touched %v", part, outdated, keys(t))
	}
	if !s.opts.PartitionedScaling {
		return nil
	}
	withNew := count(vs, func(v vnode) bool { return len(v.new_) == 1 && len(v.old) <= 1 })
	creates := 0
	for _, c := range p.Create {
		if i := slices.IndexFunc(vs, func(v vnode) bool { return v.name == c.Node }); i >= 0 && len(vs[i].old)+len(vs[i].new_) == 0 {
			creates++
		}
	}
	if allowed := max(0, desired-withNew-min(part, desired)); creates > allowed {
		return fmt.Errorf("partitioned scaling: %d creates on empty nodes, %d desired, %d with a new pod, partition %d allow %d",
			creates, desired, withNew, part, allowed)
	}
	return nil
}

func scaleDown(v *api.IntOrPercent, desired int) int {
	if !v.IsString {
		return int(v.IntVal)
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n * desired / 100
}

// checkCanary: until the revision is promoted, the rollout never takes
// more desired nodes to it than the canary count (nodes already committed
// count); an aborted canary gets no rollout write; a canary pod beyond an
// AutoFail threshold aborts the canary.
func checkCanary(s *snap, vs []vnode, p daemonplan.Plan) error {
	c := s.opts.Canary
	if !s.gating(p.Hash) {
		return nil
	}
	t := touched(vs, p)
	aborted := p.Progress.Canary != nil && p.Progress.Canary.Phase == rollout.PhaseAborted
	if aborted && len(t) > 0 {
		return fmt.Errorf("canary aborted, yet the rollout touched %v", keys(t))
	}
	want := int(c.Nodes.IntVal) // the machine draws ints
	committed := count(vs, func(v vnode) bool { return v.committed() })
	if len(t) > max(0, want-committed) {
		return fmt.Errorf("canary of %d exceeded: %d nodes committed, the rollout touched %v", want, committed, keys(t))
	}
	if a := c.AutoFail; a != nil && !aborted && p.Progress.Canary != nil {
		for _, v := range vs {
			if !v.committed() || len(v.new_) != 1 || len(v.old) > 1 {
				continue
			}
			pod := v.new_[0]
			if pod.Phase == api.PodFailed || s.restarts[pod.Name] > a.MaxRestarts || a.MaxUnready > 0 && !pod.Ready && s.now.Sub(pod.Created) > a.MaxUnready {
				return fmt.Errorf("canary pod %s is beyond AutoFail %+v (restarts %d), yet the canary is %v",
					pod.Name, *a, s.restarts[pod.Name], p.Progress.Canary.Phase)
			}
		}
	}
	return nil
}

// checkBudgets: the rollout's writes in each domain stay within its
// budgets. With StrictBudgets every node of the domain counts and every
// touched node costs one, so the nodes in flight plus those touched never
// exceed maxUnavailable (maxSurge when surging). Without it the update set
// decides what counts; the check then counts only nodes that are not
// outdated, a lower bound of what the step counts.
func checkBudgets(s *snap, vs []vnode, p daemonplan.Plan) error {
	t := touched(vs, p)
	surge := reference.Surge(&s.ds)
	combined := s.opts.SurgeWithUnavailable
	created := map[string]bool{}
	for _, c := range p.Create {
		created[c.Node] = true
	}
	var errs []error
	for _, d := range s.domains(vs, p.Hash) {
		desired := desiredOf(d.nodes)
		if d.name != "*" {
			desired = max(desired, 1) // a zone group's budget is at least one node
		}
		maxU, maxS := budgetsOf(&s.ds, desired)
		var inFlight, surging, lacking, touchedNodes, surged, removed, removedAvailable int
		for _, v := range d.nodes {
			if s.opts.StrictBudgets || !v.outdated() {
				if s.inFlight(v) {
					inFlight++
				}
				if s.surging(v) {
					surging++
				}
				if !v.outdated() && s.lacksAvailable(v) {
					lacking++
				}
			}
			if !t[v.name] {
				continue
			}
			touchedNodes++
			switch {
			case created[v.name]:
				if s.opts.StrictBudgets || s.available(v.old[0]) {
					surged++
				}
			case v.desired || !surge:
				// With surge, an unavailable old pod on a node that should not
				// run goes outside every budget, as upstream.
				removed++
				if s.available(v.old[0]) {
					removedAvailable++
				}
			}
		}
		switch {
		case !surge && s.opts.StrictBudgets && touchedNodes > 0 && inFlight+touchedNodes > maxU:
			errs = append(errs, fmt.Errorf("domain %q: strict maxUnavailable %d: %d in flight + %d touched", d.name, maxU, inFlight, touchedNodes))
		case !surge && removedAvailable > max(0, maxU-inFlight):
			errs = append(errs, fmt.Errorf("domain %q: maxUnavailable %d: %d in flight, %d available old pods deleted", d.name, maxU, inFlight, removedAvailable))
		case surge && surged > max(0, maxS-surging):
			errs = append(errs, fmt.Errorf("domain %q: maxSurge %d: %d surging, %d new pods next to old ones", d.name, maxS, surging, surged))
		case surge && !combined && removed > 0:
			errs = append(errs, fmt.Errorf("domain %q: surge without unavailability deleted %d old pods outright", d.name, removed))
		case surge && combined && removed > max(0, maxU-lacking):
			errs = append(errs, fmt.Errorf("domain %q: maxUnavailable %d with surge: %d desired nodes lack an available pod, %d old pods deleted outright",
				d.name, maxU, lacking, removed))
		}
	}
	return errors.Join(errs...)
}

// checkZones: the rollout never starts a group while the groups in flight
// and those it writes to would exceed Zones.MaxConcurrent.
func checkZones(s *snap, vs []vnode, p daemonplan.Plan) error {
	if s.opts.Zones == nil || s.gating(p.Hash) {
		return nil
	}
	key := zoneKey(s.opts.Zones)
	k := max(s.opts.Zones.MaxConcurrent, 1)
	flight, write := map[string]bool{}, map[string]bool{}
	t := touched(vs, p)
	for i := range vs {
		v := &vs[i]
		if s.inFlight(v) {
			flight[v.labels[key]] = true
		}
		if t[v.name] {
			write[v.labels[key]] = true
		}
	}
	started := false
	union := map[string]bool{}
	for g := range flight {
		union[g] = true
	}
	for g := range write {
		started = started || !flight[g]
		union[g] = true
	}
	if started && len(union) > k {
		return fmt.Errorf("zone limit %d exceeded: in flight %v, written %v", k, keys(flight), keys(write))
	}
	return nil
}

// checkProgressive runs every invariant of one sync.
func checkProgressive(s *snap, p daemonplan.Plan, after []api.Pod) error {
	vs := s.visit(p.Hash)
	var deletes []string
	for _, d := range p.Delete {
		deletes = append(deletes, d.Pod)
	}
	var errs []error
	if len(p.Errors) > 0 {
		errs = append(errs, fmt.Errorf("plan errors: %v", p.Errors))
	}
	return errors.Join(append(errs,
		reference.CheckDeletes(&s.ds, s.pods, deletes),
		onePodPerNode(s, p, after),
		checkHolds(s, vs, p),
		checkScope(s, vs, p),
		checkPartition(s, vs, p),
		checkCanary(s, vs, p),
		checkBudgets(s, vs, p),
		checkZones(s, vs, p),
	)...)
}

// onePodPerNode: once the plan is applied no node holds two running pods
// (with surge: two new or two old), unless Freeze kept the duplicates it
// found.
func onePodPerNode(s *snap, p daemonplan.Plan, after []api.Pod) error {
	if s.opts.Freeze {
		return nil
	}
	return reference.CheckOnePodPerNode(&s.ds, s.nodes, after, p.Hash, reference.Surge(&s.ds))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
