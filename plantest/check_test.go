package plantest_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/stretchr/testify/require"
)

// clonePlan copies the lists a test breaks, so that rows do not share
// them.
func clonePlan(p daemonplan.Plan) daemonplan.Plan {
	p.Create = slices.Clone(p.Create)
	p.Delete = slices.Clone(p.Delete)
	p.Adopt = slices.Clone(p.Adopt)
	p.Release = slices.Clone(p.Release)
	p.Relabel = slices.Clone(p.Relabel)
	p.Revisions.Delete = slices.Clone(p.Revisions.Delete)
	p.Revisions.DeleteDuplicates = slices.Clone(p.Revisions.DeleteDuplicates)
	p.Errors = slices.Clone(p.Errors)
	return p
}

// TestCheckersCatchBrokenPlans feeds each checker a plan of the real
// planner broken in one way, and asserts that it names the invariant the
// break violates: the checkers can fail.
func TestCheckersCatchBrokenPlans(t *testing.T) {
	unavailable := midUpdate(4, 1, 0, true)
	surge := midUpdate(4, 0, 1, false)
	dup := midUpdate(2, 1, 0, false)
	second := dup.Pods[0]
	second.Name, second.Created = "old-node-0-b", second.Created.Add(1)
	dup.Pods = append(slices.Clone(dup.Pods), second)
	deleting := midUpdate(2, 1, 0, false)
	deleting.DaemonSet = deleting.DaemonSet.DeepCopy()
	deleting.DaemonSet.Deleting = true

	cases := []struct {
		name    string
		reason  string
		in      daemonplan.Input
		breakIt func(in daemonplan.Input, p *daemonplan.Plan)
		want    plantest.Invariant
	}{
		{name: "foreign delete", reason: "the pod belongs to another controller", in: unavailable, want: plantest.Ownership,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Delete = append(p.Delete, placement.Delete{Pod: "foreign", Node: "node-0", Reason: placement.Duplicate})
			}},
		{name: "foreign release", reason: "the DaemonSet does not control the pod", in: unavailable, want: plantest.Ownership,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) { p.Release = append(p.Release, "foreign") }},
		{name: "foreign relabel", reason: "the DaemonSet does not claim the pod", in: unavailable, want: plantest.Ownership,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Relabel = append(p.Relabel, revision.PodRelabel{Pod: "foreign", Hash: p.Hash})
			}},
		{name: "ghost delete", reason: "the pod does not exist", in: unavailable, want: plantest.Ownership,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Delete = append(p.Delete, placement.Delete{Pod: "ghost", Node: "node-1", Reason: placement.Duplicate})
			}},
		{name: "unsorted list", reason: "Keep is listed by pod name", in: unavailable, want: plantest.Sorted,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) { slices.Reverse(p.Keep) }},
		{name: "create on a ghost node", reason: "node-9 is not in the input", in: unavailable, want: plantest.Eligibility,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Create = append(p.Create, placement.Create{Node: "node-9"})
			}},
		{name: "maxUnavailable exceeded", reason: "maxUnavailable 1 allows one available old pod down, not two", in: unavailable, want: plantest.MaxUnavailable,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Delete = append(p.Delete, placement.Delete{Pod: "old-node-3", Node: "node-3", Reason: placement.Outdated})
			}},
		{name: "maxSurge exceeded", reason: "maxSurge 1 allows one new pod beside an available old one, not two", in: surge, want: plantest.MaxSurge,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Create = append(p.Create, placement.Create{Node: "node-3"})
			}},
		{name: "surge deletes without surplus", reason: "every available pod is needed: deleting one drops availability below 100%", in: surge, want: plantest.Surplus,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Delete = append(p.Delete, placement.Delete{Pod: "old-node-2", Node: "node-2", Reason: placement.Unschedulable})
			}},
		{name: "status miscounted", reason: "two of four nodes hold a ready pod... the plan says three", in: unavailable, want: plantest.StatusRecount,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) { p.Status.NumberReady-- }},
		{name: "status write skipped", reason: "the observed generation is behind: upstream writes the status", in: unavailable, want: plantest.StatusRecount,
			breakIt: func(in daemonplan.Input, p *daemonplan.Plan) { p.StatusChanged, p.Status = false, in.DaemonSet.Status }},
		{name: "two pods left on a node", reason: "node-0 holds two running pods and the plan deletes neither", in: dup, want: plantest.PodsPerNode,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) { p.Delete = nil }},
		{name: "create on an errored sync", reason: "a failed sync issues no create", in: unavailable, want: plantest.Stop,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Errors = []error{errors.New("boom")}
				p.Create = []placement.Create{{Node: "node-0"}}
			}},
		{name: "history cleaned on an errored sync", reason: "cleanup runs only at the end of a sync that did not fail", in: unavailable, want: plantest.Stop,
			breakIt: func(in daemonplan.Input, p *daemonplan.Plan) {
				p.Errors = []error{errors.New("boom")}
				p.Revisions.Delete = []string{in.Revisions[0].Name}
			}},
		{name: "writes for a DaemonSet being deleted", reason: "upstream returns before any write", in: deleting, want: plantest.Stop,
			breakIt: func(_ daemonplan.Input, p *daemonplan.Plan) {
				p.Delete = []placement.Delete{{Pod: "old-node-0", Node: "node-0", Reason: placement.Outdated}}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			good := mustSync(tc.in)
			require.NoError(t, plantest.CheckSync(tc.in, good), "the unbroken plan must pass")
			bad := clonePlan(good)
			tc.breakIt(tc.in, &bad)
			err := plantest.CheckSync(tc.in, bad)
			require.True(t, plantest.Violated(err, tc.want), "%s: want a %v violation, got %v", tc.reason, tc.want, err)
		})
	}
}

// TestCheckConvergedCatchesTwoPods: a settled-looking cluster whose node
// holds two pods is not converged; one pod per node is.
func TestCheckConvergedCatchesTwoPods(t *testing.T) {
	in := midUpdate(2, 1, 0, false)
	in.DaemonSet = in.DaemonSet.DeepCopy()
	in.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
	p := mustSync(in)
	require.NoError(t, plantest.CheckConverged(in, p), "one available pod per node is converged under OnDelete")

	second := in.Pods[1]
	second.Name = "old-node-1-b"
	in.Pods = append(slices.Clone(in.Pods), second)
	err := plantest.CheckConverged(in, p)
	require.True(t, plantest.Violated(err, plantest.Converged), "node-1 holds two pods: got %v", err)

	rolling := midUpdate(2, 1, 0, false)
	err = plantest.CheckConverged(rolling, mustSync(rolling))
	require.True(t, plantest.Violated(err, plantest.Converged), "RollingUpdate pods of the old revision are not converged: got %v", err)
}

// TestCheckPermutationCatchesOrderDependence: a planner that lists node
// decisions in input order, not by name, is caught; Sync is not.
func TestCheckPermutationCatchesOrderDependence(t *testing.T) {
	in := midUpdate(3, 1, 0, false)
	permuted := in
	permuted.Nodes = slices.Clone(in.Nodes)
	slices.Reverse(permuted.Nodes)
	require.NoError(t, plantest.CheckPermutation(sync, in, permuted))

	inputOrder := func(in daemonplan.Input) (daemonplan.Plan, error) {
		p, err := sync(in)
		for i := range p.Nodes {
			p.Nodes[i].Node = in.Nodes[i].Name
		}
		return p, err
	}
	err := plantest.CheckPermutation(inputOrder, in, permuted)
	require.True(t, plantest.Violated(err, plantest.Determinism), "got %v", err)
}

// TestCheckStepsNamesTheStep: a broken step in a sequence is reported
// with its index.
func TestCheckStepsNamesTheStep(t *testing.T) {
	in := midUpdate(3, 1, 0, false)
	good := mustSync(in)
	bad := clonePlan(good)
	bad.Status.NumberAvailable++
	err := plantest.CheckSteps([]plantest.SyncStep{{Input: in, Plan: good}, {Input: in, Plan: bad}})
	var vs plantest.Findings
	require.ErrorAs(t, err, &vs)
	require.NotEmpty(t, vs)
	for _, v := range vs {
		require.Equal(t, plantest.StatusRecount, v.Invariant)
		require.Contains(t, v.Detail, "step 1: ")
	}
}
