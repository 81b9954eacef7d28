package whatif

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/enum"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/timeline"
)

// Change is what an edit does to one node.
type Change uint8

// The changes.
const (
	// Unchanged: the node keeps the pod it has, or keeps having none.
	Unchanged Change = iota + 1
	// Gains: the node has no pod and gets one.
	Gains
	// Loses: the node's pod goes and none replaces it (NodeChange.Why).
	Loses
	// Replaced: the node's pod is replaced by one of the new template.
	Replaced
	// Outdated: the node keeps a pod of the old template that the OnDelete
	// strategy replaces only once someone deletes it.
	Outdated
	// NotYetReplaced: the rolling update would replace the node's pod, but
	// the simulation stopped first (at a limit, or stalled): the node
	// still runs a pod of the old template, or its old pod is gone or
	// going and the new one is not there yet.
	NotYetReplaced
)

var changeNames = [...]string{
	Unchanged: "Unchanged",
	Gains:     "Gains",
	Loses:     "Loses",
	Replaced:  "Replaced",
	Outdated:  "Outdated",

	NotYetReplaced: "NotYetReplaced",
}

// String returns the change's stable name.
func (c Change) String() string {
	return enum.Name(changeNames[:], int(c), "Change")
}

// NodeChange is what the edit does to one node.
type NodeChange struct {
	Node   string
	Change Change
	// Added and Removed report a node only in the edited input, or only in
	// the original.
	Added, Removed bool
	// Before and After are the node's decisions for the original and the
	// edited DaemonSet (zero when the node is not there).
	Before, After placement.Decision
	// Pod is the pod the node runs now ("" if none); Replacement the one
	// it runs once the rollout settles, when that is another.
	Pod, Replacement string
	// Why says, for Loses, why the pod goes: the reason of the sync that
	// deletes it. A removed node's pod is usually left to pod garbage
	// collection, Why then zero; the rolling update without surge still
	// deletes it when it is outdated (docs/rolling-update.md, R3, R8-R9),
	// Why then Outdated.
	Why placement.DeleteReason
}

// Counts are the nodes per change.
type Counts struct {
	Unchanged, Gains, Loses, Replaced, Outdated, NotYetReplaced int
}

func (c *Counts) add(ch Change) {
	switch ch {
	case Unchanged:
		c.Unchanged++
	case Gains:
		c.Gains++
	case Loses:
		c.Loses++
	case Replaced:
		c.Replaced++
	case Outdated:
		c.Outdated++
	case NotYetReplaced:
		c.NotYetReplaced++
	}
}

// Report is what an edit does.
type Report struct {
	// Nodes holds every node of the original and the edited input, sorted
	// by name.
	Nodes  []NodeChange
	Counts Counts
	// Budgets are the rolling update's budgets right after the edit; for
	// OnDelete, which has no rolling update, only Desired is set.
	Budgets rollout.Budgets
	// Steps counts the rollout's steps (timeline.Timeline.Steps: one
	// budget's worth of replacements each), Syncs all the syncs simulated,
	// and Duration the simulated time they take under the timing of
	// Options. Duration is a prediction only when Done; otherwise it is
	// how far the simulation got.
	Steps, Syncs int
	Duration     time.Duration
	// Settled reports that the simulation reached a sync with nothing to
	// do and nothing to wait for, within Options.MaxSyncs; Done that
	// `kubectl rollout status` would then say the rollout is done (always
	// true for OnDelete, whose rollout status does not apply).
	Settled, Done bool
	// Unsettled says why the simulation did not settle, in one line
	// (timeline.Stall.String), e.g. that the pods created do not match
	// the selector; "" when it settled.
	Unsettled string
}

// Options are the switches of [Diff]. The timing is package timeline's
// (docs/timeline.md), the one `daemonplan simulate` uses.
type Options struct {
	// Sync are the options every simulated sync runs with.
	Sync daemonplan.Options
	// ReadyAfter is how long a new pod takes to become Ready; 0 means
	// timeline.DefaultReadyAfter. Pods never fail in the simulation.
	ReadyAfter time.Duration
	// GracePeriod is how long a pod the controller deletes takes to go
	// (sim.Cluster.GracePeriod: the template's
	// terminationGracePeriodSeconds); 0 means at once.
	GracePeriod time.Duration
	// ResyncAfter is how long after a sync that wrote the next sync runs
	// (timeline.Options.ResyncAfter); 0 means at once, as the controller
	// follows its own writes.
	ResyncAfter time.Duration
	// MaxSyncs and MaxDuration bound the simulation; 0 means
	// timeline.Options' defaults (generous: ten syncs per node, a year).
	MaxSyncs    int
	MaxDuration time.Duration
	// Terminating is how long the pods found being deleted take to go
	// (their grace period); 0 means they never go, and a node whose pod
	// never goes is never replaced (timeline.Options.Terminating).
	Terminating time.Duration
}

// ErrNoDaemonSet is returned when before has no DaemonSet.
var ErrNoDaemonSet = errors.New("whatif: before.DaemonSet is nil")

// Diff reports what editing before into after does, node by node, and how
// many rolling-update steps it takes under the edited budgets.
//
// before is the cluster as it is. after is the same cluster edited: Diff
// reads only its DaemonSet (nil keeps before's) and its Nodes (nil keeps
// before's; a node may be added, removed, or have other labels or
// taints). The pods, revisions, clock and backoff are before's: editing a
// spec does not change the pods.
//
// The edited DaemonSet gets what the API server gives an update: its
// status is the original's; when its spec (template, strategy,
// minReadySeconds, selector, history limit) differs while its generation
// is the original's, the generation goes up by one, and when its template
// differs while its template-generation annotation is the original's or
// missing, the annotation goes up by one too, so that the pods of the old
// template count as outdated (as they would in a real cluster).
//
// Diff then drives package sim from the edited state: each sync is applied
// at once, new pods become Ready after [Options.ReadyAfter], the clock jumps
// to the next pod becoming Ready, the next Ready pod becoming available
// (minReadySeconds and one second later) or the next requeue, until a sync has
// nothing to do and nothing is to be waited for. A node's change compares
// the pod it runs now with the pod it runs then.
func Diff(before, after daemonplan.Input, opts Options) (Report, error) {
	if before.DaemonSet == nil {
		return Report{}, ErrNoDaemonSet
	}
	if opts.ReadyAfter <= 0 {
		opts.ReadyAfter = timeline.DefaultReadyAfter
	}
	edited, _ := Edit(before, after)

	c := sim.FromInput(edited)
	c.ReadyAfter = opts.ReadyAfter
	c.GracePeriod = max(opts.GracePeriod, 0)
	c.Options = opts.Sync
	// The simulation is package timeline's, the one `daemonplan simulate`
	// draws: the same syncs, the same waits, the same steps.
	why := map[string]placement.DeleteReason{}
	var last daemonplan.Plan
	tl, err := timeline.Run(c, timeline.Options{
		MaxSyncs:    opts.MaxSyncs,
		MaxDuration: opts.MaxDuration,
		Terminating: opts.Terminating,
		ResyncAfter: opts.ResyncAfter,
		AfterSync: func(plan daemonplan.Plan) {
			last = plan
			for _, d := range plan.Delete {
				if _, seen := why[d.Pod]; !seen {
					why[d.Pod] = d.Reason
				}
			}
		},
	})
	if err != nil {
		return Report{}, err
	}
	rep := Report{
		Budgets:  budgetsOf(edited.DaemonSet, tl.Syncs[0].Desired),
		Steps:    tl.Steps,
		Syncs:    len(tl.Syncs),
		Duration: tl.Duration,
		// A stall that is not a limit is a sync with nothing to do and
		// nothing to wait for: settled, but not done.
		Settled: tl.Outcome == timeline.Converged || tl.Stall.Kind == timeline.Stuck,
		Done:    tl.Outcome == timeline.Converged,
	}
	if !rep.Settled {
		rep.Unsettled = tl.Stall.String()
	}
	rep.Nodes = compare(before, edited, c, last.Hash, why, opts.Sync.Placement, rep.Done)
	for _, n := range rep.Nodes {
		rep.Counts.add(n.Change)
	}
	return rep, nil
}

// Edit returns the edited input [Diff] simulates: after's DaemonSet and
// nodes (each nil keeps before's) on before's pods, revisions, clock and
// backoff, with the API server's generation bumps (see Diff), and
// ExpectationsPending false. Neither input is changed; the DaemonSet
// returned is a copy. The error is [ErrNoDaemonSet].
func Edit(before, after daemonplan.Input) (daemonplan.Input, error) {
	if before.DaemonSet == nil {
		return daemonplan.Input{}, ErrNoDaemonSet
	}
	out := before
	out.ExpectationsPending = false
	if after.Nodes != nil {
		out.Nodes = after.Nodes
	}
	if after.DaemonSet == nil {
		out.DaemonSet = before.DaemonSet.DeepCopy()
		return out, nil
	}
	old, ds := before.DaemonSet, after.DaemonSet.DeepCopy()
	ds.Status = old.Status.DeepCopy()
	// What the edit changes, as the API server tells changes apart: the
	// template by its revision data, the rest of the spec after defaults.
	oldDef, newDef := api.Default(old), api.Default(ds)
	change := api.SpecUnchanged
	switch {
	case !slices.Equal(revision.TemplateData(&oldDef), revision.TemplateData(&newDef)):
		change = api.TemplateChanged
	case !reflect.DeepEqual(oldDef.UpdateStrategy, newDef.UpdateStrategy) ||
		oldDef.MinReadySeconds != newDef.MinReadySeconds || !reflect.DeepEqual(oldDef.Selector, newDef.Selector) ||
		!reflect.DeepEqual(oldDef.RevisionHistoryLimit, newDef.RevisionHistoryLimit):
		change = api.SpecChanged
	}
	// The API server's numbers for it (docs/validation.md, V13), where the
	// edited DaemonSet keeps the original's: numbers an edit sets stand.
	bumped := api.BumpGenerations(old, change)
	if ds.Generation == old.Generation {
		ds.Generation = bumped.Generation
	}
	if change == api.TemplateChanged {
		g, og := api.TemplateGeneration(ds), api.TemplateGeneration(old)
		if og != nil && (g == nil || *g == *og) {
			ds.Annotations = maps.Clone(ds.Annotations)
			if ds.Annotations == nil {
				ds.Annotations = map[string]string{}
			}
			ds.Annotations[api.AnnotationTemplateGeneration] = bumped.Annotations[api.AnnotationTemplateGeneration]
		}
	}
	out.DaemonSet = ds
	return out, nil
}

// budgetsOf resolves the rolling update's budgets of ds against desired,
// the desired count of the first simulated sync; OnDelete has none.
func budgetsOf(ds *api.DaemonSet, desired int) rollout.Budgets {
	d := api.Default(ds)
	if d.UpdateStrategy.Type != api.RollingUpdate {
		return rollout.Budgets{Desired: desired}
	}
	b, _ := rollout.ResolveBudgets(&d, desired)
	return b
}

// running returns, per node, the oldest pod of the DaemonSet there that is
// neither terminal nor being deleted.
func running(in daemonplan.Input, opts placement.Options) (map[string]*api.Pod, *placement.Index, error) {
	ds := api.Default(in.DaemonSet)
	c, err := placement.Compile(&ds, opts)
	if err != nil {
		return nil, nil, err
	}
	cl, err := c.Index(in.Nodes, in.Pods)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*api.Pod{}
	add := func(node string, pods []*api.Pod) {
		for _, p := range pods {
			if !p.Deleting && !api.IsTerminal(p) {
				out[node] = p
				return
			}
		}
	}
	for b := range cl.Buckets("") {
		if !b.Present {
			continue
		}
		add(b.Node, b.Pods)
	}
	return out, cl, nil
}

// compare classifies every node of before and edited.
//
// A node is NotYetReplaced, never Unchanged, when the simulation did not
// finish the rollout (done false) and, under a rolling update, the node
// still runs a pod of another revision than the current one, or should
// run a pod and has none while its old pod is gone or going.
func compare(before, edited daemonplan.Input, c *sim.Cluster, hash string, why map[string]placement.DeleteReason, opts placement.Options, done bool) []NodeChange {
	nowPods, clBefore, err := running(before, opts)
	if err != nil {
		nowPods = map[string]*api.Pod{}
	}
	thenPods, _, err := running(c.Input(), opts)
	if err != nil {
		thenPods = map[string]*api.Pod{}
	}
	beforeDecisions := map[string]placement.Decision{}
	if clBefore != nil {
		for _, d := range clBefore.NodeDecisions() {
			beforeDecisions[d.Node] = d.Decision
		}
	}
	afterDS := api.Default(edited.DaemonSet)
	afterElig := placement.NewEligibility(&afterDS, opts)
	gen := api.TemplateGeneration(&afterDS)
	rolling := afterDS.UpdateStrategy.Type == api.RollingUpdate

	inBefore, inAfter := map[string]bool{}, map[string]*api.Node{}
	names := []string{}
	for i := range before.Nodes {
		inBefore[before.Nodes[i].Name] = true
		names = append(names, before.Nodes[i].Name)
	}
	for i := range edited.Nodes {
		inAfter[edited.Nodes[i].Name] = &edited.Nodes[i]
		names = append(names, edited.Nodes[i].Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)

	out := make([]NodeChange, 0, len(names))
	for _, name := range names {
		nc := NodeChange{Node: name, Added: !inBefore[name], Removed: inAfter[name] == nil, Before: beforeDecisions[name]}
		if n := inAfter[name]; n != nil {
			nc.After = afterElig.Decide(n)
		}
		was, is := nowPods[name], thenPods[name]
		if was != nil {
			nc.Pod = was.Name
		}
		switch {
		case nc.Removed:
			nc.Change = Unchanged
			if was != nil {
				nc.Change, nc.Why = Loses, why[was.Name]
			}
		case was == nil && is == nil:
			nc.Change = Unchanged
		case was == nil:
			nc.Change, nc.Replacement = Gains, is.Name
		case is == nil && !done && rolling && nc.After.ShouldRun:
			nc.Change = NotYetReplaced
		case is == nil:
			nc.Change, nc.Why = Loses, why[was.Name]
		case !done && rolling && !api.IsUpdated(is, hash, gen):
			nc.Change = NotYetReplaced
		case is.Name != was.Name:
			nc.Change, nc.Replacement = Replaced, is.Name
		case afterDS.UpdateStrategy.Type == api.OnDelete && !api.IsUpdated(is, hash, gen):
			nc.Change = Outdated
		default:
			nc.Change = Unchanged
		}
		out = append(out, nc)
	}
	return out
}

// Table renders a report for people: one line per node that changes, then
// the counts and the steps.
func (r Report) Table() string {
	var b strings.Builder
	for _, n := range r.Nodes {
		if n.Change == Unchanged {
			continue
		}
		line := fmt.Sprintf("%-10s %s", n.Change, n.Node)
		switch {
		case n.Removed:
			line += " (node removed)"
		case n.Change == Loses:
			line += fmt.Sprintf(" (%v: %s)", n.Why, n.After.Message())
		case n.Added:
			line += " (node added)"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "unchanged %d, gains %d, loses %d, replaced %d, outdated %d, not yet replaced %d\n",
		r.Counts.Unchanged, r.Counts.Gains, r.Counts.Loses, r.Counts.Replaced, r.Counts.Outdated, r.Counts.NotYetReplaced)
	state := "settles"
	switch {
	case !r.Settled:
		state = "does not settle (" + r.Unsettled + ")"
	case !r.Done:
		state = "settles, not done"
	}
	budgets := fmt.Sprintf("maxUnavailable %d, maxSurge %d", r.Budgets.MaxUnavailable, r.Budgets.MaxSurge)
	if r.Budgets.MaxUnavailable == 0 && r.Budgets.MaxSurge == 0 {
		budgets = "OnDelete, no budgets" // a rolling update always has one
	}
	if r.Done {
		fmt.Fprintf(&b, "%d steps (%d syncs, %v), %s: %s\n", r.Steps, r.Syncs, r.Duration, budgets, state)
	} else {
		// No prediction: only how far it got and what stopped it.
		fmt.Fprintf(&b, "%s: %s after %d steps (%d syncs, %v simulated)\n", budgets, state, r.Steps, r.Syncs, r.Duration)
	}
	return b.String()
}
