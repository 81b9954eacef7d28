package daemonplan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// The fuzz targets of the whole sync. Both check, on every input, that
// the plan harms nothing (checkNeverHarms). FuzzSync builds snapshots from
// the fuzzer's bytes alone; FuzzSyncConformance starts from the snapshots
// of the conformance cases (testdata/fuzz/FuzzSyncConformance, written by
// the kube module's TestCoreFuzzSeeds -update) and mutates them.

// cloneInput deep-copies in.
func cloneInput(in daemonplan.Input) daemonplan.Input {
	out := in
	out.DaemonSet = in.DaemonSet.DeepCopy()
	out.Nodes = nil
	for _, n := range in.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	out.Pods = nil
	for _, p := range in.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	out.Revisions = nil
	for _, r := range in.Revisions {
		out.Revisions = append(out.Revisions, r.DeepCopy())
	}
	out.Backoff = maps.Clone(in.Backoff)
	return out
}

// planOpts compares plans, errors by their text.
var planOpts = cmp.Options{
	cmp.Comparer(func(a, b []error) bool { return fmt.Sprint(a) == fmt.Sprint(b) }),
}

// checkNeverHarms runs Sync on in and checks the never-harm invariants:
//
//  1. the input is not changed;
//  2. a refused sync (an error) returns the zero Plan, and an input that
//     CheckInput refuses is refused with ErrInvalidInput;
//  3. an accepted plan passes daemonplan.CheckPlan (nothing deleted,
//     released or relabelled that the DaemonSet does not claim, no
//     terminating pod adopted, no write after a failed revision history),
//     the naive reference's recount of its deletes (reference.CheckDeletes)
//     and plantest.CheckStop;
//  4. the rolling update deletes at most maxUnavailable available pods
//     (none with surge, which replaces available pods only once their new
//     pod is available), and plantest.CheckBudgets, which also counts the
//     nodes already unavailable, holds;
//  5. the same input in another order (perm) gives the same plan.
func checkNeverHarms(t *testing.T, in daemonplan.Input, opts daemonplan.Options, perm *reference.Bytes) {
	t.Helper()
	before := cloneInput(in)
	plan, err := daemonplan.Sync(in, opts)
	if d := cmp.Diff(before, in, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("Sync changed its input (-before +after):\n%s", d)
	}
	inputErrs := daemonplan.CheckInput(in)
	if err != nil {
		if d := cmp.Diff(daemonplan.Plan{}, plan, planOpts); d != "" {
			t.Fatalf("Sync failed (%v) but returned writes:\n%s", err, d)
		}
		var list field.ErrorList
		switch {
		case errors.Is(err, daemonplan.ErrInvalidInput):
			if len(inputErrs) == 0 {
				t.Fatalf("Sync refused the input (%v) but CheckInput finds nothing", err)
			}
		case opts.Strict && errors.As(err, &list):
		default:
			t.Fatalf("Sync: unexpected error %v", err)
		}
		return
	}
	if len(inputErrs) > 0 {
		t.Fatalf("Sync planned an input CheckInput refuses: %v", inputErrs)
	}
	if err := daemonplan.CheckPlanWith(in, plan, opts); err != nil {
		t.Fatalf("CheckPlan: %v", err)
	}
	// The naive reference recounts what the DaemonSet claims,
	// independently of CheckPlan; plantest.CheckStop, where a sync stops.
	deletes := make([]string, len(plan.Delete))
	for i, d := range plan.Delete {
		deletes[i] = d.Pod
	}
	if err := reference.CheckDeletes(in.DaemonSet, in.Pods, deletes); err != nil {
		t.Fatalf("reference.CheckDeletes: %v", err)
	}
	if err := plantest.CheckStop(in, plan); err != nil {
		t.Fatalf("plantest.CheckStop: %v", err)
	}
	checkUnavailableBudget(t, in, plan)
	// plantest.CheckBudgets recounts the budgets and the pods already
	// unavailable from the input alone, not from package rollout.
	if err := plantest.CheckBudgets(in, plan); err != nil {
		t.Fatalf("plantest.CheckBudgets: %v", err)
	}

	shuffled := in
	shuffled.Nodes = slices.Clone(in.Nodes)
	shuffled.Pods = slices.Clone(in.Pods)
	shuffled.Revisions = slices.Clone(in.Revisions)
	reference.Shuffle(perm, shuffled.Nodes)
	reference.Shuffle(perm, shuffled.Pods)
	reference.Shuffle(perm, shuffled.Revisions)
	again, err := daemonplan.Sync(shuffled, opts)
	if err != nil {
		t.Fatalf("Sync of the shuffled input: %v", err)
	}
	if d := cmp.Diff(plan, again, planOpts); d != "" {
		t.Fatalf("the shuffled input plans differently (-in order +shuffled):\n%s", d)
	}
}

// checkUnavailableBudget checks rule 4 of checkNeverHarms, with budgets
// resolved by package rollout against the plan's own node decisions.
func checkUnavailableBudget(t *testing.T, in daemonplan.Input, plan daemonplan.Plan) {
	t.Helper()
	ds := api.Default(in.DaemonSet)
	if ds.UpdateStrategy.Type != api.RollingUpdate {
		return
	}
	desired := 0
	for _, n := range plan.Nodes {
		if n.ShouldRun {
			desired++
		}
	}
	b, err := rollout.ResolveBudgets(&ds, desired)
	if err != nil {
		return
	}
	pods := map[string]*api.Pod{}
	for i := range in.Pods {
		if p := &in.Pods[i]; p.Namespace == ds.Namespace {
			pods[p.Name] = p
		}
	}
	available := 0
	for _, d := range plan.Delete {
		if d.Reason == placement.Outdated && api.IsAvailable(pods[d.Pod], ds.MinReadySeconds, in.Now) {
			available++
		}
	}
	limit := max(b.MaxUnavailable, 0)
	if b.Surge() {
		limit = 0
	}
	if available > limit {
		t.Fatalf("the rolling update deletes %d available pods, budget %d (surge %v): %v", available, limit, b.Surge(), plan.Delete)
	}
}

// fuzzInput builds a sync's input from bytes: reference.FuzzSnapshot's
// snapshot, revisions, and now and then a DaemonSet or owner references
// without UID, or a pod listed twice.
func fuzzInput(b *reference.Bytes) (daemonplan.Input, daemonplan.Options) {
	flags := b.Next()
	s, popts := reference.FuzzSnapshot(b)
	in := daemonplan.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods, Now: s.Now, Backoff: s.Backoff}
	in.Revisions = reference.FuzzRevisions(b, in.DaemonSet)
	if flags&1 != 0 {
		in.DaemonSet.UID = ""
	}
	if flags&2 != 0 && len(in.Pods) > 0 {
		in.Pods[0].Controller = &api.OwnerRef{Kind: "ReplicaSet"}
	}
	if flags&4 != 0 && len(in.Pods) > 0 {
		in.Pods = append(in.Pods, in.Pods[b.Intn(len(in.Pods))])
	}
	in.ExpectationsPending = flags&8 != 0
	return in, daemonplan.Options{Strict: flags&16 != 0, Placement: popts}
}

func FuzzSync(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("daemonplan"))
	f.Add([]byte{2, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := reference.NewBytes(data)
		in, opts := fuzzInput(b)
		checkNeverHarms(t, in, opts, b)
	})
}

// conformanceSnapshot is the JSON form of a conformance case's input, as
// the seeds of FuzzSyncConformance hold it.
type conformanceSnapshot struct {
	DaemonSet *api.DaemonSet
	Nodes     []api.Node
	Pods      []api.Pod
	Revisions []revision.Revision
	Now       time.Time
}

// Pools of the mutations.
var (
	mutPhases  = []api.PodPhase{api.PodRunning, api.PodPending, api.PodFailed, api.PodSucceeded, api.PodUnknown}
	mutBudgets = []*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(3), api.Percent("10%"), api.Percent("100%"),
		api.Percent("9223372036854775807%"), api.Percent("-5%"), api.Percent("x"), nil}
	mutTaints = []api.Taint{{Key: "dedicated", Value: "x", Effect: api.TaintEffectNoExecute}, {Key: "dedicated", Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}, {Key: "gpu", Effect: api.TaintEffectPreferNoSchedule}}
)

// mutate applies the operations in ops to in, two bytes each: what to
// change, and where or to what.
func mutate(in *daemonplan.Input, ops []byte) {
	ds := in.DaemonSet
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], int(ops[i+1])
		pod := func() *api.Pod {
			if len(in.Pods) == 0 {
				return nil
			}
			return &in.Pods[arg%len(in.Pods)]
		}
		node := func() *api.Node {
			if len(in.Nodes) == 0 {
				return nil
			}
			return &in.Nodes[arg%len(in.Nodes)]
		}
		switch op % 18 {
		case 0:
			if p := pod(); p != nil {
				p.Ready = !p.Ready
				p.ReadySince = in.Now.Add(-time.Duration(arg) * time.Second)
			}
		case 1:
			if p := pod(); p != nil {
				p.Phase = mutPhases[arg%len(mutPhases)]
			}
		case 2:
			if p := pod(); p != nil {
				p.Deleting = !p.Deleting
			}
		case 3:
			if len(in.Pods) > 0 {
				in.Pods = slices.Delete(in.Pods, arg%len(in.Pods), arg%len(in.Pods)+1)
			}
		case 4:
			if p := pod(); p != nil {
				switch arg % 4 {
				case 0:
					p.Controller = nil
				case 1:
					p.Controller = &api.OwnerRef{Kind: "ReplicaSet", Name: "web", UID: "rs-uid"}
				case 2:
					p.Controller = &api.OwnerRef{Kind: "ReplicaSet", Name: "web"}
				default:
					p.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
				}
			}
		case 5:
			if p := pod(); p != nil {
				p.Labels = maps.Clone(p.Labels)
				if p.Labels == nil {
					p.Labels = map[string]string{}
				}
				p.Labels[api.LabelRevisionHash] = []string{"stale", "", "h1"}[arg%3]
			}
		case 6:
			if n := node(); n != nil {
				n.Taints = append(slices.Clone(n.Taints), mutTaints[arg%len(mutTaints)])
			}
		case 7:
			if n := node(); n != nil {
				n.Taints, n.Labels = nil, nil
			}
		case 8:
			if len(in.Nodes) > 0 {
				in.Nodes = slices.Delete(in.Nodes, arg%len(in.Nodes), arg%len(in.Nodes)+1)
			}
		case 9:
			ds.Template.Labels = maps.Clone(ds.Template.Labels)
			if ds.Template.Labels == nil {
				ds.Template.Labels = map[string]string{}
			}
			ds.Template.Labels["fuzz"] = fmt.Sprint(arg % 3)
			ds.TemplateData = append(slices.Clone(ds.TemplateData), byte(' '+arg%3))
			ds.Generation++
		case 10:
			if arg%4 == 0 {
				ds.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
			} else {
				ds.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
					MaxUnavailable: mutBudgets[arg%len(mutBudgets)], MaxSurge: mutBudgets[(arg/9)%len(mutBudgets)]}}
			}
		case 11:
			ds.UID = ""
		case 12:
			ds.Deleting = !ds.Deleting
		case 13:
			in.Now = in.Now.Add(time.Duration(arg) * 7 * time.Second)
		case 14:
			if len(in.Revisions) > 0 {
				r := &in.Revisions[arg%len(in.Revisions)]
				switch arg % 3 {
				case 0:
					r.Controller = nil
				case 1:
					r.Data = append(slices.Clone(r.Data), ' ')
				default:
					in.Revisions = slices.Delete(in.Revisions, arg%len(in.Revisions), arg%len(in.Revisions)+1)
				}
			}
		case 15:
			ds.MinReadySeconds = int32(arg) - 8
		case 16:
			if p := pod(); p != nil {
				in.Pods = append(in.Pods, *p)
			}
		case 17:
			switch arg % 3 {
			case 0:
				ds.Selector = nil
			case 1:
				ds.Selector = &api.LabelSelector{}
			default:
				ds.Selector = &api.LabelSelector{MatchLabels: map[string]string{"fuzz": fmt.Sprint(arg % 2)}}
			}
		}
	}
}

func FuzzSyncConformance(f *testing.F) {
	f.Fuzz(func(t *testing.T, snapshot, ops []byte) {
		var s conformanceSnapshot
		if err := json.Unmarshal(snapshot, &s); err != nil || s.DaemonSet == nil {
			return
		}
		in := daemonplan.Input{DaemonSet: s.DaemonSet, Nodes: s.Nodes, Pods: s.Pods, Revisions: s.Revisions, Now: s.Now}
		mutate(&in, ops)
		checkNeverHarms(t, in, daemonplan.Options{}, reference.NewBytes(ops))
	})
}
