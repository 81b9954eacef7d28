package daemonplan

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// Tracker holds one DaemonSet's cluster (the DaemonSet, its nodes and pods,
// its revisions, the clock and the failed-pod backoff), takes changes one
// at a time, and returns after any of them the plan [Sync] returns on the
// same state, at a cost that follows the change, not the cluster
// (docs/incremental.md).
//
// It keeps, for every node, its decision, its bucket of pods and its
// summary (what it contributes to manage, to the status counters and to
// each pass of the rolling update), the totals of those summaries, and the
// nodes in name order in chunks that count each kind, so that "the first
// 250 nodes that get a create" skips every chunk without one. Its plan is
// the fold of those summaries, the same fold [Sync] runs over its index.
// A node or pod change refreshes the one or two nodes it touches: O(pods
// on them + log n). Moving the clock forward refreshes the nodes whose pods
// become available by then and the nodes holding failed pods. A new
// DaemonSet, a clock moving back, or revisions that change the current
// hash refresh every node: O(n), like a Sync.
//
// With Options.Progressive set, the rolling update's step is the
// progressive passes', which rank zones, pick canaries and cut partitions
// over every node at once: such a plan walks the Tracker's node list once,
// O(n), deciding nothing again. A few states are planned by a whole Sync of
// [Tracker.Input]: those a sync handles without indexing the cluster (a
// selector that selects everything, a DaemonSet being deleted, a selector
// that does not parse), an input [CheckInput] refuses and a DaemonSet
// without a UID. Duplicate current revisions (a transient state) make every
// pod change rebuild the history, O(n).
//
// A Tracker keeps the values it is given: the labels, taints and other
// maps and slices of nodes, pods and revisions must not be changed
// afterwards; pass a new value instead (the DaemonSet is copied). It is not safe for
// concurrent use. Make one with [NewTracker]: a nil *Tracker is not usable,
// and its methods panic.
type Tracker struct {
	opts Options

	ds       *api.DaemonSet // as given (a deep copy)
	dds      api.DaemonSet  // defaulted
	warnings field.ErrorList
	// c is the compiled DaemonSet; nil when a sync would not index the
	// cluster (a selector that selects everything, a DaemonSet being deleted, a
	// selector that does not compile): every plan is then a whole Sync.
	c *placement.Compiled

	byName    map[string]*nodeState
	nodes     ordered
	pods      map[podKey]*podState
	revisions []revision.Revision
	now       time.Time
	backoff   placement.Backoff
	pending   bool

	adopt, release sortedSet
	// hashes counts the claimed pods with a target node by their revision
	// hash label: the revisions cleanup must keep (revision.Cleanup).
	hashes map[string]int
	hist   revision.History
	// histErr is the error of revision.Construct; histPods reports that
	// the history depends on the claimed pods (duplicate current
	// revisions, whose pods are relabelled).
	histErr  error
	histPods bool
	hash     string

	tot     totals
	clocked map[*nodeState]struct{} // nodes whose manage reads the clock
	timers  timers
	round   uint64
	// building is set while rebuild fills the node states: the ordered
	// list is built once they are all there.
	building bool

	// What CheckInput would refuse, counted as objects come and
	// go: nodes and pods without a name or with a string that is not UTF-8,
	// UIDs held by more than one pod, and whether the revisions are valid.
	// Names cannot repeat: nodes and pods are keyed by them.
	bad, dupUIDs int
	uids         map[string]int
	badRevisions bool
}

type podKey struct{ namespace, name string }

// podState is one pod and what the DaemonSet makes of it.
type podState struct {
	pod api.Pod
	own placement.Ownership
	// targeted: claimed, with a target node; bucket is the node whose
	// bucket holds the pod, nil when none does.
	targeted bool
	target   string
	bucket   *nodeState
}

func (ps *podState) claimed() bool {
	return ps.own == placement.Owned || ps.own == placement.Adopted
}

// ErrDuplicate is returned by [NewTracker] for an input that names a node,
// or a pod of a namespace, twice: a [Tracker] keys them by name.
var ErrDuplicate = errors.New("daemonplan.NewTracker: a node or a pod appears twice")

// NewTracker returns a [Tracker] holding in, planning with opts, built in
// about the time of one Sync. It returns [ErrNilDaemonSet] when
// in.DaemonSet is nil, and [ErrDuplicate] when a node name (or a pod name
// within a namespace) repeats.
func NewTracker(in Input, opts Options) (*Tracker, error) {
	if in.DaemonSet == nil {
		return nil, ErrNilDaemonSet
	}
	p := &Tracker{
		opts:      opts,
		ds:        in.DaemonSet.DeepCopy(),
		byName:    make(map[string]*nodeState, len(in.Nodes)),
		pods:      make(map[podKey]*podState, len(in.Pods)),
		revisions: slices.Clone(in.Revisions),
		uids:      map[string]int{},
		now:       in.Now,
		backoff:   in.Backoff,
		pending:   in.ExpectationsPending,
	}
	// Node and pod states come in two slabs: two allocations, not 2n.
	states := make([]nodeState, len(in.Nodes))
	real := make([]*nodeState, len(in.Nodes))
	for i, n := range in.Nodes {
		if p.byName[n.Name] != nil {
			return nil, ErrDuplicate
		}
		states[i] = nodeState{name: n.Name, node: n, real: true}
		p.countNode(&n, 1)
		real[i] = &states[i]
		p.byName[n.Name] = real[i]
	}
	pstates := make([]podState, len(in.Pods))
	for i, pod := range in.Pods {
		k := podKey{pod.Namespace, pod.Name}
		if p.pods[k] != nil {
			return nil, ErrDuplicate
		}
		pstates[i] = podState{pod: pod}
		p.countPod(&pod, 1)
		p.pods[k] = &pstates[i]
	}
	if !slices.IsSortedFunc(real, byNameOrder) {
		slices.SortFunc(real, byNameOrder)
	}
	p.badRevisions = len(revision.ValidateRevisions(p.revisions)) > 0
	p.rebuild(real)
	return p, nil
}

// countNode adds (sign 1) or removes (sign -1) n from the counts of what
// CheckInput refuses.
func (p *Tracker) countNode(n *api.Node, sign int) {
	if !api.NodeWellFormed(n) {
		p.bad += sign
	}
}

// countPod is countNode for a pod, its UID included.
func (p *Tracker) countPod(pod *api.Pod, sign int) {
	if !api.PodWellFormed(pod) {
		p.bad += sign
	}
	if pod.UID == "" {
		return
	}
	before := p.uids[pod.UID]
	p.uids[pod.UID] = before + sign
	switch {
	case sign > 0 && before == 1:
		p.dupUIDs++
	case sign < 0 && before == 2:
		p.dupUIDs--
	}
	if before+sign == 0 {
		delete(p.uids, pod.UID)
	}
}

// invalid reports an input Sync refuses (CheckInput), or a
// DaemonSet without a UID (a finding of Sync's own): such states are
// planned by a whole Sync.
func (p *Tracker) invalid() bool {
	return p.bad > 0 || p.dupUIDs > 0 || p.badRevisions || p.ds.UID == ""
}

func byNameOrder(a, b *nodeState) int { return strings.Compare(a.name, b.name) }

// rebuild derives everything from the stored DaemonSet, nodes and pods.
// real are the states of the nodes of the list, in name order.
func (p *Tracker) rebuild(real []*nodeState) {
	p.dds = api.Default(p.ds)
	p.warnings = api.ValidateWith(&p.dds, api.ValidateOptions{
		AllowSurgeWithUnavailable: p.opts.Progressive.SurgeWithUnavailable,
		ComparisonOperators:       p.opts.Placement.Taints.ComparisonOperators,
	})
	p.c = nil
	p.adopt, p.release = sortedSet{}, sortedSet{}
	p.hashes = map[string]int{}
	p.tot = totals{}
	p.clocked = map[*nodeState]struct{}{}
	p.timers = nil
	p.hist, p.histErr, p.histPods, p.hash = revision.History{}, nil, false, ""
	p.nodes, p.building = ordered{}, true
	defer func() { p.building = false }()
	for name, ns := range p.byName {
		if !ns.real {
			delete(p.byName, name)
		}
	}
	for _, ns := range real {
		ns.pods, ns.sum, ns.flags, ns.chunk = nil, heldSummary{}, 0, nil
	}
	for _, ps := range p.pods {
		ps.own, ps.targeted, ps.target, ps.bucket = 0, false, "", nil
	}
	if !syncrule.SelectsAll(p.dds.Selector) && !p.dds.Deleting {
		if c, err := placement.Compile(&p.dds, p.opts.Placement); err == nil {
			p.c = c
		}
	}
	if p.c == nil {
		p.nodes.build(real)
		return
	}
	// Decide every node as an index does, which reads the nodes' labels
	// a batch at a time.
	nodes := make([]api.Node, len(real))
	for i, ns := range real {
		nodes[i] = ns.node
	}
	if cl, err := p.c.Index(nodes, nil); err == nil {
		for i, d := range cl.NodeDecisions() {
			real[i].decision = d.Decision
		}
	} else {
		// The index refuses a list with a name Sync refuses (empty, not
		// UTF-8): every plan is a whole Sync while such a node is held,
		// but the other nodes' decisions must be right once it goes.
		for _, ns := range real {
			ns.decision = p.c.Decide(&ns.node)
		}
	}
	for _, ps := range p.pods {
		p.attach(ps)
	}
	p.constructHistory()
	all := real
	if len(p.byName) > len(real) {
		// vanished nodes, targeted by pods
		all = make([]*nodeState, 0, len(p.byName))
		for _, ns := range p.byName {
			all = append(all, ns)
		}
		slices.SortFunc(all, byNameOrder)
	}
	for _, ns := range all {
		p.refresh(ns)
	}
	p.nodes.build(all)
}

// refreshAll refreshes every node: after a change of the hash or the
// clock going back.
func (p *Tracker) refreshAll() {
	if p.c == nil || p.building {
		return
	}
	p.timers = nil
	p.nodes.all(p.refresh)
}

// attach claims ps and puts it into its node's bucket, and returns that
// node (nil when none). p.c must not be nil.
func (p *Tracker) attach(ps *podState) *nodeState {
	pod := &ps.pod
	ps.own = p.c.Claim(pod)
	switch ps.own {
	case placement.Adopted:
		p.adopt.add(pod.Name)
	case placement.Released:
		p.release.add(pod.Name)
	}
	if !ps.claimed() {
		return nil
	}
	target, err := api.TargetNodeName(pod)
	if err != nil {
		return nil
	}
	ps.targeted, ps.target = true, target
	if h := pod.Labels[api.LabelRevisionHash]; h != "" {
		p.hashes[h]++
	}
	if pod.Deleting && api.IsTerminal(pod) {
		return nil
	}
	ns := p.byName[target]
	if ns == nil {
		ns = &nodeState{name: target}
		p.byName[target] = ns
		if !p.building {
			p.nodes.insert(ns)
		}
	}
	ns.insertPod(pod)
	ps.bucket = ns
	return ns
}

// detach undoes attach and returns the node whose bucket held the pod.
func (p *Tracker) detach(ps *podState) *nodeState {
	pod := &ps.pod
	switch ps.own {
	case placement.Adopted:
		p.adopt.remove(pod.Name)
	case placement.Released:
		p.release.remove(pod.Name)
	}
	if ps.targeted {
		if h := pod.Labels[api.LabelRevisionHash]; h != "" {
			if p.hashes[h]--; p.hashes[h] == 0 {
				delete(p.hashes, h)
			}
		}
	}
	ns := ps.bucket
	if ns != nil {
		ns.removePod(pod)
	}
	ps.own, ps.targeted, ps.target, ps.bucket = 0, false, "", nil
	return ns
}

// settle refreshes ns after a change, and forgets it when it is neither a
// node of the list nor holds pods any more.
func (p *Tracker) settle(ns *nodeState) {
	if ns == nil || ns.seen == p.round {
		return
	}
	ns.seen = p.round
	if !ns.real && len(ns.pods) == 0 {
		p.account(ns, -1)
		p.nodes.remove(ns)
		delete(p.byName, ns.name)
		delete(p.clocked, ns)
		ns.seen = ^uint64(0) // gone: stale timers skip it
		return
	}
	p.refresh(ns)
}

// constructHistory plans the revision history as Sync does, and refreshes
// every node when the current hash changes.
func (p *Tracker) constructHistory() {
	ropts := revision.Options{Hash: p.opts.Hash}
	h, err := revision.Construct(&p.dds, p.revisions, nil, ropts)
	p.histPods = err == nil && len(h.DeleteDuplicates) > 0
	if p.histPods {
		// Duplicate current revisions: the pods to relabel are read too.
		h, err = revision.Construct(&p.dds, p.revisions, p.claimedPods(), ropts)
	}
	p.hist, p.histErr = h, err
	if h.Hash != p.hash {
		p.hash = h.Hash
		p.refreshAll()
	}
}

func (p *Tracker) claimedPods() []*api.Pod {
	var out []*api.Pod
	for _, ps := range p.pods {
		if ps.claimed() {
			out = append(out, &ps.pod)
		}
	}
	return out
}

// SetDaemonSet replaces the DaemonSet (a spec or status change). After a
// change of anything but the status, every node and pod is decided again:
// this costs a few whole Syncs. A change of the status alone (the
// controller's own status write) costs O(revisions) when the observed
// generation stays: no other decision reads the status but the history,
// through its collision count. ds must not be nil.
func (p *Tracker) SetDaemonSet(ds *api.DaemonSet) {
	if ds == nil {
		panic("daemonplan.Tracker.SetDaemonSet: nil DaemonSet")
	}
	if statusOnly(p.ds, ds) {
		count := p.ds.Status.CollisionCount
		p.ds = ds.DeepCopy()
		p.dds.Status = api.Default(p.ds).Status
		if !syncrule.EqualCount(count, ds.Status.CollisionCount) && p.c != nil {
			p.constructHistory()
		}
		return
	}
	p.ds = ds.DeepCopy()
	var real []*nodeState
	p.nodes.all(func(ns *nodeState) {
		if ns.real {
			real = append(real, ns)
		}
	})
	p.rebuild(real)
}

// SetNode adds a node, or replaces the node of the same name. It reports
// whether the change may change a plan of the Tracker (Plan.Nodes of
// FullPlan aside, which names every node): false when it leaves every plan
// as it was, true otherwise (see nodeMatters). A controller that keeps one
// Tracker per DaemonSet syncs again only those whose SetNode said true.
func (p *Tracker) SetNode(n api.Node) bool {
	p.round++
	ns := p.byName[n.Name]
	if ns == nil {
		ns = &nodeState{name: n.Name}
		p.byName[n.Name] = ns
		p.nodes.insert(ns)
	}
	was := nodeBefore{real: ns.real, decision: ns.decision, labels: ns.node.Labels, invalid: p.invalid()}
	if ns.real {
		p.countNode(&ns.node, -1)
	}
	p.countNode(&n, 1)
	ns.node, ns.real = n, true
	if p.c == nil {
		return true
	}
	ns.decision = p.c.Decide(&ns.node)
	matters := p.nodeMatters(ns, was)
	p.settle(ns)
	return matters
}

// DeleteNode removes the node called name, if there is one. Its pods stay
// (pod garbage collection removes them) and count as on a vanished node.
// It reports whether the change may change a plan, as SetNode does: a node
// that should not run the pod and holds none changes nothing.
func (p *Tracker) DeleteNode(name string) bool {
	p.round++
	ns := p.byName[name]
	if ns == nil || !ns.real {
		return false
	}
	was := nodeBefore{real: true, decision: ns.decision, labels: ns.node.Labels, invalid: p.invalid()}
	p.countNode(&ns.node, -1)
	ns.node, ns.real, ns.decision = api.Node{}, false, placement.Decision{}
	if p.c == nil {
		p.account(ns, -1)
		p.nodes.remove(ns)
		delete(p.byName, name)
		return true
	}
	matters := p.nodeMatters(ns, was)
	p.settle(ns)
	return matters
}

// nodeBefore is what a node change may change of the plans: the node's
// presence, decision and labels before it, and whether the input was one
// a whole Sync plans.
type nodeBefore struct {
	real     bool
	decision placement.Decision
	labels   map[string]string
	invalid  bool
}

// nodeMatters reports whether a change of the node ns from was may change
// a plan. A node's part in a plan is its summary (summarize), a function
// of its presence, its decision and its bucket of pods, and, for the
// progressive passes, its labels; a node that is not present with a
// decision to run the pod and holds no pod has no part at all. So a
// change matters when the node had or has a part and its presence or
// decision (every field, the blocking taint by value) changed, or, with
// Options.Progressive, its labels; and whenever the input is or was one a
// whole Sync plans (a malformed node makes CheckInput refuse it).
func (p *Tracker) nodeMatters(ns *nodeState, was nodeBefore) bool {
	if was.invalid || p.invalid() {
		return true
	}
	part := func(real bool, d placement.Decision) bool { return real && d.ShouldRun || len(ns.pods) > 0 }
	if !part(was.real, was.decision) && !part(ns.real, ns.decision) {
		return false
	}
	if was.real != ns.real || !sameDecision(was.decision, ns.decision) {
		return true
	}
	return !p.opts.Progressive.IsZero() && !maps.Equal(was.labels, ns.node.Labels)
}

// sameDecision compares two decisions field by field, the blocking taint
// by value (== compares its address).
func sameDecision(a, b placement.Decision) bool {
	ta, tb := a.Taint, b.Taint
	a.Taint, b.Taint = nil, nil
	return a == b && (ta == nil) == (tb == nil) && (ta == nil || reflect.DeepEqual(*ta, *tb))
}

// SetPod adds a pod, or replaces the pod of the same namespace and name.
func (p *Tracker) SetPod(pod api.Pod) {
	p.round++
	k := podKey{pod.Namespace, pod.Name}
	ps := p.pods[k]
	if ps == nil {
		ps = &podState{}
		p.pods[k] = ps
	} else {
		p.countPod(&ps.pod, -1)
	}
	p.countPod(&pod, 1)
	if p.c == nil {
		ps.pod = pod
		return
	}
	wasClaimed := ps.claimed()
	before := p.detach(ps)
	ps.pod = pod
	after := p.attach(ps)
	p.settle(before)
	p.settle(after)
	if p.histPods && (wasClaimed || ps.claimed()) {
		p.constructHistory()
	}
}

// DeletePod removes the pod namespace/name, if there is one.
func (p *Tracker) DeletePod(namespace, name string) {
	p.round++
	k := podKey{namespace, name}
	ps := p.pods[k]
	if ps == nil {
		return
	}
	delete(p.pods, k)
	p.countPod(&ps.pod, -1)
	if p.c == nil {
		return
	}
	wasClaimed := ps.claimed()
	p.settle(p.detach(ps))
	if p.histPods && wasClaimed {
		p.constructHistory()
	}
}

// SetRevisions replaces the ControllerRevisions of the namespace.
func (p *Tracker) SetRevisions(revisions []revision.Revision) {
	p.revisions = slices.Clone(revisions)
	p.badRevisions = len(revision.ValidateRevisions(p.revisions)) > 0
	if p.c != nil {
		p.constructHistory()
	}
}

// SetNow moves the clock. Forward, only the nodes whose pods become
// available by then and the nodes holding failed pods are decided again;
// backward, every node is.
func (p *Tracker) SetNow(now time.Time) {
	back := now.Before(p.now)
	p.now = now
	if p.c == nil {
		return
	}
	if back {
		p.refreshAll()
		return
	}
	p.round++
	p.timers.due(now, func(ns *nodeState) {
		if ns.seen != ^uint64(0) {
			p.settle(ns)
		}
	})
	p.refreshClocked()
}

// SetBackoff replaces the failed-pod backoff state: pass the Backoff of
// the last plan once it is applied.
func (p *Tracker) SetBackoff(b placement.Backoff) {
	p.backoff = b
	if p.c != nil {
		p.round++
		p.refreshClocked()
	}
}

func (p *Tracker) refreshClocked() {
	for ns := range p.clocked {
		p.settle(ns)
	}
}

// SetExpectationsPending records whether writes of an earlier plan are not
// yet visible ([Input.ExpectationsPending]).
func (p *Tracker) SetExpectationsPending(pending bool) { p.pending = pending }

// Input returns the state the [Tracker] holds, as the input of a Sync:
// nodes sorted by name, pods by namespace and name. It costs O(n log n).
func (p *Tracker) Input() Input {
	in := Input{
		DaemonSet:           p.ds.DeepCopy(),
		Revisions:           slices.Clone(p.revisions),
		Now:                 p.now,
		Backoff:             p.backoff,
		ExpectationsPending: p.pending,
	}
	p.nodes.all(func(ns *nodeState) {
		if ns.real {
			in.Nodes = append(in.Nodes, ns.node)
		}
	})
	for _, ps := range p.pods {
		in.Pods = append(in.Pods, ps.pod)
	}
	slices.SortFunc(in.Pods, func(a, b api.Pod) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return in
}

// sortedSet is a sorted list of names, for adoptions and releases.
type sortedSet struct{ names []string }

func (s *sortedSet) add(name string) {
	i, _ := slices.BinarySearch(s.names, name)
	s.names = slices.Insert(s.names, i, name)
}

func (s *sortedSet) remove(name string) {
	if i, ok := slices.BinarySearch(s.names, name); ok {
		s.names = slices.Delete(s.names, i, i+1)
	}
}

// list returns a copy, nil when empty.
func (s *sortedSet) list() []string {
	if len(s.names) == 0 {
		return nil
	}
	return slices.Clone(s.names)
}

// statusOnly reports whether a and b differ in their status counters and
// collision count at most: the observed generation keys the failed-pod
// backoff, which the node summaries read.
func statusOnly(a, b *api.DaemonSet) bool {
	if a.Status.ObservedGeneration != b.Status.ObservedGeneration {
		return false
	}
	x, y := *a, *b
	x.Status, y.Status = api.Status{}, api.Status{}
	return reflect.DeepEqual(x, y)
}
