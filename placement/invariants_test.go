package placement_test

import (
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/reference"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/stretchr/testify/require"
)

// TestCheckPlanCatchesBrokenPlans makes sure the invariant checker can
// fail: each row breaks a correct plan in one way.
func TestCheckPlanCatchesBrokenPlans(t *testing.T) {
	f := &fixture{ds: newDS()}
	f.addNodes(0, 3, nil)
	f.addNodes(3, 1, nil, noExecuteTaint)
	f.addPods("node-0", simpleDaemonSetLabel, 2)
	f.addPods("node-3", simpleDaemonSetLabel, 1)
	f.addPods("node-1", simpleDaemonSetLabel, 1, func(p *api.Pod) {
		p.Controller = &api.OwnerRef{UID: "other-uid"}
	})
	s := reference.Snapshot{DaemonSet: f.ds, Nodes: f.nodes, Pods: f.pods, Now: t0, Hash: testHash}
	good, _ := f.plan(t, nil)
	require.NoError(t, reference.CheckPlan(s, good), "the unbroken plan must pass")
	require.Len(t, good.Delete, 2)

	cases := []struct {
		name    string
		reason  string
		breakIt func(p *placement.ManagePlan)
	}{
		{name: "delete dropped", reason: "the duplicate is neither deleted nor kept, and node-0 keeps two pods", breakIt: func(p *placement.ManagePlan) {
			p.Delete = p.Delete[1:]
		}},
		{name: "foreign delete", reason: "deletes a pod of another owner", breakIt: func(p *placement.ManagePlan) {
			p.Delete = append(p.Delete, placement.Delete{Pod: "node-1-pod-03", Node: "node-1", Reason: placement.Duplicate})
		}},
		{name: "missing pod", reason: "deletes a pod that does not exist", breakIt: func(p *placement.ManagePlan) {
			p.Delete = append(p.Delete, placement.Delete{Pod: "zz-ghost", Node: "node-1", Reason: placement.Duplicate})
		}},
		{name: "kept and deleted", reason: "Keep and Delete overlap", breakIt: func(p *placement.ManagePlan) {
			p.Keep = append(p.Keep, p.Delete[0].Pod)
		}},
		{name: "create dropped", reason: "node-1 should run the pod and gets nothing", breakIt: func(p *placement.ManagePlan) {
			p.Create = p.Create[1:]
		}},
		{name: "create on occupied node", reason: "node-0 already holds a pod", breakIt: func(p *placement.ManagePlan) {
			p.Create = append([]placement.Create{{Node: "node-0"}}, p.Create...)
		}},
		{name: "evicted pod kept", reason: "node-3's NoExecute taint evicts its pod", breakIt: func(p *placement.ManagePlan) {
			p.Delete = p.Delete[:1]
			p.Keep = append(p.Keep, "node-3-pod-02")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := good
			bad.Delete = append([]placement.Delete(nil), good.Delete...)
			bad.Create = append([]placement.Create(nil), good.Create...)
			bad.Keep = append([]string(nil), good.Keep...)
			tc.breakIt(&bad)
			require.Error(t, reference.CheckPlan(s, bad), tc.reason)
		})
	}
}
