package progressive

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Stepped is one DaemonSet StepAll looked at, and what became of it.
type Stepped struct {
	Namespace, Name string
	// Skipped reports a rollout that is done or aborted at the
	// DaemonSet's current generation: nothing can change it but a new
	// template or a command, so it was not stepped (Result.Rollout is
	// as read; its Nodes are empty).
	Skipped bool
	// Result and Err are the Step's.
	Result StepResult
	Err    error
}

// StepAll steps, once each, every DaemonSet of namespace ("": every
// namespace) that carries the Annotation, in namespace/name order: the
// long-running mode calls it once per interval. Each is the same Step as
// `rollout resume --watch` runs; a DaemonSet's error (ErrConflict, a
// *NotOnDeleteError, an annotation that does not parse) is in its
// Stepped.Err and the others are stepped all the same. A rollout that is
// done or aborted and whose DaemonSet's metadata.generation is the one
// its last step saw (RolloutState.Generation) is skipped without a read:
// only a template change (which bumps the generation) or a command
// (which writes the annotation, resetting the phase) can move it.
//
// It needs list on daemonsets in namespace (cluster-wide when namespace
// is ""), beside Step's rights. The error is the list's.
func (dr Driver) StepAll(ctx context.Context, namespace string, now time.Time) ([]Stepped, error) {
	list, err := dr.Client.AppsV1().DaemonSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	items := list.Items
	slices.SortFunc(items, func(a, b appsv1.DaemonSet) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	var out []Stepped
	for i := range items {
		ds := &items[i]
		if _, ok := ds.Annotations[Annotation]; !ok {
			continue
		}
		s := Stepped{Namespace: ds.Namespace, Name: ds.Name}
		if r, err := Parse(ds); err == nil && finished(r) && r.Status.Generation == ds.Generation {
			s.Skipped, s.Result.Rollout = true, *r
			out = append(out, s)
			continue
		}
		if ctx.Err() != nil {
			return out, nil
		}
		s.Result, s.Err = dr.Step(ctx, ds.Namespace, ds.Name, now)
		out = append(out, s)
	}
	return out, nil
}

// Conflicted reports a Stepped whose step met a Conflict: it deleted
// nothing and the next interval steps it again.
func (s Stepped) Conflicted() bool { return errors.Is(s.Err, ErrConflict) }
