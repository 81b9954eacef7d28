package placement_test

import (
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/google/go-cmp/cmp"
)

func TestNumberReadyStatus(t *testing.T) {
	for _, s := range strategies {
		t.Run(s.name, func(t *testing.T) {
			f := &fixture{ds: newDS(s.mod)}
			f.addNodes(0, 2, simpleNodeLabel)
			f.addPods("node-0", simpleDaemonSetLabel, 1)
			f.addPods("node-1", simpleDaemonSetLabel, 1)
			_, got := f.plan(t, nil)
			want := api.Status{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberUnavailable: 2, ObservedGeneration: 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pods not ready: Status() mismatch (-want +got):\n%s", diff)
			}
			for i := range f.pods {
				f.pods[i].Ready = true
			}
			_, got = f.plan(t, nil)
			want = api.Status{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2, NumberAvailable: 2, ObservedGeneration: 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pods ready: Status() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusCounters(t *testing.T) {
	collisions := int32(3)
	cases := []struct {
		name   string
		reason string
		ds     func(*api.DaemonSet)
		build  func(f *fixture)
		want   api.Status
	}{
		{
			name:   "empty cluster",
			reason: "nothing desired, nothing counted; observedGeneration is the generation",
			want:   api.Status{ObservedGeneration: 1},
		},
		{
			name:   "nodes without pods",
			reason: "desired and unavailable count nodes that should run the pod",
			build:  func(f *fixture) { f.addNodes(0, 3, nil) },
			want:   api.Status{DesiredNumberScheduled: 3, NumberUnavailable: 3, ObservedGeneration: 1},
		},
		{
			name:   "misscheduled on a NoSchedule-tainted node",
			reason: "the pod may continue running but the node should not run it: misscheduled, not desired",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil, noScheduleTaint)
				f.addNodes(1, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, ready)
				f.addPods("node-1", simpleDaemonSetLabel, 1, ready)
			},
			want: api.Status{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1,
				NumberMisscheduled: 1, ObservedGeneration: 1},
		},
		{
			name:   "misscheduled on a node the selector left",
			reason: "a pod on a node that no longer matches counts as misscheduled",
			ds:     func(ds *api.DaemonSet) { ds.Template.NodeSelector = simpleNodeLabel },
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, ready)
			},
			want: api.Status{NumberMisscheduled: 1, ObservedGeneration: 1},
		},
		{
			name:   "only the oldest pod counts",
			reason: "the oldest pod is not ready and old; a younger ready updated duplicate does not count",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1)
				f.addPods("node-0", simpleDaemonSetLabel, 1, ready, hashLabel(testHash))
			},
			want: api.Status{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 1},
		},
		{
			name:   "scheduled pods before unscheduled ones",
			reason: "an unbound pod, though older, is not the node's first pod",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, createdAgo(time.Hour), func(p *api.Pod) {
					p.NodeName = ""
					p.RequiredNodeAffinity = placement.PodNodeAffinity("node-0")
				})
				f.addPods("node-0", simpleDaemonSetLabel, 1, ready, hashLabel(testHash))
			},
			want: api.Status{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1,
				UpdatedNumberScheduled: 1, ObservedGeneration: 1},
		},
		{
			name:   "failed and terminating pods count as scheduled",
			reason: "a node with only a failed or a terminating pod is current",
			build: func(f *fixture) {
				f.addNodes(0, 2, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed)
				f.addPods("node-1", simpleDaemonSetLabel, 1, deleting)
			},
			want: api.Status{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberUnavailable: 2, ObservedGeneration: 1},
		},
		{
			name:   "terminal and deleting pods do not count",
			reason: "pods both terminal and being deleted are out of the buckets",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, failed, deleting)
			},
			want: api.Status{DesiredNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 1},
		},
		{
			name:   "ready but not yet available",
			reason: "ready for 10s of minReadySeconds 15",
			ds:     func(ds *api.DaemonSet) { ds.MinReadySeconds = 15 },
			build: func(f *fixture) {
				f.addNodes(0, 2, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, readySince(10*time.Second))
				f.addPods("node-1", simpleDaemonSetLabel, 1, readySince(15*time.Second))
			},
			want: api.Status{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2, NumberAvailable: 1,
				NumberUnavailable: 1, ObservedGeneration: 1},
		},
		{
			name:   "updated by hash or by template generation",
			reason: "node-0 matches the hash, node-1 the generation label, node-2 neither",
			ds: func(ds *api.DaemonSet) {
				ds.Annotations = map[string]string{api.AnnotationTemplateGeneration: "4"}
			},
			build: func(f *fixture) {
				f.addNodes(0, 3, nil)
				f.addPods("node-0", simpleDaemonSetLabel, 1, hashLabel(testHash))
				f.addPods("node-1", simpleDaemonSetLabel, 1, func(p *api.Pod) { p.Labels[api.LabelTemplateGeneration] = "4" })
				f.addPods("node-2", simpleDaemonSetLabel, 1, hashLabel("old"), func(p *api.Pod) { p.Labels[api.LabelTemplateGeneration] = "3" })
			},
			want: api.Status{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 2,
				NumberUnavailable: 3, ObservedGeneration: 1},
		},
		{
			name:   "pods on vanished nodes are not counted",
			reason: "status iterates the node list only",
			build: func(f *fixture) {
				f.addNodes(0, 1, nil)
				f.addPods("node-7", simpleDaemonSetLabel, 1, ready)
			},
			want: api.Status{DesiredNumberScheduled: 1, NumberUnavailable: 1, ObservedGeneration: 1},
		},
		{
			name:   "collision count copied",
			reason: "Status carries the DaemonSet's collision count",
			ds: func(ds *api.DaemonSet) {
				ds.Generation = 5
				ds.Status.CollisionCount = &collisions
			},
			want: api.Status{ObservedGeneration: 5, CollisionCount: &collisions},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fixture{ds: newDS()}
			if tc.ds != nil {
				tc.ds(f.ds)
			}
			if tc.build != nil {
				tc.build(f)
			}
			_, got := f.plan(t, nil)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nStatus() mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
