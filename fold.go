package daemonplan

import (
	"fmt"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// A sync is one per-node computation and one fold of its results, as
// Nomad's scheduler computes each node and appends the results:
//
//   - summarize decides one node alone: its part of manage
//     (placement.Compiled.ManageNode), of the status counters
//     (placement.Compiled.CountNode) and its rolling-update class
//     (rollout.Classifier.Classify);
//   - fold turns the summaries into the plan, in the sync's step order,
//     through the one manage assembly (placement.Compiled.AssembleManage)
//     and the one rolling-update assembly (rollout.AssembleStep), which
//     read "the first n nodes of a kind, in name order".
//
// Two sources feed the fold: a walk over a placement.Index (Sync, Planner:
// indexSource) and the Tracker's node list, which keeps every node's
// summary between events.

// nodeSummary is what one node contributes to a plan. Manage and the
// rolling update decide each node alone; only the budgets and the burst
// limit, applied by the fold, look at all of them.
type nodeSummary struct {
	manage placement.NodeManage
	count  placement.NodeCount
	// class is the node's class in both passes of the rolling update (which
	// one runs depends on maxSurge scaled against the desired count of all
	// nodes), oldPod the old pod it speaks of.
	class  rollout.Class
	oldPod string
}

// summarize computes what a node contributes to a sync: present is false
// for a vanished node (d is then the zero Decision), pods its bucket oldest
// first, updated(j) whether pods[j] carries the current revision. Manage's
// deletes are appended to dst (docs/manage.md, docs/status.md,
// docs/rolling-update.md). With classify false the node's class is left
// zero: a caller that knows the rolling update will not run this sync
// saves it.
func summarize(c *placement.Compiled, cls *rollout.Classifier, name string, present bool, d placement.Decision,
	pods []*api.Pod, updated func(j int) bool, hash string, backoff placement.Backoff, dst []placement.Delete, classify bool) nodeSummary {
	var s nodeSummary
	if present {
		s.manage = c.ManageNode(dst, name, d, pods, cls.Now, hash, backoff)
		s.count = c.CountNode(d, pods, len(pods) > 0 && updated(0), cls.Now)
	} else {
		s.manage = c.ManageVanished(dst, name, pods)
	}
	// The rolling update visits the nodes that should run the pod or hold
	// one, and decides each alone.
	if classify && ((present && d.ShouldRun) || len(pods) > 0) {
		n := rollout.NodeView{Name: name, Present: present, Desired: present && d.ShouldRun, Allowed: true}
		n.SetPods(pods, updated)
		s.class = cls.Classify(&n)
		if n.Old != nil {
			s.oldPod = n.Old.Name
		}
	}
	return s
}

// source is a sync's nodes as the fold reads them: manage's and the rolling
// update's per-node results by kind, and the rest of what the plan takes
// from every node.
type source interface {
	placement.ManageSource
	rollout.PassSource
	// counts sums the nodes' status counters.
	counts() placement.NodeCount
	// adoptRelease lists, sorted, the pods adopted and released.
	adoptRelease() (adopt, release []string)
	// live are the claimed pods with a target node: the revisions they
	// carry are kept by history cleanup (revision.Cleanup).
	live() []*api.Pod
	// keep lists, sorted, the bucketed pods deletes does not name; called
	// only for a full plan.
	keep(deletes []placement.Delete) []string
	// view is the source's nodes as the progressive extensions read
	// them: every node at once.
	view() rollout.Nodes
}

// foldIn is what the fold reads besides the nodes.
type foldIn struct {
	ds    *api.DaemonSet // defaulted
	given *api.DaemonSet // as given: its status is the one written over
	c     *placement.Compiled
	opts  Options
	now   time.Time
	// backoff is the input's failed-pod backoff state.
	backoff placement.Backoff
	pending bool
	hist    revision.History
	histErr error
	// full asks for Plan.Keep.
	full bool
}

// fold builds a sync's plan from the revision history on (steps 3–6 of
// [Sync]) into plan, whose Namespace, Name, Status, Backoff, Nodes and
// Warnings the caller has set. src is consulted only when the history was
// constructed.
func fold(f foldIn, src func() source, plan *Plan) {
	ds, h := f.ds, &f.hist
	// Upstream constructs history before it lists (and so claims) pods: when
	// construction fails, no pod is adopted or released. Only the revision
	// writes issued before the failure remain.
	plan.Revisions = RevisionWrites{Create: h.Create, Update: h.Update, DeleteDuplicates: h.DeleteDuplicates, Adopt: h.Adopt, Release: h.Release}
	plan.Relabel = h.RelabelPods
	if f.histErr != nil {
		plan.Status.CollisionCount = h.CollisionCount
		plan.StatusChanged = !syncrule.EqualCount(h.CollisionCount, f.given.Status.CollisionCount)
		plan.Errors = append(plan.Errors, fmt.Errorf("failed to construct revisions of DaemonSet: %w", f.histErr))
		return
	}
	hash := h.Hash
	plan.Hash = hash
	s := src()
	plan.Adopt, plan.Release = s.adoptRelease()

	if f.pending {
		st := f.c.Status(s.counts())
		st.ObservedGeneration = f.given.Status.ObservedGeneration
		plan.setStatus(st, f.given)
		return
	}

	prog := f.opts.Progressive
	mp, err := f.c.AssembleManage(s, f.now, hash, f.backoff)
	if !prog.IsZero() {
		mp, plan.Progress.HeldCreates = prog.Manage(s.view(), hash, mp, f.backoff)
		if prog.Freeze {
			plan.Progress.Held = rollout.Frozen
		}
	}
	plan.Create, plan.Delete, plan.Backoff, plan.RequeueAfter = mp.Create, mp.Delete, mp.Backoff, mp.RequeueAfter
	plan.SkippedCreates, plan.SkippedDeletes = mp.SkippedCreates, mp.SkippedDeletes
	if err != nil {
		plan.Errors = append(plan.Errors, err)
	} else {
		if len(mp.Create) == 0 && len(mp.Delete) == 0 && ds.UpdateStrategy.Type == api.RollingUpdate {
			step, p, err := rollingUpdate(f, s, hash)
			p.HeldCreates = plan.Progress.HeldCreates
			plan.Progress = p
			if p.Canary != nil && p.Canary.Phase == rollout.PhaseAborted {
				p.Canary.RollbackTo, p.Canary.RollbackHash = prog.Canary.RollbackTarget(h.Old)
			}
			if err != nil {
				plan.Errors = append(plan.Errors, err)
			} else {
				plan.Create, plan.Delete = step.Create, step.Delete
				plan.SkippedCreates, plan.SkippedDeletes = step.SkippedCreates, step.SkippedDeletes
				if len(step.Create) > 0 && len(step.Create[0].Labels) == 0 {
					// Surge pods that would have no label: upstream's
					// createPods refuses each, as in manage.
					plan.Errors = append(plan.Errors, placement.ErrNoLabels)
					plan.SkippedCreates += len(plan.Create)
					plan.Create = nil
				}
			}
		}
		if len(plan.Errors) == 0 && len(h.Old) > revision.HistoryLimit(ds) {
			plan.Revisions.Delete = revision.Cleanup(ds, h.Old, s.live())
		}
	}
	if f.full {
		plan.Keep = s.keep(plan.Delete)
	}
	plan.setStatus(f.c.Status(s.counts()), f.given)
}

// rollingUpdate is the rolling update's step: the upstream pass assembled
// from the source's classes, or the progressive extensions' pass, which
// ranks zones, picks canaries and cuts partitions over every node at once.
func rollingUpdate(f foldIn, s source, hash string) (rollout.Step, rollout.Progress, error) {
	if !f.opts.Progressive.IsZero() {
		return rollout.RollingUpdateOf(s.view(), f.now, hash, f.opts.Progressive)
	}
	b, err := rollout.ResolveBudgets(f.ds, s.counts().Desired)
	if err != nil {
		return rollout.Step{Budgets: b}, rollout.Progress{}, err
	}
	step, err := rollout.AssembleStep(f.c, s, b, hash, false)
	return step, rollout.Progress{}, err
}

// indexSource is a sync's nodes walked once over an Index: every node's
// summary folded into the kinds the assemblies read, as many of each as
// they can read.
type indexSource struct {
	ix *placement.Index
	placement.ManageLists
	rollout.PassLists
	count placement.NodeCount
	dst   []placement.Delete
}

// walk summarizes every bucket of ix (nodes and vanished nodes, in name
// order) at now with the current revision's hash. The upstream pass's
// classes are read only when manage writes nothing (fold), so the walk
// classifies nodes only while no node has a manage write, and only when
// upstream's pass could run: a RollingUpdate strategy without progressive
// extensions (whose passes classify for themselves).
func (s *indexSource) walk(ix *placement.Index, now time.Time, hash string, backoff placement.Backoff, upstreamPass bool) {
	c := ix.Compiled()
	s.ix, s.count = ix, placement.NodeCount{}
	burst := c.Options().Burst()
	s.ManageLists.Reset(burst)
	s.PassLists.Reset(burst)
	cls := rollout.Classifier{MinReadySeconds: c.DaemonSet().MinReadySeconds, Now: now}
	decisions := ix.NodeDecisions()
	i, classify := 0, upstreamPass
	for b := range ix.Buckets(hash) {
		var d placement.Decision
		if b.Present {
			d = decisions[i].Decision
			i++
		}
		ns := summarize(c, &cls, b.Node, b.Present, d, b.Pods, b.Updated, hash, backoff, s.dst[:0], classify)
		s.ManageLists.Add(b.Node, b.Present, &ns.manage)
		if classify {
			s.PassLists.Add(b.Node, ns.oldPod, ns.class)
			classify = !ns.manage.Create && len(ns.manage.Delete) == 0
		}
		s.count.Add(ns.count, 1)
		if cap(ns.manage.Delete) > cap(s.dst) {
			s.dst = ns.manage.Delete[:0]
		}
	}
}

func (s *indexSource) counts() placement.NodeCount { return s.count }
func (s *indexSource) adoptRelease() (adopt, release []string) {
	return s.ix.Adopt(), s.ix.Release()
}
func (s *indexSource) live() []*api.Pod                         { return s.ix.Targeted() }
func (s *indexSource) keep(deletes []placement.Delete) []string { return s.ix.Keep(deletes) }
func (s *indexSource) view() rollout.Nodes                      { return rollout.IndexNodes(s.ix) }
