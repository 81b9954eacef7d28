package daemonplan_test

import (
	"testing"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/internal/testsupport/nilcheck"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
	"github.com/daemonplan/daemonplan/selector"
	"github.com/daemonplan/daemonplan/sim"
	"github.com/daemonplan/daemonplan/taints"
)

// nilCalls calls every exported function and method of the public packages
// that takes a pointer, slice, map, func or interface (the receiver
// included) with nil for each of them, keyed "pkg.Func" or "pkg.Type.Method".
var nilCalls = map[string]func(){
	"daemonplan.CheckInput": func() { daemonplan.CheckInput(daemonplan.Input{}) },
	"daemonplan.Sync":       func() { daemonplan.Sync(daemonplan.Input{}, daemonplan.Options{}) },
	"daemonplan.Planner.Sync": func() {
		daemonplan.NewPlanner(daemonplan.Options{}).Sync(daemonplan.Input{})
		(*daemonplan.Planner)(nil).Sync(daemonplan.Input{})
	},

	"admission.Rules.Admit": func() {
		(*admission.Rules)(nil).Admit("ns", nil)
		r, _ := admission.Compile(admission.ClusterObjects{})
		r.Admit("ns", nil)
	},

	"api.DaemonSet.DeepCopy":       func() { (*api.DaemonSet)(nil).DeepCopy() },
	"api.PodTemplate.HostPorts":    func() { (*api.PodTemplate)(nil).HostPorts() },
	"api.PodTemplate.PodResources": func() { (*api.PodTemplate)(nil).PodResources() },
	"api.PodTemplate.Requests":     func() { (*api.PodTemplate)(nil).Requests() },
	"api.BumpGenerations":          func() { api.BumpGenerations(nil, api.TemplateChanged) },
	"api.Default":                  func() { api.Default(nil) },
	"api.IntOrPercent.Percentage":  func() { (*api.IntOrPercent)(nil).Percentage() },
	"api.IntOrPercent.Scaled":      func() { (*api.IntOrPercent)(nil).Scaled(1, true) },
	"api.IsAvailable":              func() { api.IsAvailable(nil, 5, time.Time{}) },
	"api.IsTerminal":               func() { api.IsTerminal(nil) },
	"api.IsUpdated":                func() { api.IsUpdated(nil, "h", nil) },
	"api.NodeWellFormed":           func() { api.NodeWellFormed(nil) },
	"api.PodWellFormed":            func() { api.PodWellFormed(nil) },
	"api.TargetNodeName":           func() { api.TargetNodeName(nil) },
	"api.TemplateGeneration":       func() { api.TemplateGeneration(nil) },
	"api.Validate":                 func() { api.Validate(nil) },
	"api.ValidateWith":             func() { api.ValidateWith(nil, api.ValidateOptions{}) },
	"api.ValidateNodes":            func() { api.ValidateNodes(nil) },
	"api.ValidatePods":             func() { api.ValidatePods(nil) },
	"api.ValidateUpdate":           func() { api.ValidateUpdate(nil, nil) },

	"field.Duplicate":    func() { _ = field.Duplicate(nil, nil).Error() },
	"field.Error.Error":  func() { _ = (*field.Error)(nil).Error() },
	"field.Forbidden":    func() { _ = field.Forbidden(nil, "").Error() },
	"field.Invalid":      func() { _ = field.Invalid(nil, nil, "").Error() },
	"field.InvalidEach":  func() { _ = field.InvalidEach(nil, nil, []string{""}).Error() },
	"field.NewPath":      func() { field.NewPath("a", nil...) },
	"field.NotSupported": func() { _ = field.NotSupported(nil, nil, nil...).Error() },
	"field.Path.Child":   func() { _ = (*field.Path)(nil).Child("a", nil...).String() },
	"field.Path.Index":   func() { _ = (*field.Path)(nil).Index(0).String() },
	"field.Path.Key":     func() { _ = (*field.Path)(nil).Key("k").String() },
	"field.Path.String":  func() { _ = (*field.Path)(nil).String() },
	"field.Required":     func() { _ = field.Required(nil, "").Error() },
	"field.TooLong":      func() { _ = field.TooLong(nil, nil, 1).Error() },
	"field.ErrorList.Error": func() {
		_ = field.ErrorList{nil, nil}.Error()
	},

	"placement.AllowsSurge":         func() { placement.AllowsSurge(nil) },
	"placement.Index.Adopt":         func() { (*placement.Index)(nil).Adopt() },
	"placement.Index.Claimed":       func() { (*placement.Index)(nil).Claimed() },
	"placement.Index.Compiled":      func() { (*placement.Index)(nil).Compiled() },
	"placement.Index.Forget":        func() { (*placement.Index)(nil).Forget() },
	"placement.Index.Keep":          func() { (*placement.Index)(nil).Keep(nil) },
	"placement.Index.Manage":        func() { (*placement.Index)(nil).Manage(time.Time{}, "", nil) },
	"placement.Index.NodeDecisions": func() { (*placement.Index)(nil).NodeDecisions() },
	"placement.Index.Release":       func() { (*placement.Index)(nil).Release() },
	"placement.Index.Reset":         func() { (*placement.Index)(nil).Reset(nil, nil, nil) },
	"placement.Index.Status":        func() { (*placement.Index)(nil).Status(time.Time{}, "") },
	"placement.Index.Targeted":      func() { (*placement.Index)(nil).Targeted() },
	"placement.Index.Buckets": func() {
		for range (*placement.Index)(nil).Buckets("") {
		}
	},
	"placement.Bucket.Labels":       func() { (*placement.Bucket)(nil).Labels() },
	"placement.Bucket.Updated":      func() { (&placement.Bucket{}).Updated(0) },
	"placement.Index.Vanished":      func() { (*placement.Index)(nil).Vanished() },
	"placement.Compile":             func() { placement.Compile(nil, placement.Options{}) },
	"placement.Compiled.BackoffKey": func() { (*placement.Compiled)(nil).BackoffKey("") },
	"placement.Compiled.Claim":      func() { (*placement.Compiled)(nil).Claim(nil) },
	"placement.Compiled.CreatesFor": func() { (*placement.Compiled)(nil).CreatesFor(nil, "") },
	"placement.Compiled.DaemonSet":  func() { (*placement.Compiled)(nil).DaemonSet() },
	"placement.Compiled.Explain":    func() { (*placement.Compiled)(nil).Explain(nil) },
	"placement.Eligibility.Explain": func() { (*placement.Eligibility)(nil).Explain(nil) },
	"placement.Compiled.Decide":     func() { (*placement.Compiled)(nil).Decide(nil) },
	"placement.Compiled.Index":      func() { (*placement.Compiled)(nil).Index(nil, nil) },
	"placement.Compiled.IsUpdated":  func() { (*placement.Compiled)(nil).IsUpdated(nil, "") },
	"placement.Compiled.ManageNode": func() {
		(*placement.Compiled)(nil).ManageNode(nil, "", placement.Decision{}, nil, time.Time{}, "", nil)
	},
	"placement.Compiled.Options":            func() { (*placement.Compiled)(nil).Options() },
	"placement.Compiled.PodLabels":          func() { (*placement.Compiled)(nil).PodLabels("") },
	"placement.Compiled.PodTolerations":     func() { (*placement.Compiled)(nil).PodTolerations() },
	"placement.Compiled.Selects":            func() { (*placement.Compiled)(nil).Selects(nil) },
	"placement.Compiled.TemplateGeneration": func() { (*placement.Compiled)(nil).TemplateGeneration() },
	"placement.Eligibility.Decide":          func() { (*placement.Eligibility)(nil).Decide(nil) },
	"placement.NewEligibility":              func() { placement.NewEligibility(nil, placement.Options{}) },
	"placement.OlderPod":                    func() { placement.OlderPod(nil, nil) },

	"daemonplan.Tracker.SetNode":                func() { (*daemonplan.Tracker)(nil).SetNode(api.Node{}) },
	"daemonplan.Tracker.DeleteNode":             func() { (*daemonplan.Tracker)(nil).DeleteNode("") },
	"daemonplan.Tracker.SetPod":                 func() { (*daemonplan.Tracker)(nil).SetPod(api.Pod{}) },
	"daemonplan.Tracker.DeletePod":              func() { (*daemonplan.Tracker)(nil).DeletePod("", "") },
	"daemonplan.Tracker.SetDaemonSet":           func() { newTracker().SetDaemonSet(nil) },
	"daemonplan.Tracker.SetRevisions":           func() { newTracker().SetRevisions(nil) },
	"daemonplan.Tracker.SetNow":                 func() { (*daemonplan.Tracker)(nil).SetNow(time.Time{}) },
	"daemonplan.Tracker.SetBackoff":             func() { newTracker().SetBackoff(nil) },
	"daemonplan.Tracker.SetExpectationsPending": func() { (*daemonplan.Tracker)(nil).SetExpectationsPending(true) },
	"daemonplan.Tracker.Plan":                   func() { (*daemonplan.Tracker)(nil).Plan() },
	"daemonplan.Tracker.FullPlan":               func() { (*daemonplan.Tracker)(nil).FullPlan() },
	"daemonplan.Tracker.Input":                  func() { (*daemonplan.Tracker)(nil).Input() },
	"daemonplan.Tracker.SetStatus":              func() { (*daemonplan.Tracker)(nil).SetStatus(api.Status{}) },

	"revision.AlreadyExistsError.Error": func() { _ = (*revision.AlreadyExistsError)(nil).Error() },
	"revision.Cleanup":                  func() { revision.Cleanup(nil, nil, nil) },
	"revision.Construct":                func() { revision.Construct(nil, nil, nil, revision.Options{}) },
	"revision.DefaultHash":              func() { revision.DefaultHash(nil, nil) },
	"revision.HistoryTable":             func() { revision.HistoryTable(nil, nil) },
	"revision.Rollback":                 func() { revision.Rollback(nil, nil, 0) },
	"revision.TemplateData":             func() { revision.TemplateData(nil) },
	"revision.ValidateRevisions":        func() { revision.ValidateRevisions(nil) },

	"rollout.ResolveBudgets":        func() { rollout.ResolveBudgets(nil, 1) },
	"rollout.Canary.RollbackTarget": func() { (*rollout.Canary)(nil).RollbackTarget(nil) },
	"rollout.Progressive.Manage": func() {
		rollout.Progressive{}.Manage(nil, "", placement.ManagePlan{}, nil)
		rollout.Progressive{Freeze: true}.Manage(nil, "", placement.ManagePlan{}, nil)
	},
	"rollout.Classifier.Classify": func() {
		(*rollout.Classifier)(nil).Classify(&rollout.NodeView{Old: &api.Pod{}})
		(&rollout.Classifier{}).Classify(nil)
	},
	"rollout.NodeView.Outdated": func() { (*rollout.NodeView)(nil).Outdated() },
	"rollout.NodeView.SetPods": func() {
		(*rollout.NodeView)(nil).SetPods(nil, nil)
		(&rollout.NodeView{}).SetPods([]*api.Pod{nil, {}}, nil)
	},
	"rollout.Tally.Remove":  func() { (*rollout.Tally)(nil).Remove(rollout.Class{}, true) },
	"rollout.Tally.Add":     func() { (*rollout.Tally)(nil).Add(rollout.Class{}, true) },
	"rollout.RollingUpdate": func() { rollout.RollingUpdate(nil, time.Time{}, "", rollout.Progressive{}) },
	"rollout.StatusMessage": func() { rollout.StatusMessage(nil, api.Status{}) },

	"selector.Compile":                func() { selector.Compile(nil) },
	"selector.CompileNode":            func() { selector.CompileNode(nil, nil).Match("n", nil) },
	"selector.FromSet":                func() { selector.FromSet(nil).Matches(nil) },
	"api.LabelSelector.DeepCopy":      func() { (*api.LabelSelector)(nil).DeepCopy() },
	"selector.NodeMatcher.Mismatches": func() { selector.NodeMatcher{}.Mismatches("", nil) },
	"selector.NodeMatcher.Match":      func() { selector.NodeMatcher{}.Match("", nil) },
	"api.NodeSelector.DeepCopy":       func() { (*api.NodeSelector)(nil).DeepCopy() },
	"selector.ParseError.Error":       func() { _ = (*selector.ParseError)(nil).Error() },
	"rollout.MissingNodeError.Error":  func() { _ = (*rollout.MissingNodeError)(nil).Error() },
	"selector.ParseError.Unwrap":      func() { _ = (*selector.ParseError)(nil).Unwrap() },
	"selector.Requirement.Matches":    func() { selector.Requirement{}.Matches(nil) },
	"selector.Selector.Matches":       func() { selector.Selector{}.Matches(nil) },
	"api.ValidateLabelSelector":       func() { api.ValidateLabelSelector(nil) },
	"api.ValidateNodeSelector":        func() { api.ValidateNodeSelector(nil) },
	"api.ValidateNodeSelectorMap":     func() { api.ValidateNodeSelectorMap(nil) },
	"sim.Cluster.Advance":             func() { (*sim.Cluster)(nil).Advance(0) },
	"sim.Cluster.Input":               func() { (*sim.Cluster)(nil).Input() },
	"sim.Cluster.Apply":               func() { (*sim.Cluster)(nil).Apply(daemonplan.Plan{}) },
	"sim.Cluster.Rollback":            func() { (*sim.Cluster)(nil).Rollback(0) },
	"sim.Cluster.SetStrategy":         func() { (*sim.Cluster)(nil).SetStrategy(api.UpdateStrategy{}) },
	"sim.Cluster.Sync":                func() { (*sim.Cluster)(nil).Sync() },
	"sim.Cluster.Template":            func() { (*sim.Cluster)(nil).Template() },
	"sim.Cluster.Update":              func() { (*sim.Cluster)(nil).Update(sim.Template{}, "") },
	"sim.Cluster.Changed":             func() { (*sim.Cluster)(nil).Changed() },
	"sim.Cluster.NextEvent":           func() { (*sim.Cluster)(nil).NextEvent() },
	"sim.Cluster.Plan":                func() { (*sim.Cluster)(nil).Plan() },
	"sim.Cluster.PodsOn":              func() { (*sim.Cluster)(nil).PodsOn("") },
	"sim.Cluster.Restarts":            func() { (*sim.Cluster)(nil).Restarts("") },
	"sim.Cluster.RestartAt":           func() { (*sim.Cluster)(nil).RestartAt("", 1) },
	"sim.Cluster.Terminate":           func() { (*sim.Cluster)(nil).Terminate(time.Second) },
	"sim.Cluster.Track":               func() { (*sim.Cluster)(nil).Track() },
	"sim.Cluster.Tracked":             func() { (*sim.Cluster)(nil).Tracked() },
	"sim.Cluster.Untrack":             func() { (*sim.Cluster)(nil).Untrack() },
	"sim.New":                         func() { sim.New(api.DaemonSet{}, sim.Template{}, nil, time.Time{}).Sync() },
	"api.CloneTolerations":            func() { api.CloneTolerations(nil) },
	"taints.EffectsOf":                func() { taints.EffectsOf(nil...) },
	"taints.FindUntolerated":          func() { taints.FindUntolerated(nil, nil, taints.AllEffects, taints.Options{}) },
	"taints.MergeDaemonDefaults":      func() { taints.MergeDaemonDefaults(nil, false) },
	"taints.NewSet":                   func() { s := taints.NewSet(nil, taints.Options{}); s.Tolerates(api.Taint{}) },
	"taints.Set.FirstUntolerated":     func() { (*taints.Set)(nil).FirstUntolerated(nil, taints.AllEffects) },
	"taints.Set.IndexUntolerated":     func() { (*taints.Set)(nil).IndexUntolerated(nil, taints.AllEffects) },
	"taints.Set.Tolerates":            func() { (*taints.Set)(nil).Tolerates(api.Taint{}) },
	"taints.Set.Tolerations":          func() { (*taints.Set)(nil).Tolerations() },
	"api.ValidateLabelValues":         func() { api.ValidateLabelValues(nil, []string{"-"}) },
	"api.ValidateTolerations":         func() { api.ValidateTolerations(nil, api.ValidateOptions{}) },
	"api.ValidateResources":           func() { api.ValidateResources(nil) },
	"api.ValidateQuantities":          func() { api.ValidateQuantities(nil, nil) },
	"placement.Backoff.InBackoff":     func() { placement.Backoff(nil).InBackoff(placement.BackoffKey{}, time.Time{}) },
	"placement.Compiled.AssembleManage": func() {
		(*placement.Compiled)(nil).AssembleManage(nil, time.Time{}, "", nil)
	},
	"placement.Compiled.CountNode":        func() { (*placement.Compiled)(nil).CountNode(placement.Decision{}, nil, false, time.Time{}) },
	"placement.Compiled.ManageVanished":   func() { (*placement.Compiled)(nil).ManageVanished(nil, "", nil) },
	"placement.Compiled.Status":           func() { (*placement.Compiled)(nil).Status(placement.NodeCount{}) },
	"placement.KindsOf":                   func() { placement.KindsOf(nil, true) },
	"placement.ManageLists.Add":           func() { (*placement.ManageLists)(nil).Add("", true, nil) },
	"placement.ManageLists.EachManage":    func() { (*placement.ManageLists)(nil).EachManage(placement.ManageCreate, nil) },
	"placement.ManageLists.ManageCount":   func() { (*placement.ManageLists)(nil).ManageCount(placement.ManageCreate) },
	"placement.ManageLists.ManageDeletes": func() { (*placement.ManageLists)(nil).ManageDeletes() },
	"revision.HistoryLimit":               func() { revision.HistoryLimit(nil) },
	"placement.ManageLists.Reset":         func() { (*placement.ManageLists)(nil).Reset(1) },
	"placement.NodeCount.Add":             func() { (*placement.NodeCount)(nil).Add(placement.NodeCount{}, 1) },
	"rollout.IndexNodes":                  func() { rollout.IndexNodes(nil) },
	"rollout.RollingUpdateOf": func() {
		rollout.RollingUpdateOf(nil, time.Time{}, "", rollout.Progressive{})
		rollout.RollingUpdateOf(rollout.IndexNodes(new(placement.Index)), time.Time{}, "", rollout.Progressive{})
	},
	"rollout.AssembleStep":        func() { rollout.AssembleStep(nil, nil, rollout.Budgets{}, "", false) },
	"rollout.PassLists.Add":       func() { (*rollout.PassLists)(nil).Add("", "", rollout.Class{}) },
	"rollout.PassLists.EachPass":  func() { (*rollout.PassLists)(nil).EachPass(rollout.Candidates, false, nil) },
	"rollout.PassLists.PassCount": func() { (*rollout.PassLists)(nil).PassCount(rollout.Candidates, false) },
	"rollout.PassLists.PassTally": func() { (*rollout.PassLists)(nil).PassTally(false) },
	"rollout.PassLists.Reset":     func() { (*rollout.PassLists)(nil).Reset(1) },
}

// newTracker is a Planner of an empty cluster.
func newTracker() *daemonplan.Tracker {
	p, err := daemonplan.NewTracker(daemonplan.Input{DaemonSet: &api.DaemonSet{Name: "ds", UID: "u"}}, daemonplan.Options{})
	if err != nil {
		panic(err)
	}
	return p
}

// TestNilInputs: no exported function of the public packages panics on a
// nil argument its documentation does not forbid (issue 15, item 6); see
// nilcheck.Run. The table must cover every exported function that takes a
// nilable argument: the list is read from the source.
func TestNilInputs(t *testing.T) {
	nilcheck.Run(t, []string{".", "admission", "api", "field", "placement", "revision", "rollout", "selector", "sim", "taints", "whatif"}, nilCalls)
}
