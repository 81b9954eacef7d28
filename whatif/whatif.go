package whatif

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
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

// Change is what an edit does to one node: how the node is left once the
// cluster settles with the edit, against how it is left once the cluster
// settles without it. The same values also say what the cluster does to a
// node without any edit, against now ([NodeChange.Pending]).
type Change uint8

// The changes.
const (
	// Unchanged: the node ends with the same pod (or with none) with the
	// edit as without it.
	Unchanged Change = iota + 1
	// Gains: the node ends with a pod it would not have otherwise.
	Gains
	// Loses: the node ends without the pod it would have otherwise
	// (NodeChange.Why).
	Loses
	// Replaced: the node ends with another pod than it would otherwise: a
	// new one, of the edited template when the edit changes it.
	Replaced
	// Outdated: the node keeps a pod of an old template that the OnDelete
	// strategy replaces only once someone deletes it.
	Outdated
	// NotYetReplaced: the rolling update would replace the node's pod, but
	// the simulation stopped first (at a limit, or stalled): the node
	// still runs a pod of the old template, or its old pod is gone or
	// going and the new one is not there yet.
	NotYetReplaced
	// Keeps: the node keeps the pod it runs now, which would otherwise be
	// replaced or deleted (an edit that rolls back to that pod's
	// template, or makes the node eligible again).
	Keeps
	// DecisionChanged: the node ends as it would otherwise, but the
	// DaemonSet's decision about it changes (ShouldRun or
	// ShouldContinueRunning), e.g. an untolerated NoSchedule taint: the
	// pod stays, but one that went would not come back.
	DecisionChanged
)

var changeNames = [...]string{
	Unchanged: "Unchanged",
	Gains:     "Gains",
	Loses:     "Loses",
	Replaced:  "Replaced",
	Outdated:  "Outdated",

	NotYetReplaced:  "NotYetReplaced",
	Keeps:           "Keeps",
	DecisionChanged: "DecisionChanged",
}

// String returns the change's stable name.
func (c Change) String() string {
	return enum.Name(changeNames[:], int(c), "Change")
}

// NodeChange is what the edit does to one node, and what the cluster does
// to it anyway.
type NodeChange struct {
	Node string
	// Change is the edit's: the node settled with the edit against the
	// node settled without it.
	Change Change
	// Added and Removed report a node only in the edited input, or only in
	// the original.
	Added, Removed bool
	// Before and After are the node's decisions for the original and the
	// edited DaemonSet (zero when the node is not there).
	Before, After placement.Decision
	// Pod is the pod the node runs now; WithEdit and WithoutEdit the pods
	// it runs once the simulation with the edit and the one without it
	// stop ("" for none). A pod a simulation creates has the simulation's
	// name: compare a created pod by its template, not its name.
	Pod, WithEdit, WithoutEdit string
	// Why says, for Loses, why the pod goes: the reason of the sync (with
	// the edit) that deletes Pod. It is zero when the pod the node loses
	// is one it would only have got without the edit (its decision After
	// says why not), and usually for a removed node, whose pod is left to
	// pod garbage collection; the rolling update without surge still
	// deletes that pod when it is outdated (docs/rolling-update.md, R3,
	// R8-R9), Why then Outdated.
	Why placement.DeleteReason
	// Pending is what the cluster does to the node without the edit,
	// against now: a rollout or placement already under way.
	Pending PendingChange
}

// PendingChange is what the cluster does to a node without the edit,
// against now: Change is Unchanged, Gains, Loses, Replaced, Outdated or
// NotYetReplaced, as the edit's change reads, and Why the reason of the
// sync that deletes the node's pod, for Loses.
type PendingChange struct {
	Change Change
	Why    placement.DeleteReason
}

// Counts are the nodes per change.
type Counts struct {
	Unchanged, Gains, Loses, Replaced, Outdated, NotYetReplaced, Keeps, DecisionChanged int
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
	case Keeps:
		c.Keeps++
	case DecisionChanged:
		c.DecisionChanged++
	}
}

// Report is what an edit does.
type Report struct {
	// Nodes holds every node of the original and the edited input, sorted
	// by name.
	Nodes []NodeChange
	// Counts are the nodes per edit's change (NodeChange.Change).
	Counts Counts
	// Budgets are the rolling update's budgets right after the edit; for
	// OnDelete, which has no rolling update, only Desired is set.
	Budgets rollout.Budgets
	// Steps counts the steps of the rollout with the edit, from now
	// (timeline.Timeline.Steps: one budget's worth of replacements each),
	// Syncs all the syncs simulated, and Duration the simulated time they
	// take under the timing of Options: what `daemonplan simulate`
	// reports for the edited cluster. Duration is a prediction only when
	// Done; otherwise it is how far the simulation got.
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
	// Pending is what the cluster does without the edit, from now.
	Pending Baseline
}

// Baseline is the simulation of the cluster without the edit: what is
// pending anyway (a rollout under way, nodes without their pod), with the
// same timing as the simulation with the edit.
type Baseline struct {
	// Counts are the nodes per NodeChange.Pending change; a node only in
	// the edited input counts as Unchanged.
	Counts        Counts
	Steps, Syncs  int
	Duration      time.Duration
	Settled, Done bool
	Unsettled     string
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
	// MaxSyncs and MaxDuration bound each simulation; 0 means
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

// Diff reports what editing before into after does, node by node: the
// cluster as it settles with the edit against the same cluster as it
// settles without it. What the cluster does anyway (a rollout under way,
// a node without its pod) is reported apart, against now, in
// NodeChange.Pending and Report.Pending; an edit that changes nothing
// reports every node Unchanged, on a cluster mid-rollout too.
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
// Diff then drives package sim twice, from before and from the edited
// state, with the same timing: each sync is applied at once, new pods
// become Ready after [Options.ReadyAfter], the clock jumps to the next pod
// becoming Ready, the next Ready pod becoming available (minReadySeconds
// and one second later) or the next requeue, until a sync has nothing to
// do and nothing is to be waited for. The steps, syncs and duration
// reported are the edited simulation's.
func Diff(before, after daemonplan.Input, opts Options) (Report, error) {
	if before.DaemonSet == nil {
		return Report{}, ErrNoDaemonSet
	}
	if opts.ReadyAfter <= 0 {
		opts.ReadyAfter = timeline.DefaultReadyAfter
	}
	// The cluster without the edit goes through Edit too, so that both
	// simulations start alike (a copied DaemonSet, no expectations
	// pending) and differ by the edit alone.
	base, _ := Edit(before, daemonplan.Input{})
	edited, _ := Edit(before, after)
	without, err := simulate(base, opts)
	if err != nil {
		return Report{}, err
	}
	with, err := simulate(edited, opts)
	if err != nil {
		return Report{}, err
	}
	rep := Report{
		Budgets:   budgetsOf(edited.DaemonSet, with.tl.Syncs[0].Desired),
		Steps:     with.tl.Steps,
		Syncs:     len(with.tl.Syncs),
		Duration:  with.tl.Duration,
		Settled:   with.settled,
		Done:      with.done,
		Unsettled: with.unsettled,
		Pending: Baseline{Steps: without.tl.Steps, Syncs: len(without.tl.Syncs), Duration: without.tl.Duration,
			Settled: without.settled, Done: without.done, Unsettled: without.unsettled},
	}
	rep.Nodes = compare(before, without, with, opts.Sync.Placement)
	for _, n := range rep.Nodes {
		rep.Counts.add(n.Change)
		rep.Pending.Counts.add(n.Pending.Change)
	}
	return rep, nil
}

// run is one simulation: where it started, the cluster where it stopped,
// and what its syncs said.
type run struct {
	start daemonplan.Input
	c     *sim.Cluster
	tl    *timeline.Timeline
	// why is the reason of the first delete of each pod; hash the current
	// revision's hash at the last sync.
	why  map[string]placement.DeleteReason
	hash string
	// settled: a sync with nothing to do and nothing to wait for (a stall
	// that is not a limit counts); done: kubectl rollout status would say
	// so.
	settled, done bool
	unsettled     string
}

// simulate runs package timeline's simulation, the one `daemonplan
// simulate` draws (the same syncs, the same waits, the same steps), from
// start.
func simulate(start daemonplan.Input, opts Options) (*run, error) {
	c := sim.FromInput(start)
	c.ReadyAfter = opts.ReadyAfter
	c.GracePeriod = max(opts.GracePeriod, 0)
	c.Options = opts.Sync
	r := &run{start: start, c: c, why: map[string]placement.DeleteReason{}}
	tl, err := timeline.Run(c, timeline.Options{
		MaxSyncs:    opts.MaxSyncs,
		MaxDuration: opts.MaxDuration,
		Terminating: opts.Terminating,
		ResyncAfter: opts.ResyncAfter,
		AfterSync: func(plan daemonplan.Plan) {
			r.hash = plan.Hash
			for _, d := range plan.Delete {
				if _, seen := r.why[d.Pod]; !seen {
					r.why[d.Pod] = d.Reason
				}
			}
		},
	})
	if err != nil {
		return nil, err
	}
	r.tl = tl
	// A stall that is not a limit is a sync with nothing to do and nothing
	// to wait for: settled, but not done.
	r.settled = tl.Outcome == timeline.Converged || tl.Stall.Kind == timeline.Stuck
	r.done = tl.Outcome == timeline.Converged
	if !r.settled {
		r.unsettled = tl.Stall.String()
	}
	return r, nil
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
// neither terminal nor being deleted, and the node's decision.
func running(in daemonplan.Input, opts placement.Options) (map[string]*api.Pod, map[string]placement.Decision) {
	pods, decisions := map[string]*api.Pod{}, map[string]placement.Decision{}
	ds := api.Default(in.DaemonSet)
	c, err := placement.Compile(&ds, opts)
	if err != nil {
		return pods, decisions
	}
	cl, err := c.Index(in.Nodes, in.Pods)
	if err != nil {
		return pods, decisions
	}
	for _, d := range cl.NodeDecisions() {
		decisions[d.Node] = d.Decision
	}
	for b := range cl.Buckets("") {
		if !b.Present {
			continue
		}
		for _, p := range b.Pods {
			if !p.Deleting && !api.IsTerminal(p) {
				pods[b.Node] = p
				break
			}
		}
	}
	return pods, decisions
}

// end is where a simulation leaves one node.
type end struct {
	present bool
	// pod is the pod the node runs (nil for none); created says that the
	// simulation created it, so that it is told apart from another
	// simulation's by its template, not its name.
	pod     *api.Pod
	created bool
	// waits: the simulation left the node short of where its DaemonSet
	// wants it: a pod of an old template (a rolling update not finished,
	// or OnDelete), or no pod on a node that should run one while the
	// rolling update is not finished. target names the revision it waits
	// for.
	waits  bool
	target string
}

// ends returns where r leaves each of its nodes.
func ends(r *run, loaded map[string]bool, opts placement.Options) map[string]end {
	in := r.c.Input()
	pods, decisions := running(in, opts)
	ds := api.Default(in.DaemonSet)
	gen := api.TemplateGeneration(&ds)
	target := r.hash
	if gen != nil {
		target += "/" + strconv.FormatInt(*gen, 10)
	}
	unfinished := ds.UpdateStrategy.Type == api.RollingUpdate && !r.done
	out := make(map[string]end, len(in.Nodes))
	for i := range in.Nodes {
		name := in.Nodes[i].Name
		e := end{present: true, target: target}
		if p := pods[name]; p != nil {
			e.pod, e.created = p, !loaded[p.Name]
			old := !api.IsUpdated(p, r.hash, gen)
			e.waits = old && (unfinished || ds.UpdateStrategy.Type == api.OnDelete)
		} else {
			e.waits = unfinished && decisions[name].ShouldRun
		}
		out[name] = e
	}
	return out
}

// same reports that two simulations leave a node alike: the same pod (a
// created one by its template), or none, and waiting for the same
// revision if at all.
func same(a, b end) bool {
	switch {
	case (a.pod == nil) != (b.pod == nil):
		return false
	case a.pod == nil:
	case a.created != b.created:
		return false
	case a.created:
		if a.pod.Labels[api.LabelRevisionHash] != b.pod.Labels[api.LabelRevisionHash] ||
			a.pod.Labels[api.LabelTemplateGeneration] != b.pod.Labels[api.LabelTemplateGeneration] {
			return false
		}
	case a.pod.Name != b.pod.Name:
		return false
	}
	return a.waits == b.waits && (!a.waits || a.target == b.target)
}

// compare classifies every node of before and of the edited input: the
// edit's change (with against without), and what is pending anyway
// (without against now).
func compare(before daemonplan.Input, without, with *run, opts placement.Options) []NodeChange {
	loaded := make(map[string]bool, len(before.Pods))
	for i := range before.Pods {
		loaded[before.Pods[i].Name] = true
	}
	now, beforeDecisions := running(before, opts)
	_, afterDecisions := running(with.start, opts)
	endsWithout, endsWith := ends(without, loaded, opts), ends(with, loaded, opts)
	onDelete := api.Default(with.start.DaemonSet).UpdateStrategy.Type == api.OnDelete
	baseOnDelete := api.Default(without.start.DaemonSet).UpdateStrategy.Type == api.OnDelete

	names := make([]string, 0, len(before.Nodes)+len(with.start.Nodes))
	for i := range before.Nodes {
		names = append(names, before.Nodes[i].Name)
	}
	for i := range with.start.Nodes {
		names = append(names, with.start.Nodes[i].Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)

	out := make([]NodeChange, 0, len(names))
	for _, name := range names {
		b, e := endsWithout[name], endsWith[name]
		nc := NodeChange{Node: name, Added: !b.present, Removed: !e.present,
			Before: beforeDecisions[name], After: afterDecisions[name]}
		was := now[name]
		if was != nil {
			nc.Pod = was.Name
		}
		if b.pod != nil {
			nc.WithoutEdit = b.pod.Name
		}
		if e.pod != nil {
			nc.WithEdit = e.pod.Name
		}
		nc.Pending = PendingChange{Change: Unchanged}
		if b.present {
			nc.Pending = pending(was, b, without.why, baseOnDelete)
		}
		nc.Change, nc.Why = editChange(was, b, e, with.why, onDelete)
		if nc.Change == Unchanged && b.present && e.present && flips(nc.Before, nc.After) {
			nc.Change = DecisionChanged
		}
		out = append(out, nc)
	}
	return out
}

// pending is what the simulation without the edit does to a node (where
// it leaves it: b) against now (was, the pod it runs).
func pending(was *api.Pod, b end, why map[string]placement.DeleteReason, onDelete bool) PendingChange {
	switch {
	case was == nil && b.pod == nil:
		return PendingChange{Change: Unchanged}
	case was == nil:
		return PendingChange{Change: Gains}
	case b.pod == nil && b.waits:
		return PendingChange{Change: NotYetReplaced}
	case b.pod == nil:
		return PendingChange{Change: Loses, Why: why[was.Name]}
	case b.pod.Name != was.Name:
		return PendingChange{Change: Replaced}
	case b.waits && onDelete:
		return PendingChange{Change: Outdated}
	case b.waits:
		return PendingChange{Change: NotYetReplaced}
	}
	return PendingChange{Change: Unchanged}
}

// editChange is the edit's change of a node: where the simulation with
// the edit leaves it (e) against where the one without leaves it (b); was
// is the pod it runs now, and why the reasons of the deletes with the
// edit.
func editChange(was *api.Pod, b, e end, why map[string]placement.DeleteReason, onDelete bool) (Change, placement.DeleteReason) {
	var wasName string
	if was != nil {
		wasName = was.Name
	}
	switch {
	case same(b, e):
		return Unchanged, 0
	case e.pod == nil && e.waits && was == nil && b.pod == nil:
		// It has no pod and waits for one either way, of another
		// template with the edit: nothing runs there to compare.
		return Unchanged, 0
	case e.pod == nil && e.waits:
		return NotYetReplaced, 0
	case e.pod == nil:
		return Loses, why[wasName]
	case !e.created && e.waits && onDelete:
		return Outdated, 0
	case !e.created && e.waits:
		return NotYetReplaced, 0
	case !e.created:
		return Keeps, 0
	case b.pod == nil:
		return Gains, 0
	}
	return Replaced, 0
}

// flips reports that an edit turns a node's decision: whether it should
// run the pod, or may keep one.
func flips(before, after placement.Decision) bool {
	return before.ShouldRun != after.ShouldRun || before.ShouldContinueRunning != after.ShouldContinueRunning
}

// Table renders a report for people: one line per node the edit changes
// and the counts; one line per node the cluster changes anyway (without
// the edit) and their counts; the steps of the rollout with the edit.
func (r Report) Table() string {
	var b strings.Builder
	b.WriteString("the edit:\n")
	for _, n := range r.Nodes {
		if n.Change == Unchanged {
			continue
		}
		line := fmt.Sprintf("%-10s %s", n.Change, n.Node)
		var notes []string
		switch {
		case n.Removed:
			notes = append(notes, "node removed")
		case n.Change == Loses && n.Why != 0:
			notes = append(notes, fmt.Sprintf("%v: %s", n.Why, n.After.Message()))
		case n.Change == Loses || n.Change == DecisionChanged:
			notes = append(notes, n.After.Message())
		case n.Added:
			notes = append(notes, "node added")
		}
		if n.Pending.Change != Unchanged {
			notes = append(notes, "anyway: "+n.Pending.Change.String())
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, "; ") + ")"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "%s\n", r.Counts)
	if r.Pending.Counts.Unchanged == len(r.Nodes) {
		b.WriteString("pending anyway: nothing\n")
	} else {
		b.WriteString("pending anyway:\n")
		for _, n := range r.Nodes {
			if n.Pending.Change != Unchanged {
				fmt.Fprintf(&b, "%-10s %s\n", n.Pending.Change, n.Node)
			}
		}
		fmt.Fprintf(&b, "%s\n", r.Pending.Counts)
	}
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
		fmt.Fprintf(&b, "with the edit: %d steps (%d syncs, %v), %s: %s\n", r.Steps, r.Syncs, r.Duration, budgets, state)
	} else {
		// No prediction: only how far it got and what stopped it.
		fmt.Fprintf(&b, "with the edit: %s: %s after %d steps (%d syncs, %v simulated)\n", budgets, state, r.Steps, r.Syncs, r.Duration)
	}
	return b.String()
}

// String renders the counts in one line, the changes that occur only when
// some node has them.
func (c Counts) String() string {
	s := fmt.Sprintf("unchanged %d, gains %d, loses %d, replaced %d, outdated %d, not yet replaced %d",
		c.Unchanged, c.Gains, c.Loses, c.Replaced, c.Outdated, c.NotYetReplaced)
	if c.Keeps > 0 {
		s += fmt.Sprintf(", keeps %d", c.Keeps)
	}
	if c.DecisionChanged > 0 {
		s += fmt.Sprintf(", decision changed %d", c.DecisionChanged)
	}
	return s
}
