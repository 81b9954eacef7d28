package daemonplan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// Input is everything one sync reads. The library never changes it.
type Input struct {
	DaemonSet *api.DaemonSet
	Nodes     []api.Node
	// Pods are the pods of the DaemonSet's namespace that may belong to it:
	// those it controls and orphans. Others are ignored.
	Pods []api.Pod
	// Revisions are the ControllerRevisions of the namespace.
	Revisions []revision.Revision
	// Now is the controller's clock: availability and backoff are judged
	// at this instant.
	Now time.Time
	// Backoff is the failed-pod backoff state returned by the previous plan.
	Backoff placement.Backoff
	// ExpectationsPending reports that creates or deletes of an earlier plan
	// are not yet visible in Nodes and Pods. Upstream then only refreshes
	// the status, without advancing observedGeneration.
	ExpectationsPending bool
}

// Options are the switches of a sync. The zero value plans as upstream's
// controller does, in every supported Kubernetes version (1.34 to 1.37)
// but for the revision hash: Hash nil is [revision.DefaultHash], daemonplan's
// own; kube/kubesync gives the upstream hash of the version chosen.
type Options struct {
	// Strict refuses to plan for a DaemonSet the API server would reject:
	// Sync returns the validation errors (a field.ErrorList) instead of a
	// plan. By default such findings are reported as Plan.Warnings and the
	// plan is what the controller, which trusts the API server, would do.
	Strict bool
	// Placement sets burst limits and toleration matching.
	Placement placement.Options
	// Hash names new revisions; nil means revision.DefaultHash. The kube
	// module supplies upstream's exact hash.
	Hash revision.HashFunc
	// Progressive are the opt-in progressive-delivery extensions of the
	// rolling update (partition, update scope, pause and freeze, canary,
	// strict budgets, surge with unavailability, zone order); the zero
	// value adds none. Sync returns their validation errors, under
	// "progressive".
	Progressive rollout.Progressive
}

// RevisionWrites are the ControllerRevision writes of a plan. Each list is
// sorted by revision name.
type RevisionWrites struct {
	// Create are the revisions to create: the current template's, when no
	// revision holds it yet.
	Create []revision.Revision
	// Update holds the new state of each revision that is renumbered (the
	// current one becomes the newest) or gains its hash label.
	Update []revision.Revision
	// DeleteDuplicates names the revisions that hold the current template
	// besides the one kept: delete them in step 1, after Relabel.
	DeleteDuplicates []string
	// Delete names the old revisions beyond the history limit that no pod
	// uses (history cleanup): delete them in step 3.
	Delete []string
	// Adopt and Release name orphan revisions the DaemonSet claims, and
	// owned ones whose labels it no longer selects.
	Adopt   []string
	Release []string
}

// Plan is the outcome of one sync: every write the controller would issue,
// and what the caller keeps for the next sync. Every list is sorted (nodes
// and creates by node, pods and revisions by name); Adopt and Release are
// disjoint, and so are Delete and Keep, while an adopted pod may also be in
// Keep, Delete or Relabel. Apply it in this order, as upstream does:
//
//  1. Revisions: adopt and release, update (hash labels and renumbering),
//     create; then, when revisions duplicate the current template, adopt
//     and release pods (Adopt, Release: upstream claims the pods before it
//     relabels them), relabel pods (Relabel) and delete the duplicates
//     (Revisions.DeleteDuplicates).
//     If Status.CollisionCount differs from the input's, write the status
//     first: the next sync names the revision with the new count.
//  2. Pods: adopt and release (unless step 1 did), then create and delete.
//     A caller may create in slow-start batches
//     ([placement.SlowStartBatches]).
//  3. Revisions: delete Revisions.Delete (history cleanup).
//  4. Status: write Status unless StatusChanged is false.
//
// A plan with Errors holds exactly the writes upstream issues before its
// sync fails, and no later ones.
type Plan struct {
	// Namespace and Name name the DaemonSet planned.
	Namespace, Name string
	// Nodes is the decision for every node of the input, with its reason.
	// It is information, not a write.
	Nodes []placement.NodeDecision
	// Hash is the current revision's hash: the controller-revision-hash
	// label of new pods. Empty when history could not be constructed, and
	// also, as upstream, when the current revision is one the DaemonSet
	// does not claim and that carries no hash label (docs/history.md, H9
	// and H12): the sync then goes on with an empty hash.
	Hash string
	// Adopt names orphan pods the DaemonSet selects: set the DaemonSet as
	// their controller owner before relabelling, creating or deleting
	// pods, checking that the DaemonSet still exists with the same UID.
	Adopt []string
	// Release names owned pods whose labels the selector no longer
	// matches: remove the owner reference.
	Release []string
	// Create are the pods to create, one per entry, from the DaemonSet's
	// template with the entry's labels, tolerations and node affinity.
	Create []placement.Create
	// Delete are the pods to delete, each with its reason.
	Delete []placement.Delete
	// Keep names the pods placed on a node (docs/manage.md, M5) that this
	// plan does not delete, deletes cut by the burst limit included. It is information, not a write.
	Keep []string
	// SkippedCreates and SkippedDeletes count the creates and deletes the
	// burst limit (placement.Options.BurstReplicas) cut from this plan. A
	// later sync issues them; a caller that sees them non-zero knows the
	// plan is partial.
	SkippedCreates, SkippedDeletes int
	// Relabel are pods whose controller-revision-hash label must be
	// rewritten because their revision was a duplicate of the current one.
	// Apply them after the revision updates and creates, before
	// Revisions.DeleteDuplicates.
	Relabel []revision.PodRelabel
	// Revisions are the ControllerRevision writes.
	Revisions RevisionWrites
	// Status is the DaemonSet status to write when StatusChanged is true;
	// otherwise the input's status.
	Status api.Status
	// StatusChanged is false when upstream would skip the status write
	// (nothing changed and observedGeneration is current).
	StatusChanged bool
	// Rollout is what `kubectl rollout status` prints once Status is
	// written. Information, not a write.
	Rollout rollout.StatusText
	// Progress is what Options.Progressive decided: holds, the canary, the
	// zone order. Information, not a write; zero without extensions. An
	// aborted canary names in Progress.Canary.RollbackTo the revision to
	// roll the DaemonSet back to, which the caller does (revision.Rollback).
	Progress rollout.Progress
	// Backoff is the failed-pod backoff state: pass it as Input.Backoff to
	// the next sync.
	Backoff placement.Backoff
	// RequeueAfter, when positive, asks for another sync after that long:
	// a failed pod waiting out its backoff, or Ready pods that become
	// available after minReadySeconds. The shorter wait wins.
	RequeueAfter time.Duration
	// Warnings are what the API server would reject in the DaemonSet's
	// spec. The plan is still what the controller, which trusts the API
	// server, would do; Options.Strict refuses such specs instead.
	Warnings field.ErrorList
	// Errors are what upstream's sync would have returned. The plan then
	// holds only the writes issued before the failure (the status among
	// them); the caller should retry the sync later.
	Errors []error
}

// ErrNilDaemonSet is returned by [Sync] when [Input.DaemonSet] is nil.
var ErrNilDaemonSet = errors.New("daemonplan.Sync: Input.DaemonSet is nil")

// ErrInvalidInput is wrapped, with the [field.ErrorList] of findings, in the
// error [Sync] returns for an input that is not a snapshot of distinct
// objects (see [CheckInput]); test with errors.Is.
var ErrInvalidInput = errors.New("daemonplan.Sync: invalid input")

// CheckInput returns what makes in unfit to plan from, whatever the
// options, or nil: in.DaemonSet is not checked (see [api.Validate]), the lists
// are ([api.ValidateNodes], [api.ValidatePods], [revision.ValidateRevisions]),
// with paths rooted at the [Input] field ("pods[3].name: Duplicate value:
// "agent-x": also pods[1]"). An object listed twice would be planned twice:
// a pod listed twice would be deleted as a duplicate of itself.
func CheckInput(in Input) field.ErrorList {
	errs := api.ValidateNodes(in.Nodes)
	errs = append(errs, api.ValidatePods(in.Pods)...)
	return append(errs, revision.ValidateRevisions(in.Revisions)...)
}

// msgNoUID is the detail of the finding about a DaemonSet without a UID.
const msgNoUID = "a DaemonSet without a UID owns no pod or revision and adopts none"

// Sync runs one sync of the DaemonSet controller (upstream: syncDaemonSet;
// docs/manage.md, M1) and returns its plan:
//
//  1. defaults are applied to a copy of the DaemonSet, and it is validated:
//     findings become [Plan.Warnings] (or, with [Options.Strict], the error);
//  2. a DaemonSet whose selector selects everything (no matchLabels and no
//     matchExpressions), or that is being deleted, gets no writes at all;
//  3. revision history is constructed (docs/history.md, H6–H12);
//  4. with expectations pending, only the status is refreshed;
//  5. otherwise manage plans creates and deletes (docs/manage.md, M6–M14),
//     which [Options.Progressive]'s Freeze and PartitionedScaling may hold
//     back; when none remain and the strategy is RollingUpdate, the rolling
//     update plans its step (docs/rolling-update.md), with the extensions of
//     Options.Progressive (docs/progressive-delivery.md); then old
//     revisions are cleaned up (docs/history.md, H13);
//  6. the status is counted (docs/status.md, S1–S8) and kubectl's rollout
//     status message rendered (docs/status.md, S11).
//
// Before step 1 the input lists are checked ([CheckInput]): an input that
// lists an object twice, or names one with invalid UTF-8, is refused
// whatever the options. A DaemonSet without a UID is a finding at
// metadata.uid (Required) like the validation findings: such a DaemonSet
// owns nothing, since ownership never matches an empty UID, and adopts
// nothing.
//
// The returned error is [ErrNilDaemonSet], the validation errors of
// [Options.Progressive] (a [field.ErrorList] under "progressive"),
// [ErrInvalidInput] wrapping the field.ErrorList of [CheckInput] or, with
// [Options.Strict], the validation findings (a field.ErrorList); the [Plan] is
// then empty. Errors upstream's own sync would return are in [Plan.Errors].
//
// Sync may run in several goroutines at once. Its plan shares no memory
// with other plans, and Sync keeps no reference to in once it returns.
func Sync(in Input, opts Options) (Plan, error) {
	ws := scratch.Get().(*workspace)
	p, err := runSync(in, opts, ws)
	// The per-node lists are the Index's memory: the plan gets copies.
	p.Nodes, p.Keep = slices.Clone(p.Nodes), slices.Clone(p.Keep)
	ws.index.Forget()
	ws.src = indexSource{ManageLists: ws.src.ManageLists, PassLists: ws.src.PassLists}
	scratch.Put(ws)
	return p, err
}

// workspace is the memory a sync indexes into and folds with: a Planner's,
// or one borrowed from scratch.
type workspace struct {
	index placement.Index
	src   indexSource
}

// scratch holds the workspaces one-off Syncs use: a Sync borrows one and,
// its snapshot forgotten, gives it back, so that syncs in a row (a
// controller's many DaemonSets, a simulation's steps) reuse the memory of
// the indexes a Planner would keep, and only the plan is allocated.
var scratch = sync.Pool{New: func() any { return new(workspace) }}

// runSync is Sync, in the workspace ws.
func runSync(in Input, opts Options, ws *workspace) (Plan, error) {
	if in.DaemonSet == nil {
		return Plan{}, ErrNilDaemonSet
	}
	if errs := opts.Progressive.Validate(); len(errs) > 0 {
		return Plan{}, errs.Prefix("progressive")
	}
	ds := api.Default(in.DaemonSet)
	ix := indexInput(&ds, in, opts.Placement, &ws.index)
	if len(ix.inputErrs) > 0 {
		return Plan{}, fmt.Errorf("%w: %w", ErrInvalidInput, ix.inputErrs)
	}
	warnings := api.ValidateWith(&ds, api.ValidateOptions{
		AllowSurgeWithUnavailable: opts.Progressive.SurgeWithUnavailable,
		ComparisonOperators:       opts.Placement.Taints.ComparisonOperators,
	})
	if ds.UID == "" {
		warnings = append(warnings, field.Required(field.NewPath("metadata", "uid"), msgNoUID))
	}
	if opts.Strict && len(warnings) > 0 {
		return Plan{}, warnings
	}
	plan := syncDefaulted(&ds, in, opts, ix, ws)
	plan.Warnings = warnings
	plan.Rollout = rollout.StatusMessage(&ds, plan.Status)
	return plan, nil
}

// indexed is the snapshot indexed for the defaulted DaemonSet, or why it
// is not.
type indexed struct {
	// skip reports a DaemonSet that gets no writes (step 2 of Sync).
	skip bool
	// err is the selector's compile error; index is nil then.
	err   error
	index *placement.Index
	// inputErrs are CheckInput's findings.
	inputErrs field.ErrorList
}

// indexInput compiles ds and indexes the snapshot into index, checking the input
// lists once: Reset checks nodes and pods while it indexes them, and
// CheckInput does when there is nothing to index.
func indexInput(ds *api.DaemonSet, in Input, opts placement.Options, index *placement.Index) indexed {
	var ix indexed
	ix.skip = syncrule.SelectsAll(ds.Selector) || ds.Deleting
	var c *placement.Compiled
	if !ix.skip {
		c, ix.err = placement.Compile(ds, opts)
	}
	if c == nil {
		ix.inputErrs = CheckInput(in)
		return ix
	}
	if err := index.Reset(c, in.Nodes, in.Pods); err != nil {
		index = nil
		// Reset fails only on the node and pod lists, with the
		// field.ErrorList of api.ValidateNodes and api.ValidatePods; should
		// it ever fail otherwise, the input is still refused.
		if !errors.As(err, &ix.inputErrs) {
			ix.inputErrs = field.ErrorList{field.Invalid(field.NewPath("nodes"), nil, err.Error())}
		}
	}
	ix.index = index
	ix.inputErrs = append(ix.inputErrs, revision.ValidateRevisions(in.Revisions)...)
	return ix
}

// syncDefaulted runs steps 2–6 of Sync on the defaulted DaemonSet ds.
func syncDefaulted(dsp *api.DaemonSet, in Input, opts Options, ix indexed, ws *workspace) Plan {
	ds := *dsp
	plan := Plan{
		Namespace: ds.Namespace,
		Name:      ds.Name,
		Status:    in.DaemonSet.Status.DeepCopy(),
		Backoff:   maps.Clone(in.Backoff),
	}

	// Node decisions come from the index when there is one; the early
	// returns below decide nodes without it.
	if ix.skip {
		// Upstream records an event (SelectingAll) for the empty selector,
		// and does nothing else in either case; here the selector's
		// finding (V4.2) is in Plan.Warnings.
		plan.Nodes = decideAll(&ds, in.Nodes, opts.Placement)
		return plan
	}
	if ix.err != nil {
		plan.Nodes = decideAll(&ds, in.Nodes, opts.Placement)
		plan.Errors = append(plan.Errors, ix.err)
		return plan
	}
	index := ix.index
	plan.Nodes = index.NodeDecisions()
	hist, err := revision.Construct(&ds, in.Revisions, index.Claimed(), revision.Options{Hash: opts.Hash})
	f := foldIn{ds: &ds, given: in.DaemonSet, c: index.Compiled(), opts: opts, now: in.Now, backoff: in.Backoff,
		pending: in.ExpectationsPending, hist: hist, histErr: err, full: true}
	fold(f, func() source {
		ws.src.walk(index, in.Now, hist.Hash, in.Backoff, ds.UpdateStrategy.Type == api.RollingUpdate && opts.Progressive.IsZero())
		return &ws.src
	}, &plan)
	return plan
}

// setStatus records the status to write and whether upstream would write it
// at all, and asks for upstream's minReadySeconds resync (see
// syncrule.StatusWrite).
func (p *Plan) setStatus(st api.Status, ds *api.DaemonSet) {
	st, changed, requeue := syncrule.StatusWrite(st, ds)
	p.StatusChanged = changed
	if changed {
		p.Status = st
	}
	if requeue > 0 {
		p.requeue(requeue)
	}
}

// requeue asks for another sync no later than d.
func (p *Plan) requeue(d time.Duration) {
	if p.RequeueAfter <= 0 || d < p.RequeueAfter {
		p.RequeueAfter = d
	}
}

func decideAll(ds *api.DaemonSet, nodes []api.Node, opts placement.Options) []placement.NodeDecision {
	e := placement.NewEligibility(ds, opts)
	out := make([]placement.NodeDecision, len(nodes))
	for i := range nodes {
		out[i] = placement.NodeDecision{Node: nodes[i].Name, Decision: e.Decide(&nodes[i])}
	}
	slices.SortFunc(out, func(a, b placement.NodeDecision) int { return strings.Compare(a.Node, b.Node) })
	return out
}
