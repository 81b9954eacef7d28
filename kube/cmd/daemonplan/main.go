// Command daemonplan shows what the Kubernetes DaemonSet controller would do
// with a cluster snapshot, without an API server.
//
//	kubectl get ds/node-agent,nodes,pods,controllerrevisions -n kube-system -o yaml > cluster.yaml
//	daemonplan plan -f cluster.yaml
//	daemonplan explain -f cluster.yaml node-017
//
// Run "daemonplan --help" for the commands and the exit codes, and
// "daemonplan plan --help" for a command's flags. kubectl-daemonplan is the same
// command built as a kubectl plugin.
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/kube/internal/cli"
)

func main() {
	os.Exit(cli.Run("daemonplan", os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
