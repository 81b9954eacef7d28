// Command kubectl-daemonplan is the daemonplan command built as a kubectl
// plugin: with it on the PATH,
//
//	kubectl get ds,nodes,pods,controllerrevisions -o yaml | kubectl daemonplan plan -f - --ds node-agent
//
// works. It is the same code as cmd/daemonplan.
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/kube/internal/cli"
)

func main() {
	os.Exit(cli.Run("kubectl daemonplan", os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
