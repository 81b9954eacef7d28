package nodepool_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/kube/nodepool"
	"github.com/daemonplan/daemonplan/overhead"
)

// Read a NodePool as kubectl prints it, into the template package overhead
// answers about.
func ExampleRead() {
	pools, err := nodepool.Read("np.yaml", []byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    metadata:
      labels: {team: platform}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: topology.kubernetes.io/zone, operator: In, values: [a, b]}
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i, m7g], minValues: 2}
      startupTaints:
      - {key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, np := range pools {
		fmt.Println(np.Name, np.Template.Labels)
		for _, r := range np.Template.Requirements {
			fmt.Println(" ", overhead.RequirementString(r))
		}
		fmt.Println("  startup:", np.Template.StartupTaints)
	}
	// Output:
	// general map[karpenter.sh/nodepool:general team:platform]
	//   topology.kubernetes.io/zone In [a b]
	//   karpenter.k8s.aws/instance-family In [m7i m7g]
	//   startup: [node.cilium.io/agent-not-ready=true:NoExecute]
}

// Read an instance-type list; allocatable defaults to capacity.
func ExampleReadInstanceTypes() {
	types, err := nodepool.ReadInstanceTypes("types.yaml", []byte(`
instanceTypes:
- name: m7g.medium
  labels: {kubernetes.io/arch: arm64}
  capacity: {cpu: "1", memory: 4Gi, pods: "8"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range types {
		fmt.Println(it.Name, it.Labels, it.Allocatable)
	}
	// Output:
	// m7g.medium map[kubernetes.io/arch:arm64] cpu=1,memory=4Gi,pods=8
}
