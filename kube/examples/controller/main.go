package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The API client's settings, as kube-controller-manager's defaults
// (--kube-api-qps, --kube-api-burst, --kube-api-content-type) and its
// --concurrent-daemonset-syncs.
const (
	defaultQPS     = 20
	defaultBurst   = 30
	defaultWorkers = 2
	protobuf       = "application/vnd.kubernetes.protobuf"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	namespace := flag.String("namespace", "default", "namespace of the DaemonSets")
	name := flag.String("name", "", "name of the one DaemonSet to control (default: every DaemonSet of the namespace)")
	qps := flag.Float64("kube-api-qps", defaultQPS, "queries per second to the API server")
	burst := flag.Int("kube-api-burst", defaultBurst, "burst of queries to the API server")
	workers := flag.Int("concurrent-daemonset-syncs", defaultWorkers, "DaemonSets synced at once")
	resync := flag.Duration("resync", time.Minute, "sync every DaemonSet at least this often (0: only on changes)")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*kubeconfig, *namespace, *name, float32(*qps), *burst, *workers, *resync); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, namespace, name string, qps float32, burst, workers int, resync time.Duration) error {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = qps, burst
	cfg.ContentType, cfg.AcceptContentTypes = protobuf, protobuf+",application/json"
	cfg.UserAgent = "daemonplan-example-controller"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &Controller{Client: client, Namespace: namespace, Name: name, Now: time.Now, Resync: resync, Workers: workers}
	return c.Run(ctx)
}
