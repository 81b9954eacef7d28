// Command daemonplan shows what the Kubernetes v1.34 DaemonSet controller
// would do with a cluster snapshot, without an API server.
//
//	kubectl get ds/node-agent,nodes,pods,controllerrevisions -n kube-system -o yaml > cluster.yaml
//	daemonplan plan -f cluster.yaml
//	daemonplan explain -f cluster.yaml node-017
//
// Run "daemonplan help" for the flags and exit codes.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
