package daemonplan_test

import (
	"errors"
	"testing"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/rollout"
)

// TestMissingNodeError: during a surge rolling update, an unavailable old
// pod bound to a node that is not in the snapshot fails the sync as
// upstream's does (it looks the node up to decide on a new pod), and
// both Sync and the Tracker say so with the same typed error, naming the
// node.
func TestMissingNodeError(t *testing.T) {
	in := badNameInput()
	in.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
		MaxUnavailable: api.Int(0), MaxSurge: api.Int(1)}}
	in.DaemonSet.Annotations[api.AnnotationTemplateGeneration] = "2" // every pod is outdated
	in.Nodes = in.Nodes[:2]                                          // pod-c stays bound to node c, which is gone
	in.Pods[2].Ready = false                                         // an unavailable old pod: its node is looked up
	full, err := daemonplan.Sync(in, daemonplan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := daemonplan.NewTracker(in, daemonplan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := tr.Plan()
	if err != nil {
		t.Fatal(err)
	}
	for who, p := range map[string]daemonplan.Plan{"Sync": full, "Tracker": inc} {
		var missing *rollout.MissingNodeError
		if len(p.Errors) != 1 || !errors.As(p.Errors[0], &missing) || missing.Node != "c" {
			t.Errorf("%s: errors %v; want one *rollout.MissingNodeError for node c", who, p.Errors)
			continue
		}
		if want := `couldn't get node for nodeName "c": node "c" not found`; p.Errors[0].Error() != want {
			t.Errorf("%s: error %q; want upstream's words %q", who, p.Errors[0], want)
		}
	}
}
