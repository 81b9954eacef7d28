package overhead_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/overhead"
)

// TestNegativeRequests: a negative quantity in what a daemon pod requests
// is one the API server refuses ("must be greater than or equal to 0"). It
// was taken as fitting and lowered the node's total, without a word (issue
// 28, item 12). Set.Warnings names each such field, by the DaemonSet's
// index in Compile's input.
func TestNegativeRequests(t *testing.T) {
	ds := func(mod func(tp *api.PodTemplate)) *api.DaemonSet {
		d := &api.DaemonSet{Namespace: "kube-system", Name: "agent", UID: "agent-uid", Template: api.PodTemplate{
			Containers: []api.Container{{Name: "agent", Resources: api.Resources{Requests: list("cpu", "100m")}}},
		}}
		mod(&d.Template)
		return d
	}
	const detail = "must be greater than or equal to 0"
	tests := []struct {
		name, reason string
		ds           *api.DaemonSet
		want         []string // field paths
	}{{
		name: "valid", reason: "nothing to say",
		ds: ds(func(*api.PodTemplate) {}),
	}, {
		name: "container request", reason: "a request of -1 was taken as fitting and lowered the total",
		ds:   ds(func(tp *api.PodTemplate) { tp.Containers[0].Resources.Requests = list("cpu", "-1") }),
		want: []string{"daemonSets[1].spec.template.spec.containers[0].resources.requests[cpu]"},
	}, {
		name: "init container limit", reason: "a limit defaults the request",
		ds: ds(func(tp *api.PodTemplate) {
			tp.InitContainers = []api.Container{{Name: "init", Resources: api.Resources{Limits: list("memory", "-1Mi")}}}
		}),
		want: []string{"daemonSets[1].spec.template.spec.initContainers[0].resources.limits[memory]"},
	}, {
		name: "overhead and pod-level", reason: "every list that adds to the requests",
		ds: ds(func(tp *api.PodTemplate) {
			tp.Overhead = list("cpu", "-10m")
			tp.Resources = api.Resources{Requests: list("memory", "-1"), Limits: list("cpu", "-2")}
		}),
		want: []string{
			"daemonSets[1].spec.template.spec.overhead[cpu]",
			"daemonSets[1].spec.template.spec.resources.requests[memory]",
			"daemonSets[1].spec.template.spec.resources.limits[cpu]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := &api.DaemonSet{Namespace: "a", Name: "first"} // sorted first: paths keep the input's index
			set := overhead.Compile([]*api.DaemonSet{other, tt.ds}, overhead.Options{})
			var got []string
			for _, e := range set.Warnings() {
				if e.Type != field.TypeInvalid || e.Detail != detail {
					t.Errorf("warning %v: want Invalid %q", e, detail)
				}
				got = append(got, e.Field)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Warnings() field paths (-want +got):\n%s\nreason: %s", d, tt.reason)
			}
		})
	}
}
