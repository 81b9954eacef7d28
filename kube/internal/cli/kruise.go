package cli

import (
	"bytes"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
)

// addKruise adds the OpenKruise Advanced DaemonSets of data to objs as
// apps/v1 DaemonSets, so that --ds picks among them as among the others,
// and returns what each adds to its plan. src names the input in their
// positions.
func addKruise(objs *load.Objects, data []byte, src string) (map[*appsv1.DaemonSet]*convert.Kruise, error) {
	us, err := convert.KruiseObjects(bytes.NewReader(data))
	if err != nil || len(us) == 0 {
		return nil, err
	}
	out := make(map[*appsv1.DaemonSet]*convert.Kruise, len(us))
	for _, u := range us {
		k, err := convert.KruiseDaemonSet(u)
		if err != nil {
			return nil, err
		}
		objs.DaemonSets = append(objs.DaemonSets, k.DaemonSet)
		objs.At.DaemonSets = append(objs.At.DaemonSets, load.Position{Source: src})
		out[k.DaemonSet] = k
	}
	return out, nil
}
