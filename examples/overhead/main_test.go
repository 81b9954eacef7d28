package main

import "os"

// The demo's table: the output is checked, so the numbers stay true.
func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// POOL     CILIUM  KUBE-PROXY  NVIDIA-DEVICE-PLUGIN      FLUENT-BIT  NODE-EXPORTER              DAEMON CPU  DAEMON MEMORY  ALL FIT  LEFT CPU  LEFT MEMORY  LEFT PODS
	// general  yes     yes         no: NodeAffinityMismatch  yes         yes                        460m        350Mi          true     3460m     13986Mi      54
	// gpu      yes     yes         yes                       yes         no: UntoleratedNoSchedule  410m        234Mi          true     7500m     29462Mi      54
	// infra    yes     yes         no: NodeAffinityMismatch  yes         no: UntoleratedNoSchedule  360m        170Mi          true     1570m     5974Mi       26
	//
	// What each daemon pod requests (the stored pod, as the scheduler counts it):
	//   kube-system/cilium                cpu=200m,memory=10Mi
	//   kube-system/kube-proxy            cpu=100m
	//   kube-system/nvidia-device-plugin  cpu=50m,memory=64Mi
	//   logging/fluent-bit                cpu=60m,memory=160Mi
	//   monitoring/node-exporter          cpu=100m,memory=180Mi hostPort 9100
}
