package daemonplan_test

import (
	"errors"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/taints"
)

// TestCheckPlanDuplicateRevisionDeletes: Revisions.DeleteDuplicates is a
// delete like Revisions.Delete, and CheckPlan holds it to the same rules:
// only revisions the DaemonSet controls, and none for a DaemonSet being
// deleted. Each row breaks a plan Sync made and passes CheckPlan.
func TestCheckPlanDuplicateRevisionDeletes(t *testing.T) {
	foreign := revision.Revision{Namespace: "ns", Name: "other-1", Revision: 1,
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"}}
	own := revision.Revision{Namespace: "ns", Name: "agent-old", Revision: 1, Data: []byte(`{"old":true}`),
		Labels:     map[string]string{"app": "agent", api.LabelRevisionHash: "old"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}}
	tests := []struct {
		name, reason string
		deleting     bool
		dup          string
	}{
		{"foreign revision", "another controller's revision is never the DaemonSet's to delete", false, "other-1"},
		{"DaemonSet being deleted", "a DaemonSet being deleted writes nothing but its status", true, "agent-old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harmInput()
			in.DaemonSet.Deleting = tt.deleting
			in.Revisions = []revision.Revision{own, foreign}
			p, err := daemonplan.Sync(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := daemonplan.CheckPlan(in, p); err != nil {
				t.Fatalf("Sync's own plan fails CheckPlan: %v", err)
			}
			p.Revisions.DeleteDuplicates = []string{tt.dup}
			if err := daemonplan.CheckPlan(in, p); err == nil {
				t.Errorf("CheckPlan accepts Revisions.DeleteDuplicates %v (%s)", p.Revisions.DeleteDuplicates, tt.reason)
			}
		})
	}
}

// TestCheckPlanClaimsBySelector: CheckPlan claims pods and revisions as
// upstream's ClaimObject does, by controller and selector both: a pod the
// DaemonSet controls but no longer selects is released, never deleted or
// relabelled; a pod it still selects is not released; an orphan revision
// is adopted only if the selector matches it. Each row breaks a plan Sync
// made, which passes CheckPlan, and wants a violation of the rule named.
func TestCheckPlanClaimsBySelector(t *testing.T) {
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "ds-uid"}
	unselected := api.Pod{Namespace: "ns", Name: "agent-gone", UID: "pod-gone", Labels: map[string]string{"app": "web"},
		Controller: owner, NodeName: "node-1", Phase: api.PodRunning}
	stray := revision.Revision{Namespace: "ns", Name: "web-1", Revision: 1, Labels: map[string]string{"app": "web"}}
	own := revision.Revision{Namespace: "ns", Name: "agent-old", Revision: 1, Data: []byte(`{"old":true}`),
		Labels: map[string]string{"app": "agent", api.LabelRevisionHash: "old"}, Controller: owner}
	ownUnselected := revision.Revision{Namespace: "ns", Name: "agent-web", Revision: 2, Data: []byte(`{"web":true}`),
		Labels: map[string]string{"app": "web"}, Controller: owner}
	tests := []struct {
		name, reason string
		rule         int
		breakIt      func(p *daemonplan.Plan)
	}{
		{"delete of an unselected pod", "the selector no longer matches it: upstream releases it", 3,
			func(p *daemonplan.Plan) {
				p.Delete = append(p.Delete, placement.Delete{Pod: "agent-gone", Node: "node-1", Reason: placement.Duplicate})
			}},
		{"relabel of an unselected pod", "a pod the DaemonSet releases is not its to relabel", 3,
			func(p *daemonplan.Plan) { p.Relabel = []revision.PodRelabel{{Pod: "agent-gone", Hash: p.Hash}} }},
		{"release of a selected pod", "the selector still matches it", 2,
			func(p *daemonplan.Plan) { p.Release = []string{"agent-x"} }},
		{"adopt of an unselected revision", "the selector does not match the orphan revision", 5,
			func(p *daemonplan.Plan) { p.Revisions.Adopt = []string{"web-1"} }},
		{"delete of an unselected revision", "the selector no longer matches it: upstream releases it", 5,
			func(p *daemonplan.Plan) { p.Revisions.Delete = []string{"agent-web"} }},
		{"release of a selected revision", "the selector still matches the revision", 5,
			func(p *daemonplan.Plan) { p.Revisions.Release = []string{"agent-old"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harmInput()
			in.Pods = append(in.Pods, unselected)
			in.Revisions = []revision.Revision{own, ownUnselected, stray}
			p, err := daemonplan.Sync(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := daemonplan.CheckPlan(in, p); err != nil {
				t.Fatalf("Sync's own plan fails CheckPlan: %v", err)
			}
			tt.breakIt(&p)
			err = daemonplan.CheckPlan(in, p)
			var v daemonplan.Violation
			if !errors.As(err, &v) || v.Rule != tt.rule {
				t.Errorf("CheckPlan returns %v, want a violation of rule %d (%s)", err, tt.rule, tt.reason)
			}
		})
	}
}

// TestCheckPlanRecountsEligibility: CheckPlan decides every node from the
// input, not from the plan's Nodes (issue 28, item 8). It passed a create
// on a node that should not run the pod when the plan's Nodes said it
// should, and refused every create of a plan without Nodes (the
// Tracker.Plan). Each row changes the plan Sync made for node-1 (running
// the pod) and node-2 (without it) and wants the violation of rule 4, or
// none.
func TestCheckPlanRecountsEligibility(t *testing.T) {
	gtToleration := api.Toleration{Key: "tier", Operator: api.TolerationOpGt, Value: "1", Effect: api.TaintEffectNoSchedule}
	tests := []struct {
		name, reason string
		node2        api.Node
		tols         []api.Toleration
		opts         daemonplan.Options
		change       func(p *daemonplan.Plan)
		rule         int // 0: no violation
	}{{
		name: "create on a tainted node the plan's Nodes call eligible", rule: 4,
		reason: "node-2's NoSchedule taint is not tolerated: the input says no, whatever Nodes says",
		node2:  api.Node{Name: "node-2", Taints: []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}},
		change: func(p *daemonplan.Plan) {
			p.Create = []placement.Create{{Node: "node-2"}}
			for i := range p.Nodes {
				p.Nodes[i].ShouldRun, p.Nodes[i].Reason = true, placement.Eligible
			}
		},
	}, {
		name: "plan without Nodes", reason: "a plan need not list its nodes (Tracker.Plan): its create is right",
		node2:  api.Node{Name: "node-2"},
		change: func(p *daemonplan.Plan) { p.Nodes = nil },
	}, {
		name: "create on a node the plan does not list", reason: "the input decides, not the plan",
		node2:  api.Node{Name: "node-2"},
		change: func(p *daemonplan.Plan) { p.Nodes = p.Nodes[:1] },
	}, {
		name: "create tolerated by Gt with ComparisonOperators", reason: "CheckPlanWith decides with the sync's options",
		node2: api.Node{Name: "node-2", Taints: []api.Taint{{Key: "tier", Value: "2", Effect: api.TaintEffectNoSchedule}}},
		tols:  []api.Toleration{gtToleration},
		opts:  daemonplan.Options{Placement: placement.Options{Taints: taints.Options{ComparisonOperators: true}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := harmInput()
			in.DaemonSet.Template.Tolerations = tt.tols
			in.Nodes = append(in.Nodes, tt.node2)
			p, err := daemonplan.Sync(in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := daemonplan.CheckPlanWith(in, p, tt.opts); err != nil {
				t.Fatalf("Sync's own plan fails CheckPlanWith: %v", err)
			}
			if tt.change != nil {
				tt.change(&p)
			}
			err = daemonplan.CheckPlanWith(in, p, tt.opts)
			var v daemonplan.Violation
			switch {
			case tt.rule == 0 && err != nil:
				t.Errorf("CheckPlanWith returns %v, want nil (%s)", err, tt.reason)
			case tt.rule != 0 && (!errors.As(err, &v) || v.Rule != tt.rule):
				t.Errorf("CheckPlanWith returns %v, want a violation of rule %d (%s)", err, tt.rule, tt.reason)
			}
		})
	}
}
