// Command upstream-controller runs the DaemonSet controller of Kubernetes
// v1.37.2 as kube-controller-manager starts it (package upstreamdaemon),
// alone, against the cluster of a kubeconfig, until interrupted. The
// testbed's cost runs start it as a process of its own so that its CPU
// time is measured as the example controller's is. With
// --metrics-bind-address it serves the metrics kube-controller-manager
// serves for it at /metrics: client-go's (the work queue's, by name
// "daemonset", the REST client's) and the DaemonSet controller's own.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/metrics/legacyregistry"

	// client-go's metrics as kube-controller-manager installs them (the
	// work queue's, the REST client's, leader election's).
	_ "k8s.io/component-base/metrics/prometheus/clientgo"

	"github.com/daemonplan/daemonplan/kube/testbed/upstreamdaemon"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	metricsAddr := flag.String("metrics-bind-address", "", "address to serve Prometheus metrics on at /metrics, as 127.0.0.1:8080 (empty: none)")
	flag.Parse()
	if *metricsAddr != "" {
		l, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "upstream-controller:", err)
			os.Exit(1)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", legacyregistry.Handler())
		go func() { _ = http.Serve(l, mux) }()
	}
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
