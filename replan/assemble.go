package replan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// Plan returns the plan a Sync of the [Tracker]'s state returns, without
// the two lists that name every node or pod (Plan.Nodes and Plan.Keep are
// nil): its cost depends on the writes of the plan, not on the size of
// the cluster. The error is Sync's.
func (p *Tracker) Plan() (daemonplan.Plan, error) { return p.plan(false) }

// FullPlan returns exactly the plan daemonplan.Sync(p.Input(), opts)
// returns, Nodes and Keep included. It costs O(n log n).
func (p *Tracker) FullPlan() (daemonplan.Plan, error) { return p.plan(true) }

func (p *Tracker) plan(full bool) (daemonplan.Plan, error) {
	progressive := !p.opts.Progressive.IsZero()
	if !progressive && !p.invalid() && p.opts.Strict && len(p.warnings) > 0 {
		return daemonplan.Plan{}, slices.Clone(p.warnings)
	}
	if progressive || p.invalid() || p.c == nil || len(p.dds.Template.Labels) == 0 {
		// Cases planned by a whole sync: the progressive extensions of the
		// rolling update (whose budgets span update groups), and cases a
		// sync rarely meets: an input it refuses or a DaemonSet without a
		// UID, no index at all, or a template without labels (whose pods
		// may have none, which fails their creation).
		plan, err := daemonplan.Sync(p.Input(), p.opts)
		if !full {
			plan.Nodes, plan.Keep = nil, nil
		}
		return plan, err
	}
	plan := p.assemble(full)
	plan.Rollout = rollout.StatusMessage(&p.dds, plan.Status)
	return plan, nil
}

// assemble builds the plan of a sync that indexes the cluster, as
// daemonplan.Sync does from step 3 on, but for the rollout status text.
func (p *Tracker) assemble(full bool) daemonplan.Plan {
	in := p.ds
	plan := daemonplan.Plan{
		Namespace: p.dds.Namespace,
		Name:      p.dds.Name,
		Status:    in.Status.DeepCopy(),
		Backoff:   maps.Clone(p.backoff),
		Warnings:  slices.Clone(p.warnings),
	}
	if full {
		plan.Nodes = make([]placement.NodeDecision, 0, p.nodes.n)
		p.nodes.each(fReal, func(ns *nodeState) bool {
			plan.Nodes = append(plan.Nodes, placement.NodeDecision{Node: ns.name, Decision: ns.decision})
			return true
		})
	}

	h := p.hist
	plan.Revisions = daemonplan.RevisionWrites{
		Create: deepCopies(h.Create), Update: deepCopies(h.Update),
		DeleteDuplicates: slices.Clone(h.DeleteDuplicates), Adopt: slices.Clone(h.Adopt), Release: slices.Clone(h.Release),
	}
	plan.Relabel = slices.Clone(h.RelabelPods)
	if p.histErr != nil {
		plan.Status.CollisionCount = copyCount(h.CollisionCount)
		plan.StatusChanged = !syncrule.EqualCount(h.CollisionCount, in.Status.CollisionCount)
		plan.Errors = append(plan.Errors, fmt.Errorf("failed to construct revisions of DaemonSet: %w", p.histErr))
		return plan
	}
	plan.Hash = p.hash
	plan.Adopt, plan.Release = p.adopt.list(), p.release.list()

	if p.pending {
		st := p.status()
		st.ObservedGeneration = in.Status.ObservedGeneration
		setStatus(&plan, st, in)
		return plan
	}

	p.manage(&plan)
	if p.tot.creates == 0 && p.tot.deletes == 0 && p.dds.UpdateStrategy.Type == api.RollingUpdate {
		if err := p.rollingUpdate(&plan); err != nil {
			plan.Errors = append(plan.Errors, err)
		}
	}
	if len(plan.Errors) == 0 {
		plan.Revisions.Delete = p.cleanup()
	}
	if full {
		plan.Keep = p.keep(plan.Delete)
	}
	setStatus(&plan, p.status(), in)
	return plan
}

// manage assembles manage's part of the plan from the node summaries:
// creates on the first nodes by name, deletes in visiting order (nodes of
// the list by name, then vanished ones), each cut to the burst limit.
func (p *Tracker) manage(plan *daemonplan.Plan) {
	burst := p.opts.Placement.Burst()
	var creates []string
	p.nodes.each(fCreate, func(ns *nodeState) bool {
		creates = append(creates, ns.name)
		return len(creates) < burst
	})
	plan.SkippedCreates = max(p.tot.creates-burst, 0)
	var deletes []placement.Delete
	for _, flag := range []uint32{fDelete, fGone} {
		p.nodes.each(flag, func(ns *nodeState) bool {
			deletes = append(deletes, ns.sum.deletes[:min(len(ns.sum.deletes), burst-len(deletes))]...)
			return len(deletes) < burst
		})
		if len(deletes) == burst {
			break
		}
	}
	plan.SkippedDeletes = max(p.tot.deletes-burst, 0)
	slices.SortFunc(deletes, byPod)
	plan.Create = p.c.CreatesFor(creates, p.hash)
	plan.Delete = deletes

	backoff := maps.Clone(p.backoff)
	if backoff == nil {
		backoff = placement.Backoff{}
	}
	p.nodes.each(fBackoff, func(ns *nodeState) bool {
		backoff[p.c.BackoffKey(ns.name)] = ns.sum.backoff
		return true
	})
	for k, e := range backoff {
		// Idle windows go, as placement.Index.Manage drops them.
		if p.now.Sub(e.LastUpdate) > 2*placement.BackoffMax {
			delete(backoff, k)
		}
	}
	plan.Backoff = backoff
	plan.RequeueAfter = 0
	p.nodes.each(fRequeue, func(ns *nodeState) bool {
		if r := ns.sum.requeue; plan.RequeueAfter == 0 || r < plan.RequeueAfter {
			plan.RequeueAfter = r
		}
		return true
	})
}

// rollingUpdate assembles the rolling update's step from the node
// classes (rollout.Classifier.Classify) and their sums
// (rollout.Budgets.Quota), as rollout.RollingUpdate does in one pass: the
// nodes of each action, taken in name order (docs/rolling-update.md).
func (p *Tracker) rollingUpdate(plan *daemonplan.Plan) error {
	b, err := rollout.ResolveBudgets(&p.dds, p.tot.desired)
	if err != nil {
		return err
	}
	burst := p.opts.Placement.Burst()
	t := &p.tot
	var creates []string
	var deletes []placement.Delete
	// take appends, in name order, up to n entries of the nodes carrying
	// flag, within the burst limit of out.
	takeDeletes := func(flag uint32, n int, why func(*nodeState) placement.DeleteReason) {
		if n <= 0 {
			return
		}
		p.nodes.each(flag, func(ns *nodeState) bool {
			if len(deletes) == burst || n == 0 {
				return false
			}
			deletes = append(deletes, placement.Delete{Pod: ns.sum.oldPod.Name, Node: ns.name, Reason: why(ns)})
			n--
			return true
		})
	}
	takeCreates := func(flag uint32, n int) {
		if n <= 0 {
			return
		}
		p.nodes.each(flag, func(ns *nodeState) bool {
			if len(creates) == burst || n == 0 {
				return false
			}
			creates = append(creates, ns.name)
			n--
			return true
		})
	}
	reason := func(ns *nodeState) placement.DeleteReason { return ns.sum.roll.Surge.DeleteReason() }
	outdated := func(*nodeState) placement.DeleteReason { return placement.Outdated }
	var wantCreates, wantDeletes int
	if !b.Surge() {
		q := b.Quota(t.roll, false, false)
		forced := t.count(fForced)
		if n := min(forced+q.Candidates, burst); n > 0 {
			deletes = make([]placement.Delete, 0, n)
		}
		takeDeletes(fForced, forced, outdated)
		takeDeletes(fCand, q.Candidates, outdated)
		wantDeletes = forced + q.Candidates
	} else {
		if t.count(fSErr) > 0 {
			var name string
			p.nodes.each(fSErr, func(ns *nodeState) bool { name = ns.name; return false })
			return &rollout.MissingNodeError{Node: name}
		}
		q := b.Quota(t.rollSurge, true, false)
		now := t.count(fSDelete)
		takeDeletes(fSDelete, now, reason)
		takeDeletes(fSUnsched, q.Surplus, reason)
		wantDeletes = now + q.Surplus
		allowed := t.count(fSAllowed)
		takeCreates(fSAllowed, allowed)
		takeCreates(fSCand, q.Candidates)
		wantCreates = allowed + q.Candidates
	}
	slices.Sort(creates)
	slices.SortFunc(deletes, byPod)
	plan.Create = p.c.CreatesFor(creates, p.hash)
	plan.Delete = deletes
	plan.SkippedCreates = max(wantCreates-burst, 0)
	plan.SkippedDeletes = max(wantDeletes-burst, 0)
	return nil
}

// cleanup is revision.Cleanup over the claimed pods with a target node,
// each revision hash they carry standing for them all.
func (p *Tracker) cleanup() []string {
	limit := api.DefaultRevisionHistoryLimit
	if p.dds.RevisionHistoryLimit != nil {
		limit = int(*p.dds.RevisionHistoryLimit)
	}
	if len(p.hist.Old) <= limit {
		return nil
	}
	live := make([]*api.Pod, 0, len(p.hashes))
	for h := range p.hashes {
		live = append(live, &api.Pod{Labels: map[string]string{api.LabelRevisionHash: h}})
	}
	return revision.Cleanup(&p.dds, p.hist.Old, live)
}

// keep lists, sorted, the bucketed pods deletes does not name.
func (p *Tracker) keep(deletes []placement.Delete) []string {
	gone := make(map[string]bool, len(deletes))
	for _, d := range deletes {
		gone[d.Pod] = true
	}
	out := []string{}
	p.nodes.all(func(ns *nodeState) {
		for _, pod := range ns.pods {
			if !gone[pod.Name] {
				out = append(out, pod.Name)
			}
		}
	})
	slices.Sort(out)
	return out
}

// status is placement.Index.Status from the totals.
func (p *Tracker) status() api.Status {
	t := &p.tot
	return api.Status{
		CurrentNumberScheduled: int32(t.current),
		NumberMisscheduled:     int32(t.misscheduled),
		DesiredNumberScheduled: int32(t.desired),
		NumberReady:            int32(t.ready),
		ObservedGeneration:     p.dds.Generation,
		UpdatedNumberScheduled: int32(t.updated),
		NumberAvailable:        int32(t.available),
		NumberUnavailable:      int32(t.desired - t.available),
		CollisionCount:         copyCount(p.dds.Status.CollisionCount),
	}
}

// setStatus records the status to write and whether upstream writes it,
// and asks for the minReadySeconds resync, as Sync does
// (syncrule.StatusWrite).
func setStatus(plan *daemonplan.Plan, st api.Status, ds *api.DaemonSet) {
	st, changed, requeue := syncrule.StatusWrite(st, ds)
	plan.StatusChanged = changed
	if changed {
		plan.Status = st
	}
	if requeue > 0 && (plan.RequeueAfter <= 0 || requeue < plan.RequeueAfter) {
		plan.RequeueAfter = requeue
	}
}

func byPod(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) }

func deepCopies(rs []revision.Revision) []revision.Revision {
	if rs == nil {
		return nil
	}
	out := make([]revision.Revision, len(rs))
	for i := range rs {
		out[i] = rs[i].DeepCopy()
	}
	return out
}

func copyCount(c *int32) *int32 {
	if c == nil {
		return nil
	}
	n := *c
	return &n
}
