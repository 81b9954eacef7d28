package convert_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/daemonplan/daemonplan/kube/convert"
)

// An OpenKruise Advanced DaemonSet read without OpenKruise's types: its
// partition, update selector and partitioned scaling become daemonplan's
// progressive options, and what daemonplan cannot honour is a warning.
func ExampleKruiseDaemonSet() {
	f, err := os.Open(filepath.Join("testdata", "kruise.yaml"))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	objs, err := convert.KruiseObjects(f)
	if err != nil {
		panic(err)
	}
	k, err := convert.KruiseDaemonSet(objs[0])
	if err != nil {
		panic(err)
	}
	p := k.Progressive
	fmt.Printf("%s/%s: partition %d, scope %v, partitioned scaling %v, burst %d\n",
		k.DaemonSet.Namespace, k.DaemonSet.Name, p.Partition.IntVal, p.Scope.MatchLabels, p.PartitionedScaling, k.BurstReplicas)
	for _, w := range k.Warnings {
		fmt.Println("warning:", w.Field)
	}
	// Output:
	// kube-system/agent: partition 3, scope map[pool:blue], partitioned scaling true, burst 3
	// warning: spec.updateStrategy.rollingUpdate.rollingUpdateType
	// warning: spec.lifecycle
	// warning: metadata.annotations[apps.kruise.io/image-predownload-parallelism]
}
