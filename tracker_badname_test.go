package daemonplan_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/plantest"
)

// badNameInput is a DaemonSet with a Ready pod on each of three nodes.
func badNameInput() daemonplan.Input {
	now := plantest.Epoch
	ds := &api.DaemonSet{Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 1,
		Annotations: map[string]string{api.AnnotationTemplateGeneration: "1"},
		Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
		Template:    api.PodTemplate{Labels: map[string]string{"app": "ds"}},
	}
	in := daemonplan.Input{DaemonSet: ds, Now: now}
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "ds", UID: "ds-uid"}
	for _, n := range []string{"a", "b", "c"} {
		in.Nodes = append(in.Nodes, api.Node{Name: n})
		in.Pods = append(in.Pods, api.Pod{Namespace: "ns", Name: "pod-" + n, UID: "uid-" + n, NodeName: n, Controller: owner,
			Labels: map[string]string{"app": "ds", api.LabelTemplateGeneration: "1"},
			Phase:  api.PodRunning, Ready: true, ReadySince: now.Add(-time.Hour), Created: now.Add(-time.Hour)})
	}
	return in
}

// TestTrackerAfterBadNodeName: a node whose name Sync refuses (empty, not
// UTF-8) makes every plan a whole Sync while it is held; once it is gone,
// the Tracker's plans must be Sync's again. New and SetDaemonSet decided
// the nodes with an index, which refuses such a name, and left every node
// undecided: should not run, so all three Ready pods were deleted (issue 28,
// item 7).
func TestTrackerAfterBadNodeName(t *testing.T) {
	tests := []struct {
		name, reason string
		bad          string
		// changes are applied in order to the Tracker and the input; the
		// plans are compared after each.
		changes []func(in *daemonplan.Input, p *daemonplan.Tracker)
		newWith bool // New holds the bad node from the start
	}{{
		name: "New with an empty name, then deleted", bad: "", newWith: true,
		reason:  "New's index refused the list, and the three nodes stayed undecided after the bad node went",
		changes: []func(*daemonplan.Input, *daemonplan.Tracker){deleteNode("")},
	}, {
		name: "New with a name that is not UTF-8, then deleted", bad: "n\xff", newWith: true,
		reason:  "as for the empty name",
		changes: []func(*daemonplan.Input, *daemonplan.Tracker){deleteNode("n\xff")},
	}, {
		name: "SetDaemonSet while an empty name is held", bad: "",
		reason: "SetDaemonSet's index refused the list: a healthy pod was deleted once the bad node went",
		changes: []func(*daemonplan.Input, *daemonplan.Tracker){
			setNode(""), setDaemonSet(func(ds *api.DaemonSet) { ds.Status.ObservedGeneration = 1 }), deleteNode(""),
		},
	}, {
		name: "SetDaemonSet widens the nodeSelector while an empty name is held", bad: "",
		reason: "node a, outside the old nodeSelector, kept its old decision: its healthy pod, which Sync keeps, was deleted",
		changes: []func(*daemonplan.Input, *daemonplan.Tracker){
			setDaemonSet(func(ds *api.DaemonSet) { ds.Template.NodeSelector = map[string]string{"zone": "x"} }),
			setNode(""),
			setDaemonSet(func(ds *api.DaemonSet) { ds.Template.NodeSelector = nil }),
			deleteNode(""),
		},
	}, {
		name: "SetDaemonSet while a bad name is held, then renamed", bad: "n\xff",
		reason: "the bad node replaced by a good one: every node decided again",
		changes: []func(*daemonplan.Input, *daemonplan.Tracker){
			setNode("n\xff"), setDaemonSet(func(ds *api.DaemonSet) { ds.MinReadySeconds = 5 }), deleteNode("n\xff"), setNode("d"),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := badNameInput()
			for i := range in.Nodes {
				if in.Nodes[i].Name != "a" {
					in.Nodes[i].Labels = map[string]string{"zone": "x"}
				}
			}
			if tt.newWith {
				in.Nodes = append([]api.Node{{Name: tt.bad}}, in.Nodes...)
			}
			p, err := daemonplan.NewTracker(in, daemonplan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			compareWithSync(t, in, p, "New", tt.reason)
			for i, change := range tt.changes {
				change(&in, p)
				compareWithSync(t, in, p, "change "+string(rune('0'+i)), tt.reason)
			}
		})
	}
}

func compareWithSync(t *testing.T, in daemonplan.Input, p *daemonplan.Tracker, step, reason string) {
	t.Helper()
	want, werr := daemonplan.Sync(in, daemonplan.Options{})
	got, gerr := p.FullPlan()
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: Sync error %v, FullPlan error %v (%s)", step, werr, gerr, reason)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: FullPlan() mismatch (-Sync +Tracker):\n%s\nreason: %s", step, cmp.Diff(want, got, errorText), reason)
	}
}

func deleteNode(name string) func(*daemonplan.Input, *daemonplan.Tracker) {
	return func(in *daemonplan.Input, p *daemonplan.Tracker) {
		var nodes []api.Node
		for _, n := range in.Nodes {
			if n.Name != name {
				nodes = append(nodes, n)
			}
		}
		in.Nodes = nodes
		p.DeleteNode(name)
	}
}

func setNode(name string) func(*daemonplan.Input, *daemonplan.Tracker) {
	return func(in *daemonplan.Input, p *daemonplan.Tracker) {
		in.Nodes = append(append([]api.Node(nil), in.Nodes...), api.Node{Name: name})
		p.SetNode(api.Node{Name: name})
	}
}

func setDaemonSet(mod func(*api.DaemonSet)) func(*daemonplan.Input, *daemonplan.Tracker) {
	return func(in *daemonplan.Input, p *daemonplan.Tracker) {
		ds := in.DaemonSet.DeepCopy()
		mod(ds)
		in.DaemonSet = ds
		p.SetDaemonSet(ds)
	}
}
