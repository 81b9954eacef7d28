package planner_test

import (
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/internal/nilcheck"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/planner"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// TestNilInputs: no exported function of the kube packages panics on a nil
// argument its documentation does not forbid (issue 15, item 6).
func TestNilInputs(t *testing.T) {
	nilcheck.Run(t, []string{"../convert", "../upstream", "../load", "."}, map[string]func(){
		"convert.DaemonSet":     func() { convert.DaemonSet(nil) },
		"convert.HashFunc":      func() { convert.HashFunc(nil, upstream.V1_34) },
		"convert.Node":          func() { convert.Node(nil) },
		"convert.Nodes":         func() { convert.Nodes(nil) },
		"convert.Pod":           func() { convert.Pod(nil) },
		"convert.Pods":          func() { convert.Pods(nil) },
		"convert.Revision":      func() { convert.Revision(nil) },
		"convert.Revisions":     func() { convert.Revisions(nil) },
		"load.Error.Error":      func() { _ = (*load.Error)(nil).Error() },
		"load.Error.Unwrap":     func() { _ = (*load.Error)(nil).Unwrap() },
		"load.Objects.Cluster":  func() { (*load.Objects)(nil).Cluster("", "") },
		"load.Sources":          func() { load.Sources(nil...) },
		"load.Decode":           func() { load.Decode(nil) },
		"load.Read":             func() { load.Read(nil) },
		"planner.Plan":          func() { planner.Plan(nil, time.Time{}, planner.Options{}) },
		"planner.Plan, empty":   func() { planner.Plan(&load.Cluster{}, time.Time{}, planner.Options{}) },
		"upstream.RevisionData": func() { upstream.RevisionData(nil) },
		"upstream.StoredData":   func() { upstream.StoredData(nil) },
		"load.Sources, nil R":   func() { load.Sources(load.Source{}) },
	})
}
