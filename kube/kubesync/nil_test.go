package kubesync_test

import (
	"context"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"

	"github.com/daemonplan/daemonplan/internal/testsupport/nilcheck"
	"github.com/daemonplan/daemonplan/kube/apply"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/internal/kubecluster"
	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/kube/upstream"
)

// TestNilInputs: no exported function of the kube packages panics on a nil
// argument its documentation does not forbid (issue 15, item 6).
func TestNilInputs(t *testing.T) {
	nilcheck.Run(t, []string{"../convert", "../upstream", "../load", "../apply", "."}, map[string]func(){
		"convert.ControllerRef":               func() { convert.ControllerRef(nil) },
		"convert.LabelSelector":               func() { convert.LabelSelector(nil) },
		"convert.IntOrPercent":                func() { convert.IntOrPercent(nil) },
		"convert.DaemonSetWithStatus":         func() { convert.DaemonSetWithStatus(nil, api.Status{}) },
		"convert.NewControllerRevision":       func() { convert.NewControllerRevision(nil, revision.Revision{}) },
		"convert.NewPod":                      func() { convert.NewPod(nil, placement.Create{}) },
		"convert.ReplaceNodeNameNodeAffinity": func() { convert.ReplaceNodeNameNodeAffinity(nil, "n") },
		"convert.UpdatedControllerRevision":   func() { convert.UpdatedControllerRevision(nil, revision.Revision{}) },
		"convert.Workload":                    func() { convert.Workload(nil) },
		"convert.LimitRange":                  func() { convert.LimitRange(nil) },
		"convert.PriorityClass":               func() { convert.PriorityClass(nil) },
		"convert.RuntimeClass":                func() { convert.RuntimeClass(nil) },
		"convert.DisruptionBudget":            func() { convert.DisruptionBudget(nil) },
		"convert.PodUsage":                    func() { convert.PodUsage(nil) },
		"convert.AdmissionObjects": func() {
			convert.AdmissionObjects(nil, nil, nil)
			convert.AdmissionObjects([]*corev1.LimitRange{nil}, []*schedulingv1.PriorityClass{nil}, []*nodev1.RuntimeClass{nil})
		},
		"load.Merge":              func() { load.Merge(nil, nil).Snapshot("", "") },
		"convert.DaemonSet":       func() { convert.DaemonSet(nil) },
		"convert.HashFunc":        func() { convert.HashFunc(nil, upstream.V1_34) },
		"convert.Node":            func() { convert.Node(nil) },
		"convert.Nodes":           func() { convert.Nodes(nil) },
		"convert.Pod":             func() { convert.Pod(nil) },
		"convert.Pods":            func() { convert.Pods(nil) },
		"convert.ValidateObjects": func() { convert.ValidateObjects(nil, nil, api.ValidateOptions{}) },
		"convert.Revision":        func() { convert.Revision(nil) },
		"convert.Revisions":       func() { convert.Revisions(nil) },
		"load.DecodeError.Error":  func() { _ = (*load.DecodeError)(nil).Error() },
		"load.DecodeError.Unwrap": func() { _ = (*load.DecodeError)(nil).Unwrap() },
		"load.Objects.Snapshot":   func() { (*load.Objects)(nil).Snapshot("", "") },
		"load.Sources":            func() { load.Sources(nil...) },
		"load.Load":               func() { load.Load(load.Options{}, nil...) },
		"load.Decode":             func() { load.Decode(nil) },
		"load.Read":               func() { load.Read(nil) },
		"kubesync.Input":          func() { kubesync.Input(nil, time.Time{}, kubesync.State{}, kubesync.Options{}) },
		"kubesync.Input, empty":   func() { kubesync.Input(&load.Snapshot{}, time.Time{}, kubesync.State{}, kubesync.Options{}) },
		"kubesync.Sync":           func() { kubesync.Sync(nil, time.Time{}, kubesync.State{}, kubesync.Options{}) },
		"kubesync.Sync, empty":    func() { kubesync.Sync(&load.Snapshot{}, time.Time{}, kubesync.State{}, kubesync.Options{}) },
		"kubesync.Planner.Sync": func() {
			pl, _ := kubesync.NewPlanner(kubesync.Options{})
			pl.Sync(nil, time.Time{}, kubesync.State{})
		},
		"kubesync.Planner.Sync, nil pod": func() {
			pl, _ := kubesync.NewPlanner(kubesync.Options{})
			pl.Sync(&load.Snapshot{DaemonSet: kubecluster.DaemonSet(), Pods: []*corev1.Pod{nil}}, time.Time{}, kubesync.State{})
		},
		"upstream.Version.Hash":          func() { upstream.V1_34.Hash(nil, nil) },
		"upstream.Version.UnmarshalText": func() { (*upstream.Version)(nil).UnmarshalText(nil) },
		"convert.KruiseDaemonSet":        func() { convert.KruiseDaemonSet(nil) },
		"convert.KruiseObjects":          func() { convert.KruiseObjects(nil) },
		"upstream.RevisionData":          func() { upstream.RevisionData(nil) },
		"upstream.StoredData":            func() { upstream.StoredData(nil) },
		"load.Sources, nil R":            func() { load.Sources(load.Source{}) },
		"apply.Apply":                    func() { apply.Apply(context.TODO(), nil, nil, daemonplan.Plan{}) },
		"apply.ApplyWith":                func() { apply.ApplyWith(context.TODO(), nil, nil, daemonplan.Plan{}, daemonplan.Options{}) },
		"apply.Expectations.Deleted":     func() { (*apply.Expectations)(nil).Deleted("") },
		"apply.ApplyObjects": func() {
			apply.ApplyObjects(context.TODO(), nil, nil, daemonplan.Plan{}, daemonplan.Options{}, nil)
		},
		"apply.SnapshotLookup": func() {
			o := apply.SnapshotLookup(nil)
			o.DaemonSet()
			o.Node("")
			o.Pod("")
			o.Revision("")
			o.PodsOn("")
		},
		"apply.Expectations.PendingFor": func() { (*apply.Expectations)(nil).PendingFor(nil, time.Time{}) },
		"apply.Expectations.PendingFor, nil pod": func() {
			var e apply.Expectations
			e.Expect(apply.Result{Created: []*corev1.Pod{{}}}, time.Time{})
			e.PendingFor(nil, time.Time{})
		},
		"apply.Expectations.Expect":  func() { (*apply.Expectations)(nil).Expect(apply.Result{}, time.Time{}) },
		"apply.Expectations.Pending": func() { (*apply.Expectations)(nil).Pending(nil, time.Time{}) },
		"apply.Expectations.Pending, nil c": func() {
			var e apply.Expectations
			e.Expect(apply.Result{Created: []*corev1.Pod{{}}}, time.Time{})
			e.Pending(nil, time.Time{})
		},
		"apply.RecordEvents":                 func() { apply.RecordEvents(nil, nil, daemonplan.Plan{}, apply.Result{}) },
		"apply.RecordEvents, nil DaemonSet":  func() { apply.RecordEvents(record.NewFakeRecorder(1), nil, daemonplan.Plan{}, apply.Result{}) },
		"apply.Expectations.Expect, nil pod": func() { (&apply.Expectations{}).Expect(apply.Result{Created: []*corev1.Pod{nil}}, time.Time{}) },
	})
}
