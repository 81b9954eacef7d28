package placement_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

// TestManageDeleteReasons checks the reason each delete carries: callers
// render it and the CLI's explain tells operators what to fix, so a wrong
// reason is a wrong answer even when the pod is right.
func TestManageDeleteReasons(t *testing.T) {
	tests := []struct {
		name, reason string
		taints       []api.Taint
		labels       map[string]string // node labels; nil matches the template
		podMods      []func(*api.Pod)
		pods         int
		want         string
	}{
		{
			name:   "untolerated NoExecute",
			reason: "a NoExecute taint the pod does not tolerate evicts it: the reason names the taint, not eligibility",
			taints: []api.Taint{noExecuteTaint},
			pods:   1,
			want:   "UntoleratedTaint",
		},
		{
			name:   "NoSchedule first, NoExecute later",
			reason: "the first untolerated taint is NoSchedule, but a later NoExecute one still evicts",
			taints: []api.Taint{noScheduleTaint, {Key: "evict", Effect: api.TaintEffectNoExecute}},
			pods:   1,
			want:   "UntoleratedTaint",
		},
		{
			name:   "node selector no longer matches",
			reason: "the node lost the label the nodeSelector asks for",
			labels: map[string]string{"color": "green"},
			pods:   1,
			want:   "NotEligible",
		},
		{
			name:   "two running pods",
			reason: "the younger of two running pods is a duplicate",
			pods:   2,
			want:   "Duplicate",
		},
		{
			name:    "failed pod",
			reason:  "a failed pod is deleted as Failed",
			pods:    1,
			podMods: []func(*api.Pod){failed},
			want:    "Failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{ds: newDS(func(ds *api.DaemonSet) { ds.Template.NodeSelector = map[string]string{"color": "blue"} })}
			labels := tt.labels
			if labels == nil {
				labels = map[string]string{"color": "blue"}
			}
			f.addNodes(0, 1, labels, tt.taints...)
			f.addPods("node-0", f.ds.Template.Labels, tt.pods, tt.podMods...)
			p, _ := f.plan(t, nil)
			var got []string
			for _, d := range p.Delete {
				got = append(got, d.Reason.String())
			}
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("delete reasons mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}
