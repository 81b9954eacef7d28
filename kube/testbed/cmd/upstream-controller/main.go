// Command upstream-controller runs the DaemonSet controller of Kubernetes
// v1.37.2 as kube-controller-manager starts it (package upstreamdaemon),
// alone, against the cluster of a kubeconfig, until interrupted. The
// testbed's cost runs start it as a process of its own so that its CPU
// time is measured as the example controller's is.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/daemonplan/daemonplan/kube/testbed/upstreamdaemon"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstream-controller:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done, err := upstreamdaemon.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstream-controller:", err)
		os.Exit(1)
	}
	<-done
}
