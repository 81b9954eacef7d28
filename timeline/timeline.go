package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/sim"
)

// PodState is the state of one pod on a node.
type PodState uint8

// The states of a pod.
const (
	// NotReady: Pending, or Running without the Ready condition.
	NotReady PodState = iota + 1
	// Ready: Running and Ready.
	Ready
	// Failed: terminal (Failed or Succeeded). The controller deletes such
	// a pod at once; on a node that should run the pod the interval stays
	// Failed, naming that pod, until the replacement is created after the
	// failed-pod backoff; on another node it ends with the deletion.
	Failed
	// Deleting: the pod has a deletion timestamp: found so by sim.FromInput, or
	// deleted by the controller and waiting out sim.Cluster.GracePeriod.
	Deleting
)

var stateNames = [...]string{NotReady: "NotReady", Ready: "Ready", Failed: "Failed", Deleting: "Deleting"}

// String returns the state's stable name.
func (s PodState) String() string {
	return enum.Name(stateNames[:], int(s), "State")
}

// Pod is one pod of a node during an interval.
type Pod struct {
	Name string
	// Hash is the pod's controller-revision-hash label.
	Hash  string
	State PodState
}

// Interval is a stretch of time during which a node's pods and their
// states do not change. From and To are offsets from [Timeline.Start]; the
// last interval of every node ends at [Timeline.Duration], and is the only
// one that may be empty: it holds the final state, which may begin at the
// last sync. Pods is empty while the node has no
// pod of the DaemonSet, sorted by creation (then name) otherwise: two pods
// while a surge replaces one.
type Interval struct {
	From, To time.Duration
	Pods     []Pod
}

// NodeHistory is one node's history.
type NodeHistory struct {
	Name string
	// Intervals are contiguous, in time order, from 0 to Timeline.Duration;
	// two neighbours never hold the same pods in the same states.
	Intervals []Interval
	// Failures are the pods that failed on the node, in time order. A
	// failed pod the controller replaces in the same sync (outside the
	// backoff) leaves no Failed interval: only this record.
	Failures []Failure
}

// Failure is a pod seen failed.
type Failure struct {
	// At is when the pod was seen failed, an offset from Timeline.Start.
	At  time.Duration
	Pod string
}

// Sync is one simulated sync.
type Sync struct {
	// At is the sync's time, an offset from Timeline.Start.
	At time.Duration
	// Creates and Deletes count the pods the sync wrote.
	Creates, Deletes int
	// Desired, Updated, Available and Unavailable are the status after
	// the sync (desiredNumberScheduled, updatedNumberScheduled,
	// numberAvailable, numberUnavailable).
	Desired, Updated, Available, Unavailable int
	// MaxUnavailable and MaxSurge are the rolling update's budgets scaled
	// against Desired; zero for OnDelete.
	MaxUnavailable, MaxSurge int
}

// Revision is a revision whose pods appear in the timeline.
type Revision struct {
	Hash string
	// Number is the ControllerRevision's revision; 0 when the cluster
	// holds no revision of that hash.
	Number int64
	// Current is the revision the DaemonSet rolls out (the last plan's
	// hash).
	Current bool
}

// Outcome is how the simulation ended.
type Outcome uint8

// The outcomes.
const (
	// Converged: a sync wrote nothing, nothing is left to wait for and
	// the rollout is done.
	Converged Outcome = iota + 1
	// Stalled: the simulation stopped without converging (Timeline.Stall
	// says why).
	Stalled
)

var outcomeNames = [...]string{Converged: "Converged", Stalled: "Stalled"}

// String returns the outcome's stable name.
func (o Outcome) String() string {
	return enum.Name(outcomeNames[:], int(o), "Outcome")
}

// StallKind is why a simulation stalled.
type StallKind uint8

// The kinds of stall.
const (
	// Stuck: a sync wrote nothing, nothing is left to wait for, and the
	// rollout is not done.
	Stuck StallKind = iota + 1
	// SyncLimit: Options.MaxSyncs syncs ran.
	SyncLimit
	// TimeLimit: the next event lies beyond Options.MaxDuration (the clock
	// stops short of it).
	TimeLimit
	// Unclaimed: a sync created pods the DaemonSet never claims, because
	// its selector does not select them (a spec the API server refuses)
	// or it has no UID to own them by: they are never counted, and every
	// sync would create another, without end.
	Unclaimed
)

var stallNames = [...]string{Stuck: "Stuck", SyncLimit: "SyncLimit", TimeLimit: "TimeLimit", Unclaimed: "Unclaimed"}

// String returns the kind's stable name.
func (k StallKind) String() string {
	return enum.Name(stallNames[:], int(k), "StallKind")
}

// Holder is a node that holds a stalled rollout back.
type Holder struct {
	Node string
	// Pod is the pod the node holds ("" for none).
	Pod string
	// Why says it in a few words: "never became Ready", "not Ready yet",
	// "Ready, not yet available (minReadySeconds)", "is being deleted",
	// "failed (3 failures on the node)", "runs 2 pods", "has no pod"
	// (docs/timeline.md, T4).
	Why string
}

// Stall names why the rollout did not converge.
type Stall struct {
	Kind StallKind
	// Holders are the nodes that hold the rollout back, sorted by name:
	// those the rolling update's decision table (rollout.Classifier)
	// counts as unavailable.
	Holders []Holder
	// Budget says which budget the holders use up, e.g. "maxUnavailable 1
	// used up", or "" when none is.
	Budget string
	// Held is what held the rolling update back (rollout.Progress.Held),
	// NotHeld for none.
	Held rollout.Hold
}

// String renders the stall in one line, e.g. "stalled: node-3 pod
// agent-bbbbc never became Ready; maxUnavailable 1 used up".
func (s *Stall) String() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	switch s.Kind {
	case SyncLimit:
		b.WriteString("stopped at the sync limit")
	case TimeLimit:
		b.WriteString("stopped at the time limit")
	case Unclaimed:
		b.WriteString("stopped: the DaemonSet never claims the pods it creates (its selector does not match them, or it has no UID), so every sync would create more")
	default:
		b.WriteString("stalled")
	}
	var parts []string
	const shown = 3
	for i, h := range s.Holders {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more nodes", len(s.Holders)-shown))
			break
		}
		if h.Pod != "" {
			parts = append(parts, h.Node+" pod "+h.Pod+" "+h.Why)
		} else {
			parts = append(parts, h.Node+" "+h.Why)
		}
	}
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, ", "))
	}
	if s.Budget != "" {
		b.WriteString("; " + s.Budget)
	}
	if s.Held != rollout.NotHeld {
		b.WriteString("; held: " + s.Held.String())
	}
	if len(s.Holders) == 0 && s.Budget == "" && s.Held == rollout.NotHeld {
		b.WriteString(": the rollout is not done and nothing is left to wait for")
	}
	return b.String()
}

// Timeline is a recorded simulation.
type Timeline struct {
	// Namespace and Name name the DaemonSet.
	Namespace, Name string
	// Strategy is the DaemonSet's update strategy.
	Strategy api.StrategyType
	// Start is the simulated clock when Run began; Duration how long the
	// simulation ran in simulated time (up to the last sync).
	Start    time.Time
	Duration time.Duration
	// Syncs are the syncs in order; Steps counts the rollout's steps, one
	// budget's worth of replacements each (docs/timeline.md, T2).
	Syncs []Sync
	Steps int
	// Nodes are the cluster's nodes, sorted by name.
	Nodes []NodeHistory
	// Revisions are the revisions whose pods appear, by number then hash.
	Revisions []Revision
	Outcome   Outcome
	// Stall is set when Outcome is Stalled.
	Stall *Stall
	// Outdated counts, at the end, the nodes that run a pod of another
	// revision than the current one: pods an OnDelete strategy replaces
	// only once they are deleted.
	Outdated int
}

// Summary renders the outcome in one line: "converged in 1m30s: 3 steps,
// 10 syncs" or "stalled after 40s (2 steps, 7 syncs): node-3 pod ... never
// became Ready; maxUnavailable 1 used up".
func (t *Timeline) Summary() string {
	if t.Outcome == Converged {
		s := fmt.Sprintf("converged in %v: %d steps, %d syncs", t.Duration, t.Steps, len(t.Syncs))
		if t.Outdated > 0 {
			s += fmt.Sprintf("; %d outdated pods left (%s: replaced once deleted)", t.Outdated, t.Strategy)
		}
		return s
	}
	head, rest, _ := strings.Cut(t.Stall.String(), ":")
	s := fmt.Sprintf("%s after %v (%d steps, %d syncs)", head, t.Duration, t.Steps, len(t.Syncs))
	if rest != "" {
		s += ":" + rest
	}
	return s
}

// The timing model's defaults (docs/timeline.md): what `daemonplan diff`
// and `daemonplan simulate` assume unless told otherwise.
const (
	// DefaultReadyAfter is how long a new pod takes from its creation to
	// Ready (the controller reads only Ready: pulling the image, starting
	// and the readiness probe are one delay).
	DefaultReadyAfter = 10 * time.Second
	// DefaultGracePeriod is how long a deleted pod takes to go when the
	// template sets no terminationGracePeriodSeconds: the API server's
	// default for it.
	DefaultGracePeriod = 30 * time.Second
	// DefaultMaxDuration bounds a simulation's clock: a year.
	DefaultMaxDuration = 365 * 24 * time.Hour
)

// Options bound [Run].
type Options struct {
	// MaxSyncs bounds the syncs; 0 means ten per node and 1,000 more
	// (a rolling update takes four or five per step without failures).
	MaxSyncs int
	// MaxDuration bounds the simulated time; 0 means DefaultMaxDuration.
	MaxDuration time.Duration
	// Terminating is how long the pods found being deleted at the start
	// take to go (their grace period); 0 means they never go, and a node
	// whose pod never goes holds the rollout. Pods the simulation deletes
	// go after the cluster's sim.Cluster.GracePeriod.
	Terminating time.Duration
	// ResyncAfter is how long after a sync that wrote the next one runs,
	// unless an event comes first; 0 (the default) means at once: the
	// controller's own writes come back to it as watch events, which queue
	// the DaemonSet again.
	ResyncAfter time.Duration
	// WholeSyncs plans every sync with a whole daemonplan.Sync and looks at
	// every pod and node after it, as Run did before it tracked the
	// cluster: each sync then costs the cluster's size. Run otherwise
	// calls the cluster's Track (when it can) and pays for what changes.
	// Both give the same Timeline; WholeSyncs is the tests' oracle.
	WholeSyncs bool
	// AfterSync, when set, is called with the plan of every sync once it
	// is applied: for callers that want more of each plan than the
	// recording keeps (package whatif keeps each deleted pod's reason).
	AfterSync func(daemonplan.Plan)
	// BeforeSync, when set, is called with the cluster before every sync,
	// at that sync's time: a caller that plays a part beside the
	// controller (a driver that moves a progressive rollout's phase, as
	// kube/progressive does) changes the cluster there, typically
	// c.Options.Progressive. With it Run plans every sync by a whole
	// daemonplan.Sync, as with WholeSyncs, so that such edits are seen;
	// the cluster must not be tracked (ErrTrackedHook). An error stops
	// Run and is returned.
	BeforeSync func(c *sim.Cluster) error
	// Wake, when set, is how long from c.Now until the next moment
	// BeforeSync's driver wants a sync though nothing in the cluster
	// changes then (a health gate's deadline); 0 for none. Run advances
	// the clock to it when it comes before the cluster's next event, and
	// a positive Wake alone keeps a run that wrote nothing going.
	Wake func(c *sim.Cluster) time.Duration
}

// Errors for nil arguments.
var (
	// ErrNoCluster is returned by Run for a nil cluster.
	ErrNoCluster = errors.New("timeline.Run: nil cluster")
	// ErrNoTimeline is returned by WriteHTML for a nil timeline.
	ErrNoTimeline = errors.New("timeline.WriteHTML: nil timeline")
	// ErrTrackedHook is returned by Run for Options.BeforeSync with a
	// tracked cluster (sim.Cluster.Track), whose planner would not see
	// the hook's edits.
	ErrTrackedHook = errors.New("timeline.Run: Options.BeforeSync with a tracked cluster")
)

// Run drives c until its rollout converges or stalls, and returns the
// recording. c is the simulation's state: Run changes it, and on return it
// holds the final state. Unless [Options.WholeSyncs], Run tracks c while it
// runs (sim.Cluster.Track) and untracks it on return, so that a sync costs
// what it changes. Each round (docs/timeline.md):
//
//  1. Sync: call [Options.BeforeSync] when set, then plan at the current
//     time and apply the plan.
//  2. If the sync wrote (a create, or a delete of a pod not yet being
//     deleted), the next sync follows at once ([Options.ResyncAfter]).
//  3. Otherwise, if nothing is left to wait for (no pod due to become
//     [Ready] or fail, no Ready pod due to become available, no pod being
//     deleted due to go, no requeue, no [Options.Wake]), stop: converged when the rollout is
//     done (for OnDelete, always), stalled ([Stuck]) otherwise.
//  4. Otherwise advance the clock to the next pod due to become [Ready] or
//     fail, the next Ready pod due to become available, the next pod being
//     deleted due to go, the plan's requeue, or [Options.Wake], whichever
//     comes first.
//
// Run stops as [SyncLimit] after [Options.MaxSyncs] syncs, as [TimeLimit] when
// the next event lies beyond [Options.MaxDuration], and as [Unclaimed] after a
// sync that creates pods the DaemonSet will not claim: its selector does
// not select them, or it has no UID (they would be created again on every
// sync). The error is a sync
// error (bad input): the timeline up to it is not returned.
func Run(c *sim.Cluster, opts Options) (*Timeline, error) {
	if c == nil {
		return nil, ErrNoCluster
	}
	if opts.MaxSyncs <= 0 {
		opts.MaxSyncs = 10*len(c.Nodes) + 1000
	}
	if opts.MaxDuration <= 0 {
		opts.MaxDuration = DefaultMaxDuration
	}
	if opts.BeforeSync != nil && c.Tracked() {
		return nil, ErrTrackedHook
	}
	if !opts.WholeSyncs && opts.BeforeSync == nil && !c.Tracked() {
		// A cluster the Tracker refuses (a name held twice) is planned
		// by whole syncs, which report what is wrong with it. The caller
		// gets back a cluster it may edit.
		if c.Track() == nil {
			defer c.Untrack()
		}
	}
	r := newRecorder(c)
	sel, selErr := selector.Compile(c.DaemonSet.Selector)
	c.Terminate(opts.Terminating)
	c.Advance(0) // pending pods due by now are Ready
	r.observe()
	var last daemonplan.Plan
	var kind StallKind
	done := false
	for {
		if opts.BeforeSync != nil {
			if err := opts.BeforeSync(c); err != nil {
				return nil, err
			}
		}
		plan, err := c.Plan()
		if err != nil {
			return nil, err
		}
		// Deleting a pod already being deleted changes nothing the
		// controller would see: no write to follow at once, no step.
		deleting := map[string]bool{}
		for _, d := range plan.Delete {
			if slices.ContainsFunc(c.PodsOn(d.Node), func(p *api.Pod) bool {
				return p.Name == d.Pod && p.Namespace == c.DaemonSet.Namespace && p.Deleting
			}) {
				deleting[d.Pod] = true
			}
		}
		redeletes := len(deleting)
		c.Apply(plan)
		last = plan
		r.sync(plan, func(d placement.Delete) bool { return deleting[d.Pod] })
		if opts.AfterSync != nil {
			opts.AfterSync(plan)
		}
		if slices.ContainsFunc(plan.Create, func(cr placement.Create) bool {
			return c.DaemonSet.UID == "" || selErr != nil || !sel.Matches(cr.Labels)
		}) {
			kind = Unclaimed
			break
		}
		wrote := len(plan.Create)+len(plan.Delete)-redeletes > 0
		// The controller sees its own writes at once (their watch events
		// queue the DaemonSet): after a sync that wrote, the next one
		// follows without waiting.
		wait := max(plan.RequeueAfter, 0)
		if d := c.NextEvent(); d > 0 && (wait == 0 || d < wait) {
			wait = d
		}
		if opts.Wake != nil {
			if d := opts.Wake(c); d > 0 && (wait == 0 || d < wait) {
				wait = d
			}
		}
		if wrote {
			wait = min(wait, max(opts.ResyncAfter, 0))
			if wait == 0 {
				wait = max(opts.ResyncAfter, 0)
			}
		} else {
			if wait == 0 {
				done = rolloutDone(c, plan)
				if !done {
					kind = Stuck
				}
				break
			}
		}
		if len(r.tl.Syncs) >= opts.MaxSyncs {
			kind = SyncLimit
			break
		}
		if wait > opts.MaxDuration-r.at() { // r.at() <= MaxDuration: no overflow
			kind = TimeLimit
			break
		}
		c.Advance(wait)
		r.observe()
	}
	return r.finish(last, done, kind), nil
}

// rolloutDone reports that kubectl rollout status would stop waiting: all
// desired pods updated and available. OnDelete has no rollout to wait for.
func rolloutDone(c *sim.Cluster, plan daemonplan.Plan) bool {
	if c.DaemonSet.UpdateStrategy.Type != api.RollingUpdate {
		return true
	}
	st := plan.Status
	return plan.Rollout.Done && st.UpdatedNumberScheduled == st.DesiredNumberScheduled &&
		st.NumberAvailable == st.DesiredNumberScheduled
}

// recorder builds a Timeline while Run drives the cluster.
type recorder struct {
	c  *sim.Cluster
	tl *Timeline
	// index maps node name to its position in tl.Nodes.
	index map[string]int
	// shouldRun holds the nodes the last sync found should run the pod:
	// only there is a failed pod replaced (nil before the first sync).
	// A tracked cluster's plans do not list the nodes: its nodes are
	// decided once, when first asked (decide), as they do not change
	// during a run.
	shouldRun map[string]bool
	decide    func(node string) bool
	numbers   map[string]int64
	hashes    map[string]bool
	// awaiting holds the nodes whose pod a sync deleted and that got no
	// new pod since; surged those that got a new pod beside a live one
	// whose old pod has not been deleted since: a create on the first, a
	// delete on the second, finishes a step begun earlier (Timeline.Steps).
	awaiting, surged map[string]bool
	// begun counts the replacements begun in the current step.
	begun    int
	observed bool
}

// runs reports whether the last sync found that node should run the pod
// (true before the first sync).
func (r *recorder) runs(node string) bool {
	if r.decide != nil {
		return r.decide(node)
	}
	return r.shouldRun == nil || r.shouldRun[node]
}

func newRecorder(c *sim.Cluster) *recorder {
	r := &recorder{c: c, index: map[string]int{}, numbers: map[string]int64{}, hashes: map[string]bool{},
		awaiting: map[string]bool{}, surged: map[string]bool{}}
	ds := api.Default(&c.DaemonSet)
	r.tl = &Timeline{Namespace: c.DaemonSet.Namespace, Name: c.DaemonSet.Name,
		Strategy: ds.UpdateStrategy.Type, Start: c.Now}
	if c.Tracked() {
		nodes := make(map[string]*api.Node, len(c.Nodes))
		for i := range c.Nodes {
			nodes[c.Nodes[i].Name] = &c.Nodes[i]
		}
		el := placement.NewEligibility(&ds, c.Options.Placement)
		decided := map[string]bool{}
		r.decide = func(name string) bool {
			should, ok := decided[name]
			if !ok {
				if n := nodes[name]; n != nil {
					should = el.Decide(n).ShouldRun
				}
				decided[name] = should
			}
			return should
		}
	}
	names := make([]string, 0, len(c.Nodes))
	for i := range c.Nodes {
		names = append(names, c.Nodes[i].Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	r.tl.Nodes = make([]NodeHistory, len(names))
	for i, n := range names {
		r.tl.Nodes[i].Name = n
		r.index[n] = i
	}
	return r
}

func (r *recorder) at() time.Duration { return r.c.Now.Sub(r.tl.Start) }

// current returns the pods n held at the last observation (nil before the
// first): those of its last interval.
func (n *NodeHistory) current() []Pod {
	if k := len(n.Intervals); k > 0 {
		return n.Intervals[k-1].Pods
	}
	return nil
}

// lastFailed returns the last failed pod of pods.
func lastFailed(pods []Pod) (Pod, bool) {
	for j := len(pods) - 1; j >= 0; j-- {
		if pods[j].State == Failed {
			return pods[j], true
		}
	}
	return Pod{}, false
}

// owned reports whether p is a pod of the simulated DaemonSet.
func (r *recorder) owned(p *api.Pod) bool {
	ds := &r.c.DaemonSet
	return p.Namespace == ds.Namespace && p.Controller != nil && p.Controller.UID == ds.UID
}

// podsByNode returns the DaemonSet's pods on each recorded node, sorted by
// creation then name, and those whose target node is not in the cluster,
// by that node's name.
func (r *recorder) podsByNode() (recorded [][]*api.Pod, vanished map[string][]*api.Pod) {
	recorded = make([][]*api.Pod, len(r.tl.Nodes))
	for i := range r.c.Pods {
		p := &r.c.Pods[i]
		if !r.owned(p) {
			continue
		}
		node, err := api.TargetNodeName(p)
		if err != nil {
			continue
		}
		if j, ok := r.index[node]; ok {
			recorded[j] = append(recorded[j], p)
		} else {
			if vanished == nil {
				vanished = map[string][]*api.Pod{}
			}
			vanished[node] = append(vanished[node], p)
		}
	}
	byAge := func(a, b *api.Pod) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.Name, b.Name))
	}
	for _, pods := range recorded {
		slices.SortFunc(pods, byAge)
	}
	for _, pods := range vanished {
		slices.SortFunc(pods, byAge)
	}
	return recorded, vanished
}

func stateOf(p *api.Pod) PodState {
	switch {
	case p.Deleting:
		return Deleting
	case api.IsTerminal(p):
		return Failed
	case p.Ready && p.Phase == api.PodRunning:
		return Ready
	}
	return NotReady
}

// observe records every node's pods at the current time: on a tracked
// cluster only those of the nodes whose pods changed, the others holding
// what they held.
func (r *recorder) observe() {
	at := r.at()
	var only []int
	var podsOf func(i int) []*api.Pod
	if names, ok := r.c.Changed(); ok && r.observed {
		for _, name := range names {
			if j, ok := r.index[name]; ok {
				only = append(only, j)
			}
		}
		slices.Sort(only)
		podsOf = r.podsOfNode
	} else {
		// The first observation sees every node.
		r.observed = true
		all, _ := r.podsByNode()
		only = make([]int, len(all))
		for i := range only {
			only[i] = i
		}
		podsOf = func(i int) []*api.Pod { return all[i] }
	}
	for _, i := range only {
		pods := podsOf(i)
		n := &r.tl.Nodes[i]
		last := n.current()
		var cur []Pod
		for _, p := range pods {
			pp := Pod{Name: p.Name, Hash: p.Labels[api.LabelRevisionHash], State: stateOf(p)}
			r.hashes[pp.Hash] = true
			cur = append(cur, pp)
		}
		// A failed pod the sync deleted: the node stays Failed until its
		// replacement is created. A node that should not run the pod gets
		// no replacement: its failed pod is gone once deleted.
		if len(cur) == 0 && r.runs(n.Name) {
			if f, ok := lastFailed(last); ok {
				cur = []Pod{f}
			}
		}
		for _, p := range cur {
			if p.State == Failed && !slices.ContainsFunc(last, func(q Pod) bool { return q.Name == p.Name && q.State == Failed }) {
				n.Failures = append(n.Failures, Failure{At: at, Pod: p.Name})
			}
		}
		r.add(n, at, cur)
	}
}

// podsOfNode returns the DaemonSet's pods on the node at index i, sorted
// by creation then name, from a tracked cluster's index of pods by node.
func (r *recorder) podsOfNode(i int) []*api.Pod {
	var out []*api.Pod
	for _, p := range r.c.PodsOn(r.tl.Nodes[i].Name) {
		if node, err := api.TargetNodeName(p); err == nil && node == r.tl.Nodes[i].Name && r.owned(p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *api.Pod) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// add records that n holds pods from at on.
func (r *recorder) add(n *NodeHistory, at time.Duration, pods []Pod) {
	iv := n.Intervals
	if k := len(iv); k > 0 {
		if slices.Equal(iv[k-1].Pods, pods) {
			return
		}
		if iv[k-1].From == at {
			// Zero length: what held at this instant was replaced at once.
			n.Intervals = iv[:k-1]
			if k > 1 && slices.Equal(iv[k-2].Pods, pods) {
				return
			}
		}
	}
	n.Intervals = append(n.Intervals, Interval{From: at, Pods: pods})
}

// sync records one sync and the state it leaves.
func (r *recorder) sync(plan daemonplan.Plan, redeleted func(placement.Delete) bool) {
	st := plan.Status
	s := Sync{At: r.at(), Creates: len(plan.Create), Deletes: len(plan.Delete),
		Desired: int(st.DesiredNumberScheduled), Updated: int(st.UpdatedNumberScheduled),
		Available: int(st.NumberAvailable), Unavailable: int(st.NumberUnavailable)}
	if ds := api.Default(&r.c.DaemonSet); ds.UpdateStrategy.Type == api.RollingUpdate {
		if b, err := rollout.ResolveBudgets(&ds, s.Desired); err == nil {
			s.MaxUnavailable, s.MaxSurge = b.MaxUnavailable, b.MaxSurge
		}
	}
	budget := s.MaxUnavailable
	if s.MaxSurge > 0 {
		budget = s.MaxSurge
	}
	if r.step(plan, budget, redeleted) {
		r.tl.Steps++
	}
	r.tl.Syncs = append(r.tl.Syncs, s)
	if r.shouldRun == nil {
		r.shouldRun = make(map[string]bool, len(plan.Nodes))
	}
	if r.decide == nil {
		clear(r.shouldRun)
		for _, n := range plan.Nodes {
			if n.ShouldRun {
				r.shouldRun[n.Node] = true
			}
		}
	}
	for _, rv := range r.c.Revisions {
		if h := rv.Labels[api.LabelRevisionHash]; h != "" {
			r.numbers[h] = rv.Revision
		}
	}
	r.observe()
}

// step reports whether a sync begins a step: one budget's worth of
// replacements. A rolling update without surge deletes old pods, and the
// sync that later creates their replacements (once the old pods are gone)
// finishes their part; one with surge creates new pods beside the old,
// and the sync that later deletes the old ones finishes it. Every other
// write to a node (an old pod deleted, a surge pod created, the first pod,
// a failed pod deleted) begins that node's replacement; the replacements
// begun are counted against the budget (maxSurge with surge, otherwise
// maxUnavailable), and a sync begins a new step when it begins a
// replacement and the current step holds a budget's worth already, so
// that the burst limit, which cuts a large budget into many syncs, does
// not multiply the steps. Without a budget (OnDelete) every sync that
// begins a replacement is a step. Deletes of pods already being deleted
// are no writes (redeleted). It is called before the sync is observed: the
// nodes' last intervals hold what the sync saw.
func (r *recorder) step(plan daemonplan.Plan, budget int, redeleted func(placement.Delete) bool) bool {
	begun := 0
	for _, d := range plan.Delete {
		switch {
		case redeleted(d):
			continue
		case r.surged[d.Node]:
			delete(r.surged, d.Node)
		default:
			begun++
		}
		r.awaiting[d.Node] = true
	}
	for _, cr := range plan.Create {
		if r.awaiting[cr.Node] {
			delete(r.awaiting, cr.Node)
			continue
		}
		begun++
		if j, ok := r.index[cr.Node]; ok && slices.ContainsFunc(r.tl.Nodes[j].current(), func(p Pod) bool {
			return p.State == Ready || p.State == NotReady
		}) {
			r.surged[cr.Node] = true
		}
	}
	if begun == 0 {
		return false
	}
	begins := r.tl.Steps == 0 || budget <= 0 || r.begun >= budget
	if begins {
		r.begun = 0
	}
	r.begun += begun
	return begins
}

// finish closes the intervals, lists the revisions and names the outcome.
func (r *recorder) finish(last daemonplan.Plan, done bool, kind StallKind) *Timeline {
	tl := r.tl
	tl.Duration = r.at()
	for i := range tl.Nodes {
		iv := tl.Nodes[i].Intervals
		for j := range iv {
			if j+1 < len(iv) {
				iv[j].To = iv[j+1].From
			} else {
				iv[j].To = tl.Duration
			}
		}
	}
	if last.Hash != "" {
		r.hashes[last.Hash] = true
	}
	for h := range r.hashes {
		if h != "" {
			tl.Revisions = append(tl.Revisions, Revision{Hash: h, Number: r.numbers[h], Current: h == last.Hash})
		}
	}
	slices.SortFunc(tl.Revisions, func(a, b Revision) int {
		return cmp.Or(cmp.Compare(a.Number, b.Number), cmp.Compare(a.Hash, b.Hash))
	})
	for i := range tl.Nodes {
		for _, p := range tl.Nodes[i].current() {
			if p.State != Failed && p.Hash != last.Hash {
				tl.Outdated++
				break
			}
		}
	}
	if done {
		tl.Outcome = Converged
		return tl
	}
	tl.Outcome = Stalled
	tl.Stall = r.stall(last, kind)
	return tl
}

// stall names the nodes that hold the rollout and the budget they use up
// (docs/timeline.md, T4), as the rolling update itself counts them:
// [rollout.Classifier.Classify] decides every node the pass would visit
// (one that should run the pod or holds one of its pods, on a node of the
// cluster or a vanished one), with the cluster's progressive switches and
// every outdated node in the update set, as upstream's pass has it; a node
// it counts as unavailable holds the rollout. The classes summed
// ([rollout.Tally]) against the budgets of the last sync's desired count
// ([rollout.ResolveBudgets]) use the budget up when [rollout.Budgets.Quota]
// takes no further candidate. So a change to the decision table changes
// the diagnosis with it.
func (r *recorder) stall(last daemonplan.Plan, kind StallKind) *Stall {
	s := &Stall{Kind: kind, Held: last.Progress.Held}
	if kind == Unclaimed {
		// No node holds it back: the pods it creates are never its own.
		return s
	}
	ds := api.Default(&r.c.DaemonSet)
	prog := r.c.Options.Progressive
	cls := rollout.Classifier{MinReadySeconds: ds.MinReadySeconds, Now: r.c.Now,
		StrictBudgets: prog.StrictBudgets, SurgeWithUnavailable: prog.SurgeWithUnavailable}
	var budgets rollout.Budgets
	rolling := ds.UpdateStrategy.Type == api.RollingUpdate && len(r.tl.Syncs) > 0
	if rolling {
		var err error
		budgets, err = rollout.ResolveBudgets(&ds, r.tl.Syncs[len(r.tl.Syncs)-1].Desired)
		rolling = err == nil
	}
	surge := budgets.Surge()
	gen := api.TemplateGeneration(&ds)
	updated := func(p *api.Pod) bool { return last.Hash == "" || api.IsUpdated(p, last.Hash, gen) }
	var tally rollout.Tally
	// visit classifies one node and names it when it holds the rollout.
	visit := func(n *NodeHistory, present, should bool, pods []*api.Pod) {
		// The pass's bucket: pods both terminal and being deleted are
		// out of it (placement.Index).
		var bucket []*api.Pod
		for _, p := range pods {
			if !(p.Deleting && api.IsTerminal(p)) {
				bucket = append(bucket, p)
			}
		}
		if !should && len(bucket) == 0 {
			return // not visited
		}
		v := rollout.NodeView{Name: n.Name, Present: present, Desired: should, Allowed: true}
		v.SetPods(bucket, func(j int) bool { return updated(bucket[j]) })
		c := cls.Classify(&v)
		tally.Add(c, surge)
		if c.Unavailable {
			s.Holders = append(s.Holders, r.holder(n, pods))
		}
	}
	recorded, vanished := r.podsByNode()
	for i, pods := range recorded {
		n := &r.tl.Nodes[i]
		visit(n, true, r.shouldRun[n.Name] || r.decide != nil && r.decide(n.Name), pods)
	}
	for name, pods := range vanished {
		visit(&NodeHistory{Name: name}, false, false, pods)
	}
	slices.SortFunc(s.Holders, func(a, b Holder) int { return cmp.Compare(a.Node, b.Node) })
	if rolling && len(s.Holders) > 0 {
		// Used up: one more candidate would not be taken.
		more := tally
		more.Candidates++
		if q := budgets.Quota(more, surge, cls.SurgeWithUnavailable); q.Candidates+q.Down == 0 {
			s.Budget = fmt.Sprintf("maxUnavailable %d used up", budgets.MaxUnavailable)
			switch {
			case surge && cls.SurgeWithUnavailable && budgets.MaxUnavailable > 0:
				s.Budget = fmt.Sprintf("maxSurge %d and maxUnavailable %d used up", budgets.MaxSurge, budgets.MaxUnavailable)
			case surge:
				s.Budget = fmt.Sprintf("maxSurge %d used up", budgets.MaxSurge)
			}
		}
	}
	return s
}

// holder says why node n, which the rolling update counts as unavailable,
// holds the rollout, from its pods (the DaemonSet's pods on it, oldest
// first): its newest live pod that is not available ("never became Ready":
// Pending past ReadyAfter, or Running and not Ready; "not Ready yet";
// "Ready, not yet available (minReadySeconds)"); else its failed pod, also
// the one the last sync deleted, which the node is still recorded with
// (observe); else its live pods when it runs more than one (manage
// settles the node first); else its pod being deleted; else none.
func (r *recorder) holder(n *NodeHistory, pods []*api.Pod) Holder {
	ds := &r.c.DaemonSet
	var live []*api.Pod
	failed, deleting := "", ""
	for _, p := range pods {
		switch {
		case p.Deleting:
			deleting = p.Name
		case api.IsTerminal(p):
			failed = p.Name
		default:
			live = append(live, p)
		}
	}
	for j := len(live) - 1; j >= 0; j-- {
		p := live[j]
		if api.IsAvailable(p, ds.MinReadySeconds, r.c.Now) {
			continue
		}
		h := Holder{Node: n.Name, Pod: p.Name, Why: "not Ready yet"}
		switch {
		case p.Ready:
			h.Why = "Ready, not yet available (minReadySeconds)"
		case p.Phase == api.PodRunning || !p.Created.Add(r.c.ReadyAfter).After(r.c.Now):
			h.Why = "never became Ready"
		}
		return h
	}
	if f, ok := lastFailed(n.current()); ok && failed == "" && len(live) == 0 {
		failed = f.Name
	}
	switch {
	case failed != "":
		return Holder{Node: n.Name, Pod: failed, Why: fmt.Sprintf("failed (%d failures on the node)", len(n.Failures))}
	case len(live) > 0:
		return Holder{Node: n.Name, Why: fmt.Sprintf("runs %d pods", len(live))}
	case deleting != "":
		return Holder{Node: n.Name, Pod: deleting, Why: "is being deleted"}
	}
	return Holder{Node: n.Name, Why: "has no pod"}
}

// Failures returns a [sim.Cluster.FateOf] that fails each new pod with
// probability rate and lets the others become [Ready]. A pod's fate depends
// only on seed and its name (math/rand/v2's PCG seeded with seed and the
// name's FNV-1a hash): the same seed fails the same pods, in any order of
// creation. A rate of 0 or less fails none, 1 or more every pod.
func Failures(rate float64, seed uint64) func(node string, pod *api.Pod) sim.Fate {
	return Fates(rate, 0, seed)
}

// Fates returns a [sim.Cluster.FateOf] that fails each new pod with
// probability failRate, makes it crash-loop ([sim.CrashLoop]) with
// probability crashRate, and lets the others become Ready. As with
// [Failures], a pod's fate depends only on seed and its name, and one
// draw decides it: the same seed fails the same pods whatever crashRate
// is.
func Fates(failRate, crashRate float64, seed uint64) func(node string, pod *api.Pod) sim.Fate {
	return func(_ string, pod *api.Pod) sim.Fate {
		h := fnv.New64a()
		h.Write([]byte(pod.Name))
		switch u := rand.New(rand.NewPCG(seed, h.Sum64())).Float64(); {
		case u < failRate:
			return sim.Fail
		case u < failRate+crashRate:
			return sim.CrashLoop
		}
		return sim.BecomeReady
	}
}
