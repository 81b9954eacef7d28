package daemonplan_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/revision"
)

var syncNow = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// The test hash: the current template's revision is "agent-cur", and old
// pods carry "old".
const (
	curHash = "cur"
	oldHash = "old"
)

func fixedHash(*api.DaemonSet, *int32) string { return curHash }

// syncCluster is a small cluster under construction: a DaemonSet at
// generation 2, its current revision (unless dropped), one old revision.
type syncCluster struct {
	in   daemonplan.Input
	opts daemonplan.Options
}

func newSyncCluster() *syncCluster {
	ds := &api.DaemonSet{
		Namespace: "ns", Name: "agent", UID: "uid-ds", Generation: 2,
		Annotations:    map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template:       api.PodTemplate{Labels: map[string]string{"app": "agent"}, RestartPolicy: "Always"},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate},
		Status:         api.Status{ObservedGeneration: 1},
	}
	c := &syncCluster{
		in:   daemonplan.Input{DaemonSet: ds, Now: syncNow},
		opts: daemonplan.Options{Hash: fixedHash},
	}
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-ds"}
	c.in.Revisions = []revision.Revision{
		{Namespace: "ns", Name: "agent-" + oldHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: oldHash},
			Controller: owner, Revision: 1, Data: []byte(`{"old":true}`)},
		{Namespace: "ns", Name: "agent-" + curHash, Labels: map[string]string{"app": "agent", api.LabelRevisionHash: curHash},
			Controller: owner, Revision: 2, Data: revision.TemplateData(ds)},
	}
	return c
}

// node adds a node; pod adds a Ready pod of the DaemonSet on it, with the
// given hash label and the template generation that goes with it.
func (c *syncCluster) node(name string, ts ...api.Taint) *syncCluster {
	c.in.Nodes = append(c.in.Nodes, api.Node{Name: name, Taints: ts})
	return c
}

func (c *syncCluster) pod(name, node, hash string, mods ...func(*api.Pod)) *syncCluster {
	p := api.Pod{
		Namespace: "ns", Name: name, UID: "uid-" + name, NodeName: node,
		Labels:     map[string]string{"app": "agent", api.LabelRevisionHash: hash},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-ds"},
		Phase:      api.PodRunning, Ready: true, ReadySince: syncNow.Add(-time.Hour), Created: syncNow.Add(-2 * time.Hour),
	}
	p.Labels[api.LabelTemplateGeneration] = "2"
	if hash == oldHash {
		p.Labels[api.LabelTemplateGeneration] = "1"
	}
	for _, m := range mods {
		m(&p)
	}
	c.in.Pods = append(c.in.Pods, p)
	return c
}

func orphanPod(p *api.Pod) { p.Controller = nil }

// writes is the part of a plan that is written to the API, in a shape
// tables can spell.
type writes struct {
	Hash                          string
	Adopt, Release                []string
	Create                        []string // nodes
	Delete                        []string // pods
	Relabel                       []string // pods
	RevCreate, RevUpdate, RevDel  []string
	RevAdopt, RevRelease          []string
	RevDelDup                     []string
	Status                        api.Status
	StatusChanged                 bool
	Errors                        bool
	Warnings                      []string // field paths
	SkippedCreates, SkippedDelete int
	RequeueAfter                  time.Duration
}

func writesOf(p daemonplan.Plan) writes {
	w := writes{Hash: p.Hash, Adopt: p.Adopt, Release: p.Release, Status: p.Status, StatusChanged: p.StatusChanged,
		Errors: len(p.Errors) > 0, SkippedCreates: p.SkippedCreates, SkippedDelete: p.SkippedDeletes, RequeueAfter: p.RequeueAfter}
	for _, c := range p.Create {
		w.Create = append(w.Create, c.Node)
	}
	for _, d := range p.Delete {
		w.Delete = append(w.Delete, d.Pod)
	}
	for _, r := range p.Relabel {
		w.Relabel = append(w.Relabel, r.Pod)
	}
	for _, r := range p.Revisions.Create {
		w.RevCreate = append(w.RevCreate, r.Name)
	}
	for _, r := range p.Revisions.Update {
		w.RevUpdate = append(w.RevUpdate, r.Name)
	}
	w.RevDel, w.RevDelDup = p.Revisions.Delete, p.Revisions.DeleteDuplicates
	w.RevAdopt, w.RevRelease = p.Revisions.Adopt, p.Revisions.Release
	for _, e := range p.Warnings {
		w.Warnings = append(w.Warnings, e.Field)
	}
	return w
}

func i32(v int32) *int32 { return &v }

// TestSync drives every branch of Sync and compares what the plan writes.
// Each row names the upstream behaviour it pins (upstream: syncDaemonSet,
// updateDaemonSet, updateDaemonSetStatus).
func TestSync(t *testing.T) {
	// status after a sync of two nodes with one updated, available pod each
	twoUpdated := api.Status{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2, NumberReady: 2, ObservedGeneration: 2,
		UpdatedNumberScheduled: 2, NumberAvailable: 2}
	tests := []struct {
		name, reason string
		build        func(c *syncCluster)
		want         writes
	}{
		{
			name:   "steady state",
			reason: "nothing to do but advance observedGeneration",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", curHash).pod("pb", "b", curHash)
			},
			want: writes{Hash: curHash, Status: twoUpdated, StatusChanged: true},
		},
		{
			name:   "status unchanged is not written",
			reason: "upstream skips the status update when every counter and observedGeneration are current",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", curHash).pod("pb", "b", curHash)
				c.in.DaemonSet.Status = twoUpdated
			},
			want: writes{Hash: curHash, Status: twoUpdated},
		},
		{
			name:   "exactly empty selector",
			reason: "upstream refuses a selector that selects everything: no writes, not even status",
			build: func(c *syncCluster) {
				c.node("a")
				c.in.DaemonSet.Selector = &api.LabelSelector{}
			},
			want: writes{Status: api.Status{ObservedGeneration: 1}, Warnings: []string{"spec.selector"}},
		},
		{
			name: "empty matchLabels selects everything too",
			reason: "{matchLabels: {}} selects every pod, as {} does, and the API server refuses both: it adopted " +
				"an unrelated bare pod and deleted it as a duplicate (issue 28, item 6); no writes, as for {}",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash).pod("bystander", "a", curHash, orphanPod, func(p *api.Pod) {
					p.Labels = map[string]string{"other": "app"}
				})
				c.in.DaemonSet.Selector = &api.LabelSelector{MatchLabels: map[string]string{}}
				c.in.DaemonSet.UpdateStrategy.Type = api.OnDelete
			},
			want: writes{Status: api.Status{ObservedGeneration: 1}, Warnings: []string{"spec.selector"}},
		},
		{
			name:   "empty matchExpressions selects everything too",
			reason: "{matchExpressions: []} selects every pod: no writes, as for {}",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash).pod("bystander", "a", curHash, orphanPod, func(p *api.Pod) {
					p.Labels = map[string]string{"other": "app"}
				})
				c.in.DaemonSet.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{}}
			},
			want: writes{Status: api.Status{ObservedGeneration: 1}, Warnings: []string{"spec.selector"}},
		},
		{
			name:   "DaemonSet being deleted",
			reason: "upstream does nothing for a DaemonSet with a deletion timestamp",
			build: func(c *syncCluster) {
				c.node("a")
				c.in.DaemonSet.Deleting = true
			},
			want: writes{Status: api.Status{ObservedGeneration: 1}},
		},
		{
			name:   "selector that does not parse",
			reason: "history construction parses the selector first and fails: no writes",
			build: func(c *syncCluster) {
				c.node("a").pod("orphan", "a", curHash, orphanPod)
				c.in.DaemonSet.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"},
					MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
			},
			want: writes{Status: api.Status{ObservedGeneration: 1}, Errors: true,
				Warnings: []string{"spec.selector.matchExpressions[0].operator"}},
		},
		{
			name: "history cannot be constructed",
			reason: "the current revision's name is taken by other content: upstream bumps collisionCount and returns " +
				"before it claims pods, so the orphan is not adopted and nothing is created or deleted",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("orphan", "a", curHash, orphanPod).pod("dup1", "b", curHash).pod("dup2", "b", curHash)
				c.in.Revisions[1].Data = []byte(`{"other":true}`)
				c.in.Revisions[1].Revision = 1
				c.in.Revisions[0].Revision = 2
			},
			want: writes{Status: api.Status{ObservedGeneration: 1, CollisionCount: i32(1)}, StatusChanged: true, Errors: true},
		},
		{
			name: "expectations pending",
			reason: "only the status is refreshed, observedGeneration stays, and pods are claimed " +
				"(upstream's status update lists them); no create or delete",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("orphan", "a", curHash, orphanPod)
				c.in.ExpectationsPending = true
			},
			want: writes{Hash: curHash, Adopt: []string{"orphan"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 2, NumberReady: 1, ObservedGeneration: 1,
					UpdatedNumberScheduled: 1, NumberAvailable: 1, NumberUnavailable: 1}},
		},
		{
			name:   "manage writes hold back the rolling update",
			reason: "a create on b leaves expectations unsatisfied: the outdated pod on a waits for the next sync",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", oldHash)
			},
			want: writes{Hash: curHash, Create: []string{"b"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 2, NumberReady: 1, ObservedGeneration: 2,
					NumberAvailable: 1, NumberUnavailable: 1}},
		},
		{
			name:   "rolling update",
			reason: "no manage writes: the rolling update deletes one outdated pod (maxUnavailable 1, name order)",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", oldHash).pod("pb", "b", oldHash)
			},
			want: writes{Hash: curHash, Delete: []string{"pa"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2, NumberReady: 2, ObservedGeneration: 2,
					NumberAvailable: 2}},
		},
		{
			name:   "OnDelete has no rolling update",
			reason: "outdated pods stay until the user deletes them",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", oldHash).pod("pb", "b", oldHash)
				c.in.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.OnDelete}
			},
			want: writes{Hash: curHash, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2, NumberReady: 2, ObservedGeneration: 2,
					NumberAvailable: 2}},
		},
		{
			name:   "history cleanup",
			reason: "with revisionHistoryLimit 0 the unused old revision is deleted at the end of a successful sync",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", curHash).pod("pb", "b", curHash)
				c.in.DaemonSet.RevisionHistoryLimit = i32(0)
			},
			want: writes{Hash: curHash, RevDel: []string{"agent-old"}, Status: twoUpdated, StatusChanged: true},
		},
		{
			name: "rolling update error skips cleanup",
			reason: "in surge mode an old pod on a vanished node is an error: no rollout writes and no history " +
				"cleanup (agent-older, unused, stays), but the status is still written",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash).pod("pgone", "gone", oldHash)
				c.in.DaemonSet.UpdateStrategy = api.UpdateStrategy{Type: api.RollingUpdate,
					RollingUpdate: &api.RollingUpdateParams{MaxUnavailable: api.Int(0), MaxSurge: api.Int(1)}}
				c.in.DaemonSet.RevisionHistoryLimit = i32(0)
				older := c.in.Revisions[0].DeepCopy()
				older.Name, older.Labels[api.LabelRevisionHash], older.Data = "agent-older", "older", []byte(`{"older":true}`)
				c.in.Revisions = append(c.in.Revisions, older)
			},
			want: writes{Hash: curHash, Errors: true, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, NumberReady: 1, ObservedGeneration: 2,
					UpdatedNumberScheduled: 1, NumberAvailable: 1}},
		},
		{
			name:   "new revision",
			reason: "no revision holds the template: one is created, numbered after the old ones",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", oldHash)
				c.in.Revisions = c.in.Revisions[:1]
			},
			want: writes{Hash: curHash, Delete: []string{"pa"}, RevCreate: []string{"agent-cur"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, NumberReady: 1, ObservedGeneration: 2,
					NumberAvailable: 1}},
		},
		{
			name:   "duplicate current revisions",
			reason: "two revisions hold the template: pods of the dropped one are relabelled and it is deleted",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash)
				r := c.in.Revisions[1]
				r.Name, r.Revision = "agent-dup", 3
				r.Labels = map[string]string{"app": "agent", api.LabelRevisionHash: "dup"}
				c.in.Revisions = append(c.in.Revisions, r)
			},
			want: writes{Hash: "dup", Relabel: []string{"pa"}, RevDelDup: []string{"agent-cur"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, NumberReady: 1, ObservedGeneration: 2,
					UpdatedNumberScheduled: 1, NumberAvailable: 1}},
		},
		{
			name:   "revisions claimed",
			reason: "an orphan revision the selector matches is adopted; an owned one it no longer matches is released",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash)
				c.in.Revisions[0].Controller = nil
				r := c.in.Revisions[0]
				r.Name, r.Revision, r.Data = "agent-other", 0, []byte(`{"other":true}`)
				r.Labels = map[string]string{"app": "elsewhere"}
				r.Controller = &api.OwnerRef{Kind: "DaemonSet", Name: "agent", UID: "uid-ds"}
				c.in.Revisions = append(c.in.Revisions, r)
			},
			want: writes{Hash: curHash, RevAdopt: []string{"agent-old"}, RevRelease: []string{"agent-other"}, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, NumberReady: 1, ObservedGeneration: 2,
					UpdatedNumberScheduled: 1, NumberAvailable: 1}},
		},
		{
			name:   "manage error holds back the rolling update",
			reason: "a manage that fails (pods with no label at all) returns before the rolling update, which would delete the old pod, and the history cleanup; the status is written",
			build: func(c *syncCluster) {
				c.in.DaemonSet.Template.Labels = nil
				c.in.DaemonSet.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.SelectorOpDoesNotExist}}}
				delete(c.in.DaemonSet.Annotations, api.AnnotationTemplateGeneration)
				c.opts.Hash = func(*api.DaemonSet, *int32) string { return "" }
				c.in.Revisions = nil
				c.node("a").node("b").pod("pa", "a", oldHash)
				c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(2)}
			},
			want: writes{RevCreate: []string{"agent-"}, Errors: true, SkippedCreates: 1, StatusChanged: true,
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 2, NumberReady: 1, ObservedGeneration: 2,
					NumberAvailable: 1, NumberUnavailable: 1}},
		},
		{
			name:   "minReadySeconds requeue",
			reason: "a Ready pod not yet available for minReadySeconds asks for a sync minReadySeconds later",
			build: func(c *syncCluster) {
				c.node("a").node("b").pod("pa", "a", curHash).pod("pb", "b", curHash, func(p *api.Pod) { p.ReadySince = syncNow.Add(-10 * time.Second) })
				c.in.DaemonSet.MinReadySeconds = 60
			},
			want: writes{Hash: curHash, StatusChanged: true, RequeueAfter: time.Minute,
				Status: api.Status{CurrentNumberScheduled: 2, DesiredNumberScheduled: 2, NumberReady: 2, ObservedGeneration: 2,
					UpdatedNumberScheduled: 2, NumberAvailable: 1, NumberUnavailable: 1}},
		},
		{
			name: "negative maxSurge: manage does not surge",
			reason: "upstream's AllowsSurge wants a positive maxSurge: the succeeded pod is deleted and, as without " +
				"surge, the node gets its new pod in a later sync (found running the v1.37.2 controller side by side)",
			build: func(c *syncCluster) {
				c.node("a").pod("pa", "a", curHash, func(p *api.Pod) { p.Phase, p.Ready = api.PodSucceeded, false })
				c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(1), MaxSurge: api.Int(-1)}
			},
			want: writes{Hash: curHash, Delete: []string{"pa"}, StatusChanged: true,
				Warnings: []string{"spec.updateStrategy.rollingUpdate.maxSurge", "spec.updateStrategy.rollingUpdate.maxSurge"},
				Status: api.Status{CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, ObservedGeneration: 2,
					UpdatedNumberScheduled: 1, NumberUnavailable: 1}},
		},
		{
			name: "negative maxSurge: the rolling update takes the surge path",
			reason: "upstream's rollingUpdate branches on maxSurge == 0: with -1 it surges onto the node whose old pod " +
				"is unavailable and deletes no available old pod (without surge it would delete pc instead)",
			build: func(c *syncCluster) {
				c.node("a").node("b").node("c").pod("pa", "a", oldHash).pod("pb", "b", oldHash).
					pod("pc", "c", oldHash, func(p *api.Pod) { p.Ready = false })
				c.in.DaemonSet.UpdateStrategy.RollingUpdate = &api.RollingUpdateParams{MaxUnavailable: api.Int(1), MaxSurge: api.Int(-1)}
			},
			want: writes{Hash: curHash, Create: []string{"c"}, StatusChanged: true,
				Warnings: []string{"spec.updateStrategy.rollingUpdate.maxSurge", "spec.updateStrategy.rollingUpdate.maxSurge"},
				Status: api.Status{CurrentNumberScheduled: 3, DesiredNumberScheduled: 3, NumberReady: 2, ObservedGeneration: 2,
					NumberAvailable: 2, NumberUnavailable: 1}},
		},
		{
			name:   "burst limit",
			reason: "creates beyond BurstReplicas are cut and counted",
			build: func(c *syncCluster) {
				c.node("a").node("b").node("c")
				c.opts.Placement.BurstReplicas = 2
			},
			want: writes{Hash: curHash, Create: []string{"a", "b"}, SkippedCreates: 1, StatusChanged: true,
				Status: api.Status{DesiredNumberScheduled: 3, ObservedGeneration: 2, NumberUnavailable: 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSyncCluster()
			tt.build(c)
			before := c.in.DaemonSet.DeepCopy()
			p, err := daemonplan.Sync(c.in, c.opts)
			if err != nil {
				t.Fatalf("Sync() error = %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, writesOf(p), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Sync() mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
			if diff := cmp.Diff(before, c.in.DaemonSet); diff != "" {
				t.Errorf("Sync changed its DaemonSet (-before +after):\n%s", diff)
			}
		})
	}
}

// TestSyncErrors covers the errors Sync itself returns, before any plan.
func TestSyncErrors(t *testing.T) {
	if _, err := daemonplan.Sync(daemonplan.Input{}, daemonplan.Options{}); !errors.Is(err, daemonplan.ErrNilDaemonSet) {
		t.Errorf("Sync(nil DaemonSet) error = %v, want ErrNilDaemonSet", err)
	}
	c := newSyncCluster()
	c.node("a")
	deadline := int64(30)
	c.in.DaemonSet.Template.ActiveDeadlineSeconds = &deadline
	c.opts.Strict = true
	p, err := daemonplan.Sync(c.in, c.opts)
	var fes field.ErrorList
	if !errors.As(err, &fes) || len(fes) != 1 || fes[0].Field != "spec.template.spec.activeDeadlineSeconds" {
		t.Errorf("Sync(strict, activeDeadlineSeconds) error = %v, want one field error at spec.template.spec.activeDeadlineSeconds", err)
	}
	if diff := cmp.Diff(daemonplan.Plan{}, p); diff != "" {
		t.Errorf("Sync(strict) returned a plan with an error (-want +got):\n%s", diff)
	}
}
