package rollout_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/rollout"
)

// t0 is the fixed clock of the fixtures.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The current revision: hash label hashNew and template generation 2. Old
// pods carry hashOld and generation 1.
const (
	hashNew = "hash-new"
	hashOld = "hash-old"
	genNew  = "2"
	genOld  = "1"
)

func maxUnavailable(v *api.IntOrPercent) api.UpdateStrategy {
	return rollingUpdate(v, api.Int(0))
}

func maxSurge(v *api.IntOrPercent) api.UpdateStrategy {
	return rollingUpdate(api.Int(0), v)
}

func newDS(strategy api.UpdateStrategy) *api.DaemonSet {
	return &api.DaemonSet{
		Namespace:      "default",
		Name:           "foo",
		UID:            "uid-foo",
		Generation:     2,
		Annotations:    map[string]string{api.AnnotationTemplateGeneration: genNew},
		Selector:       &api.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
		Template:       api.PodTemplate{Labels: map[string]string{"app": "foo"}},
		UpdateStrategy: strategy,
	}
}

// fixture is one hand-built snapshot.
type fixture struct {
	ds    *api.DaemonSet
	nodes []api.Node
	pods  []api.Pod
	opts  placement.Options
}

// nodeName is the i-th node of a layout; zero-padded so that name order is
// index order.
func nodeName(i int) string { return fmt.Sprintf("node-%03d", i) }

// build makes a snapshot from a layout, one entry per node (node-000, …).
// An entry is an optional prefix and then one letter per pod, oldest first:
//
//	prefix "!"  the node has an untolerated NoSchedule taint: it should not
//	            run the pod, but pods there may continue (docs/eligibility.md, E7);
//	prefix "?"  the node is missing from the node list (vanished); its pods
//	            are still bound to it.
//	O / o       old pod, available / not ready;
//	N / n       new pod, available / not ready;
//	m           new pod, Ready for only 5 s (available iff minReadySeconds ≤ 5);
//	G           pod with the old hash label but the current template
//	            generation: updated by generation (docs/rolling-update.md, R2), available;
//	T           old pod, Ready, being deleted;
//	F           old pod in phase Failed.
//
// Pods are named <node>-<kind><j>, e.g. node-003-old0.
func build(strategy api.UpdateStrategy, layout ...string) *fixture {
	f := &fixture{ds: newDS(strategy)}
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: "foo", UID: "uid-foo"}
	for i, entry := range layout {
		node := nodeName(i)
		switch {
		case strings.HasPrefix(entry, "!"):
			entry = entry[1:]
			f.nodes = append(f.nodes, api.Node{Name: node, Taints: []api.Taint{{Key: "dedicated", Value: "other", Effect: api.TaintEffectNoSchedule}}})
		case strings.HasPrefix(entry, "?"):
			entry = entry[1:]
		default:
			f.nodes = append(f.nodes, api.Node{Name: node})
		}
		for j, letter := range entry {
			p := api.Pod{
				Namespace:  "default",
				Controller: owner,
				NodeName:   node,
				Phase:      api.PodRunning,
				Created:    t0.Add(-2*time.Hour + time.Duration(j)*time.Minute),
			}
			hash, gen, kind := hashOld, genOld, "old"
			switch letter {
			case 'N', 'n', 'm':
				hash, gen, kind = hashNew, genNew, "new"
			case 'G':
				gen, kind = genNew, "gen"
			}
			p.Name = fmt.Sprintf("%s-%s%d", node, kind, j)
			p.UID = "uid-" + p.Name
			p.Labels = map[string]string{"app": "foo", api.LabelRevisionHash: hash, api.LabelTemplateGeneration: gen}
			switch letter {
			case 'O', 'N', 'G', 'T':
				p.Ready, p.ReadySince = true, t0.Add(-time.Hour)
			case 'm':
				p.Ready, p.ReadySince = true, t0.Add(-5*time.Second)
			case 'o', 'n':
				p.Phase = api.PodPending
			case 'F':
				p.Phase = api.PodFailed
			default:
				panic("build: unknown letter " + string(letter))
			}
			p.Deleting = letter == 'T'
			f.pods = append(f.pods, p)
		}
	}
	return f
}

// uniform repeats one entry n times.
func uniform(n int, entry string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = entry
	}
	return out
}

// tb is what the fixtures need of *testing.T and *rapid.T.
type tb interface {
	require.TestingT
	Helper()
}

func (f *fixture) cluster(t tb) *placement.Index {
	t.Helper()
	c, err := placement.Compile(f.ds, f.opts)
	require.NoError(t, err)
	ix, err := c.Index(f.nodes, f.pods)
	require.NoError(t, err)
	return ix
}

func (f *fixture) step(t tb) (rollout.Step, error) {
	t.Helper()
	step, _, err := rollout.RollingUpdate(f.cluster(t), t0, hashNew, rollout.Progressive{})
	return step, err
}

// del builds the expected deletes of pods named by build.
func del(reason placement.DeleteReason, pods ...string) []placement.Delete {
	out := make([]placement.Delete, len(pods))
	for i, p := range pods {
		out[i] = placement.Delete{Pod: p, Node: p[:strings.LastIndex(p, "-")], Reason: reason}
	}
	return out
}

func join[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// stepShape is a Step as the tables write it: deletes, and the nodes that
// get a create.
type stepShape struct {
	Delete []placement.Delete
	Create []string
}

func shapeOf(s rollout.Step) stepShape {
	out := stepShape{Delete: s.Delete}
	for _, c := range s.Create {
		out.Create = append(out.Create, c.Node)
	}
	return out
}

// sortedDeletes returns ds sorted by pod name, the order of Step.Delete.
func sortedDeletes(ds []placement.Delete) []placement.Delete {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(a, b placement.Delete) int { return strings.Compare(a.Pod, b.Pod) })
	return out
}
