package daemonplan_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/testsupport/rounds"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
	"github.com/daemonplan/daemonplan/rollout"
)

// model is the state kept beside the Tracker: a plain Sync input that every
// change is applied to as well.
type model struct {
	in   daemonplan.Input
	opts daemonplan.Options
	p    *daemonplan.Tracker
	last daemonplan.Plan // Sync's plan of the state before the last change
}

// kit is what the kit's generators draw: every knob on.
var kit = plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}

// rollingOut draws a cluster in the middle of a rolling update: up to
// eight nodes, most of which the DaemonSet should run on, each with a pod
// of the old or the new revision or both, most of them available, and a
// budget with or without surge. Random clusters rarely get that far: manage has work to do in
// most of them, and the rolling update runs only when it has none.
func rollingOut(t *rapid.T) daemonplan.Input {
	now := plantest.Epoch
	ds := &api.DaemonSet{
		Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 2,
		Annotations:     map[string]string{api.AnnotationTemplateGeneration: "2"},
		Selector:        &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
		Template:        api.PodTemplate{Labels: map[string]string{"app": "ds", "tier": "web"}},
		MinReadySeconds: rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady"),
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: rapid.SampledFrom([]*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(2)}).Draw(t, "maxUnavailable"),
			MaxSurge:       rapid.SampledFrom([]*api.IntOrPercent{api.Int(0), api.Int(1), api.Int(2), api.Percent("50%")}).Draw(t, "maxSurge"),
		}},
	}
	in := daemonplan.Input{DaemonSet: ds, Now: now}
	newHash := revision.DefaultHash(ds, nil)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "ds", UID: "ds-uid"}
	for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
		name := plantest.NodeName(i)
		node := api.Node{Name: name, Labels: map[string]string{
			rollout.LabelZone: rapid.SampledFrom([]string{"a", "b", "c", ""}).Draw(t, "zone"),
			"pool":            rapid.SampledFrom([]string{"blue", "green"}).Draw(t, "pool"),
			"canary":          rapid.SampledFrom([]string{"yes", "no"}).Draw(t, "canary"),
		}}
		if rapid.IntRange(0, 3).Draw(t, "cordoned") == 0 {
			// should not run the pod, may keep it
			node.Taints = []api.Taint{{Key: "dedicated", Value: "other", Effect: api.TaintEffectNoSchedule}}
		}
		in.Nodes = append(in.Nodes, node)
		// old only, new only, or both (a surge in progress)
		kinds := rapid.SampledFrom([][]bool{{false}, {false}, {true}, {false, true}}).Draw(t, "pods")
		for j, isNew := range kinds {
			hash, gen := "old", "1"
			if isNew {
				hash, gen = newHash, "2"
			}
			pod := api.Pod{
				Namespace: "ns", Name: fmt.Sprintf("pod-%02d-%d", i, j), Controller: owner, NodeName: name,
				Labels: map[string]string{"app": "ds", "tier": "web", api.LabelRevisionHash: hash, api.LabelTemplateGeneration: gen},
				Phase:  api.PodRunning, Created: now.Add(-time.Hour + time.Duration(j)*time.Minute),
			}
			if rapid.IntRange(0, 3).Draw(t, "notReady") > 0 {
				pod.Ready, pod.ReadySince = true, now.Add(-time.Duration(rapid.SampledFrom([]int{5, 30}).Draw(t, "readyFor"))*time.Second)
			}
			in.Pods = append(in.Pods, pod)
		}
	}
	return in
}

// progressive draws a combination of the progressive extensions, which the
// Tracker plans through the same fold and passes as Sync (no whole Sync),
// paused or frozen at times, with a verdict on hash at times.
func progressive(t *rapid.T, hash string) rollout.Progressive {
	p := plantest.Progressive().Draw(t, "progressive")
	p.Pause = rapid.IntRange(0, 5).Draw(t, "pause") == 0
	p.Freeze = rapid.IntRange(0, 5).Draw(t, "freeze") == 0
	if v := rapid.IntRange(0, 2).Draw(t, "verdict"); v > 0 && p.Canary != nil {
		p.Canary.Verdicts[hash] = rollout.Verdict(v)
	}
	return p
}

func newModel(t *rapid.T) *model {
	var in daemonplan.Input
	if rapid.Bool().Draw(t, "rollingOut") {
		in = rollingOut(t)
	} else {
		in = plantest.Snapshots(kit).Draw(t, "cluster").Input
	}
	m := &model{
		in: in,
		opts: daemonplan.Options{Placement: placement.Options{
			BurstReplicas:          rapid.SampledFrom([]int{0, 1, 2}).Draw(t, "burst"),
			IgnoredDuringExecution: rapid.IntRange(0, 3).Draw(t, "ignored") == 0,
		}},
	}
	if rapid.IntRange(0, 2).Draw(t, "progressive") == 0 {
		// A verdict is on the revision being rolled out: the hash a Sync of
		// the input names.
		first, _ := daemonplan.Sync(m.in, m.opts)
		m.opts.Progressive = progressive(t, first.Hash)
	}
	// Pods of the kit may share a name: a Tracker keys them by name.
	m.in.Pods = slices.CompactFunc(m.in.Pods, func(a, b api.Pod) bool { return a.Namespace == b.Namespace && a.Name == b.Name })
	p, err := daemonplan.NewTracker(m.in, m.opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	m.p = p
	return m
}

// nodeNames are the names of the model's nodes.
func (m *model) nodeNames() []string {
	var out []string
	for _, n := range m.in.Nodes {
		out = append(out, n.Name)
	}
	return out
}

func (m *model) hash() string {
	if m.last.Hash != "" {
		return m.last.Hash
	}
	return "h1"
}

func (m *model) setNode(t *rapid.T, n api.Node) {
	i := slices.IndexFunc(m.in.Nodes, func(x api.Node) bool { return x.Name == n.Name })
	m.in.Nodes = slices.Clone(m.in.Nodes)
	if i < 0 {
		m.in.Nodes = append(m.in.Nodes, n)
	} else {
		m.in.Nodes[i] = n
	}
	m.quietNode(t, "SetNode", func() bool { return m.p.SetNode(n) })
}

// quietNode makes the node change change, and checks that when it reports
// it changes no plan (SetNode, DeleteNode), Plan returns what it returned
// before: the promise a controller filters its node events by.
func (m *model) quietNode(t *rapid.T, name string, change func() bool) {
	before, berr := m.p.Plan()
	if change() {
		return
	}
	after, aerr := m.p.Plan()
	if !reflect.DeepEqual(before, after) && cmp.Diff(before, after, errorText) != "" || !reflect.DeepEqual(berr, aerr) && cmp.Diff(berr, aerr, errorText) != "" {
		t.Fatalf("%s said no plan changes, but Plan() did (-before +after):\n%s%s", name, cmp.Diff(before, after, errorText), cmp.Diff(berr, aerr, errorText))
	}
}

func (m *model) setPod(pod api.Pod) {
	i := slices.IndexFunc(m.in.Pods, func(x api.Pod) bool { return x.Namespace == pod.Namespace && x.Name == pod.Name })
	m.in.Pods = slices.Clone(m.in.Pods)
	if i < 0 {
		m.in.Pods = append(m.in.Pods, pod)
	} else {
		m.in.Pods[i] = pod
	}
	m.p.SetPod(pod)
}

// actions are the changes a controller sees, each applied to the model and
// to the Tracker.
func (m *model) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"SetNode": func(t *rapid.T) {
			i := rapid.IntRange(0, 9).Draw(t, "node")
			m.setNode(t, plantest.Node(kit, i).Draw(t, "newNode"))
		},
		"SetBadNode": func(t *rapid.T) {
			// A name Sync refuses: every plan is a whole Sync while the
			// node is held, and the Tracker's own again once it is gone
			// (issue 28, item 7).
			if rapid.IntRange(0, 3).Draw(t, "badNode") > 0 {
				t.Skip("rare")
			}
			m.setNode(t, api.Node{Name: rapid.SampledFrom([]string{"", "n\xff"}).Draw(t, "badName")})
		},
		"DeleteNode": func(t *rapid.T) {
			names := append(m.nodeNames(), "node-9")
			name := rapid.SampledFrom(names).Draw(t, "deleteNode")
			m.in.Nodes = slices.DeleteFunc(slices.Clone(m.in.Nodes), func(n api.Node) bool { return n.Name == name })
			m.quietNode(t, "DeleteNode", func() bool { return m.p.DeleteNode(name) })
		},
		"SetPod": func(t *rapid.T) {
			i := rapid.IntRange(0, 19).Draw(t, "pod")
			m.setPod(plantest.Pod(kit, m.in.DaemonSet, i, m.nodeNames(), []string{m.hash(), "old"}).Draw(t, "newPod"))
		},
		"ChangePod": func(t *rapid.T) {
			if len(m.in.Pods) == 0 {
				t.Skip("no pod")
			}
			pod := rapid.SampledFrom(m.in.Pods).Draw(t, "changed").DeepCopy()
			switch rapid.IntRange(0, 4).Draw(t, "change") {
			case 0:
				pod.Ready = !pod.Ready
				pod.ReadySince = m.in.Now.Add(-time.Duration(rapid.IntRange(0, 20).Draw(t, "readyFor")) * time.Second)
			case 1:
				pod.Phase = rapid.SampledFrom([]api.PodPhase{api.PodRunning, api.PodFailed, api.PodSucceeded, api.PodPending}).Draw(t, "phase")
			case 2:
				pod.Deleting = !pod.Deleting
			case 3:
				pod.Labels[api.LabelRevisionHash] = rapid.SampledFrom([]string{m.hash(), "old"}).Draw(t, "hashLabel")
			case 4:
				pod.NodeName = rapid.SampledFrom(append(m.nodeNames(), "node-9", "")).Draw(t, "nodeName")
			}
			m.setPod(pod)
		},
		"DeletePod": func(t *rapid.T) {
			if len(m.in.Pods) == 0 {
				t.Skip("no pod")
			}
			pod := rapid.SampledFrom(m.in.Pods).Draw(t, "deleted")
			m.in.Pods = slices.DeleteFunc(slices.Clone(m.in.Pods), func(x api.Pod) bool { return x.Namespace == pod.Namespace && x.Name == pod.Name })
			m.p.DeletePod(pod.Namespace, pod.Name)
		},
		"ApplyCreates": func(t *rapid.T) {
			// The controller's creates land, bound to their nodes.
			for j, c := range m.last.Create {
				pod := api.Pod{
					Namespace: m.in.DaemonSet.Namespace, Name: fmt.Sprintf("new-%d-%d", len(m.in.Pods), j),
					Labels: c.Labels, Controller: &api.OwnerRef{Kind: "DaemonSet", Name: m.in.DaemonSet.Name, UID: m.in.DaemonSet.UID},
					NodeName: c.Node, Phase: api.PodRunning, Created: m.in.Now,
				}
				if rapid.Bool().Draw(t, "readyAtOnce") {
					pod.Ready, pod.ReadySince = true, m.in.Now
				}
				m.setPod(pod)
			}
		},
		"SetDaemonSet": func(t *rapid.T) {
			ds := m.in.DaemonSet.DeepCopy()
			switch rapid.IntRange(0, 3).Draw(t, "dsChange") {
			case 0:
				ds = plantest.DaemonSet(kit).Draw(t, "newDS")
			case 1:
				ds.Generation++
				ds.Template.Labels = map[string]string{"app": "ds", "tier": "web", "rev": strconv.FormatInt(ds.Generation, 10)}
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: strconv.FormatInt(ds.Generation, 10)}
			case 2:
				ds.Status = m.last.Status
			case 3:
				ds.MinReadySeconds = rapid.SampledFrom([]int32{0, 10}).Draw(t, "minReady")
			}
			m.in.DaemonSet = ds
			m.p.SetDaemonSet(ds)
		},
		"SetRevisions": func(t *rapid.T) {
			// The last plan's revision writes land.
			revs := slices.Clone(m.in.Revisions)
			for _, r := range m.last.Revisions.Update {
				if i := slices.IndexFunc(revs, func(x revision.Revision) bool { return x.Name == r.Name }); i >= 0 {
					revs[i] = r
				}
			}
			revs = append(revs, m.last.Revisions.Create...)
			revs = slices.DeleteFunc(revs, func(r revision.Revision) bool {
				return slices.Contains(m.last.Revisions.Delete, r.Name) || slices.Contains(m.last.Revisions.DeleteDuplicates, r.Name)
			})
			if rapid.IntRange(0, 4).Draw(t, "freshRevisions") == 0 {
				revs = plantest.Revisions(kit, m.in.DaemonSet).Draw(t, "revisions")
			}
			m.in.Revisions = revs
			m.p.SetRevisions(revs)
		},
		"SetNow": func(t *rapid.T) {
			d := rapid.SampledFrom([]time.Duration{0, time.Second, 5 * time.Second, 10 * time.Second, 31 * time.Minute, -5 * time.Second}).Draw(t, "advance")
			m.in.Now = m.in.Now.Add(d)
			m.p.SetNow(m.in.Now)
		},
		"SetBackoff": func(t *rapid.T) {
			m.in.Backoff = m.last.Backoff
			m.p.SetBackoff(m.last.Backoff)
		},
		"SetExpectationsPending": func(t *rapid.T) {
			m.in.ExpectationsPending = rapid.IntRange(0, 3).Draw(t, "pending") == 0
			m.p.SetExpectationsPending(m.in.ExpectationsPending)
		},
		"": m.check,
	}
}

// check compares the Tracker's plans with Sync's on the model. cmp.Diff
// runs only to explain a difference: it is slow.
func (m *model) check(t *rapid.T) {
	want, werr := daemonplan.Sync(m.in, m.opts)
	got, gerr := m.p.FullPlan()
	same := func(a, b any) bool { return reflect.DeepEqual(a, b) || cmp.Diff(a, b, errorText) == "" }
	if errors.Is(werr, daemonplan.ErrInvalidInput) {
		// The findings name objects by their index in the input, and the
		// Tracker lists them in another order than the model.
		if !errors.Is(gerr, daemonplan.ErrInvalidInput) || !reflect.DeepEqual(got, daemonplan.Plan{}) {
			t.Fatalf("Sync refuses the input (%v); FullPlan() returns %v", werr, gerr)
		}
		m.last = want
		return
	}
	if !same(werr, gerr) {
		t.Fatalf("FullPlan() error mismatch (-Sync +Tracker):\n%s", cmp.Diff(werr, gerr, errorText))
	}
	if !same(want, got) {
		t.Fatalf("FullPlan() mismatch (-Sync +Tracker):\n%s", cmp.Diff(want, got, errorText))
	}
	m.last = want
	short, serr := m.p.Plan()
	want.Nodes, want.Keep = nil, nil
	if !same(werr, serr) {
		t.Fatalf("Plan() error mismatch (-Sync +Tracker):\n%s", cmp.Diff(werr, serr, errorText))
	}
	if !same(want, short) {
		t.Fatalf("Plan() mismatch (-Sync without Nodes and Keep +Tracker):\n%s", cmp.Diff(want, short, errorText))
	}
	// The safeguard checks the Tracker's plans, which list no nodes: it
	// decides eligibility from the input (issue 28, item 8).
	if err := daemonplan.CheckPlanWith(m.in, short, m.opts); err != nil {
		t.Fatalf("CheckPlanWith(Plan()): %v", err)
	}
}

// trackerRounds is how many times TestTrackerMatchesSync runs rapid's checks
// (-rapid.checks, 100 by default, each a sequence of about -rapid.steps
// changes): DAEMONPLAN_TRACKER_ROUNDS raises it for a longer search.
func trackerRounds() int { return rounds.Of("DAEMONPLAN_TRACKER_ROUNDS", 10, 1) }

// TestTrackerMatchesSync: after every change of a random sequence (nodes
// and pods added, changed and removed, the DaemonSet changed, revisions
// written, the clock moved, the backoff and expectations set), the
// Tracker's FullPlan equals daemonplan.Sync on the same state, field for
// field, and Plan equals it but for Nodes and Keep and passes
// daemonplan.CheckPlanWith. By default 10 rounds
// of rapid's checks: a thousand sequences of about 30 changes.
func TestTrackerMatchesSync(t *testing.T) {
	for r := range trackerRounds() {
		t.Run(fmt.Sprintf("round-%d", r), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				m := newModel(t)
				t.Repeat(m.actions())
			})
		})
	}
}

// TestInputIsTheState: the state a Tracker holds is the model's, nodes by
// name and pods by namespace and name.
func TestInputIsTheState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newModel(t)
		actions := m.actions()
		actions[""] = func(t *rapid.T) {
			want := m.in
			want.Nodes = slices.Clone(want.Nodes)
			slices.SortFunc(want.Nodes, func(a, b api.Node) int { return strings.Compare(a.Name, b.Name) })
			want.Pods = slices.Clone(want.Pods)
			slices.SortFunc(want.Pods, func(a, b api.Pod) int {
				return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
			})
			got := m.p.Input()
			for _, in := range []*daemonplan.Input{&want, &got} {
				if len(in.Nodes) == 0 {
					in.Nodes = nil
				}
				if len(in.Pods) == 0 {
					in.Pods = nil
				}
				if len(in.Revisions) == 0 {
					in.Revisions = nil
				}
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("Input() mismatch (-model +Tracker):\n%s", cmp.Diff(want, got))
			}
			m.last, _ = daemonplan.Sync(m.in, m.opts)
		}
		t.Repeat(actions)
	})
}
