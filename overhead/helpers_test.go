package overhead_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

// fleet returns n DaemonSets of the shapes clusters run: most land on
// every node, some select GPU nodes, some tolerate everything, some need
// a zone; each with one to three containers.
func fleet(n int) []*api.DaemonSet {
	out := make([]*api.DaemonSet, n)
	for i := range out {
		ds := &api.DaemonSet{Namespace: "kube-system", Name: fmt.Sprintf("ds-%02d", i), UID: fmt.Sprintf("uid-%02d", i)}
		t := &ds.Template
		switch i % 5 {
		case 0:
			t.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
		case 1:
			t.NodeSelector = map[string]string{"accelerator": "gpu"}
			t.Tolerations = []api.Toleration{{Key: "nvidia.com/gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}
		case 2:
			t.Tolerations = []api.Toleration{{Operator: api.TolerationOpExists}}
		case 3:
			t.RequiredNodeAffinity = &api.NodeSelector{Terms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "topology.kubernetes.io/zone", Operator: api.SelectorOpIn, Values: []string{"a", "b"}},
			}}}}
		}
		for c := range 1 + i%3 {
			t.Containers = append(t.Containers, api.Container{
				Name: fmt.Sprintf("c%d", c),
				Resources: api.Resources{
					Requests: resource.List{"cpu": resource.NewMilliQuantity(int64(10*(i+c+1)), resource.DecimalSI)},
					Limits:   resource.List{"memory": resource.NewQuantity(int64(16<<20)*int64(c+1), resource.BinarySI)},
				},
			})
		}
		out[i] = ds
	}
	return out
}

func gpuNode() api.Node {
	return api.Node{
		Name: "gpu-1",
		Labels: map[string]string{
			"kubernetes.io/os": "linux", "accelerator": "gpu", "topology.kubernetes.io/zone": "a",
			"kubernetes.io/hostname": "gpu-1", "node.kubernetes.io/instance-type": "g5.xlarge",
		},
		Taints: []api.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: api.TaintEffectNoSchedule}},
	}
}
