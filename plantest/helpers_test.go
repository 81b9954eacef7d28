package plantest_test

import (
	"fmt"
	"maps"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/revision"
)

// midUpdate is a DaemonSet ns/ds whose template just changed, on n plain
// nodes that each run one available pod of the old revision, with the
// given budgets, and (when foreign) a pod of another controller on
// node-0.
func midUpdate(n int, maxUnavailable, maxSurge int32, foreign bool) daemonplan.Input {
	ds := &api.DaemonSet{
		Namespace: "ns", Name: "ds", UID: "ds-uid", Generation: 2,
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
		Template: api.PodTemplate{Labels: map[string]string{"app": "ds"}, Annotations: map[string]string{"version": "2"}},
		UpdateStrategy: api.UpdateStrategy{Type: api.RollingUpdate, RollingUpdate: &api.RollingUpdateParams{
			MaxUnavailable: api.Int(maxUnavailable), MaxSurge: api.Int(maxSurge)}},
		Status: api.Status{ObservedGeneration: 1},
	}
	old := ds.DeepCopy()
	old.Template.Annotations["version"] = "1"
	oldHash := revision.DefaultHash(old, nil)
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "ds", UID: "ds-uid"}
	in := daemonplan.Input{DaemonSet: ds, Now: plantest.Epoch, Revisions: []revision.Revision{{
		Namespace: "ns", Name: "ds-" + oldHash, Labels: map[string]string{"app": "ds", api.LabelRevisionHash: oldHash},
		Controller: owner, Revision: 1, Data: revision.TemplateData(old),
	}}}
	for i := range n {
		node := fmt.Sprintf("node-%d", i)
		in.Nodes = append(in.Nodes, api.Node{Name: node})
		in.Pods = append(in.Pods, api.Pod{
			Namespace: "ns", Name: "old-" + node, Labels: map[string]string{"app": "ds", api.LabelRevisionHash: oldHash},
			Controller: owner, NodeName: node, Phase: api.PodRunning, Ready: true,
			ReadySince: plantest.Epoch.Add(-time.Minute), Created: plantest.Epoch.Add(-2 * time.Minute),
		})
	}
	if foreign {
		in.Pods = append(in.Pods, api.Pod{
			Namespace: "ns", Name: "foreign", Labels: map[string]string{"app": "ds"},
			Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "other-uid"},
			NodeName:   "node-0", Phase: api.PodRunning, Ready: true, Created: plantest.Epoch.Add(-time.Hour),
		})
	}
	return in
}

// sync plans in with the zero Options, as upstream.
func sync(in daemonplan.Input) (daemonplan.Plan, error) {
	return daemonplan.Sync(in, daemonplan.Options{})
}

// mustSync plans in and panics on an error: fixtures are valid.
func mustSync(in daemonplan.Input) daemonplan.Plan {
	p, err := sync(in)
	if err != nil || len(p.Errors) > 0 {
		panic(fmt.Sprint("fixture does not plan: ", err, p.Errors))
	}
	return p
}

// cloneInput deep-copies an input (nil and empty kept apart), so that
// tests can tell whether something changed it.
func cloneInput(in daemonplan.Input) daemonplan.Input {
	out := in
	out.DaemonSet = in.DaemonSet.DeepCopy()
	out.Nodes = deepCopyAll(in.Nodes, api.Node.DeepCopy)
	out.Pods = deepCopyAll(in.Pods, api.Pod.DeepCopy)
	out.Revisions = deepCopyAll(in.Revisions, revision.Revision.DeepCopy)
	out.Backoff = maps.Clone(in.Backoff)
	return out
}

func deepCopyAll[T any](s []T, deepCopy func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = deepCopy(v)
	}
	return out
}
