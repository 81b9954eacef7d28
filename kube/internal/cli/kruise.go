package cli

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
)

// addKruise adds the OpenKruise Advanced DaemonSets the loader found to
// objs as apps/v1 DaemonSets, at their positions, so that --ds picks among
// them as among the others, and returns what each adds to its plan.
func addKruise(objs *load.Objects) (map[*appsv1.DaemonSet]*convert.Kruise, error) {
	if len(objs.Kruise) == 0 {
		return nil, nil
	}
	out := make(map[*appsv1.DaemonSet]*convert.Kruise, len(objs.Kruise))
	for i, u := range objs.Kruise {
		k, err := convert.KruiseDaemonSet(u)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", objs.At.Kruise[i], err)
		}
		objs.DaemonSets = append(objs.DaemonSets, k.DaemonSet)
		objs.At.DaemonSets = append(objs.At.DaemonSets, objs.At.Kruise[i])
		out[k.DaemonSet] = k
	}
	return out, nil
}
