// Package upstreamdaemon runs the DaemonSet controller of Kubernetes
// v1.37.2 (k8s.io/kubernetes/pkg/controller/daemon) as
// kube-controller-manager starts it. The testbed runs it in the test
// process (testbed.StartUpstream) and, for the cost runs, as a program of
// its own (cmd/upstream-controller), so that its CPU time is its own.
package upstreamdaemon

import (
	"context"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// ClientConfig is cfg as kube-controller-manager's clients have it:
// protobuf, QPS 20, burst 30 (its --kube-api-qps and --kube-api-burst
// defaults), no compression (it sets DisableCompression: responses come
// whole, watch streams included, as from a server close by), and the user
// agent.
func ClientConfig(cfg *rest.Config, userAgent string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.DisableCompression = true
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c.QPS, c.Burst = 20, 30
	c.UserAgent = userAgent
	return c
}

// Start runs the controller until ctx is done, as kube-controller-manager
// starts it: NewDaemonSetsController on a shared informer factory (resync
// 12h, kube-controller-manager's --min-resync-period), the failed-pods
// backoff of 1s to 15m, and Run with 2 workers
// (--concurrent-daemonset-syncs). The returned channel is closed when it
// has stopped.
func Start(ctx context.Context, cfg *rest.Config) (<-chan struct{}, error) {
	client, err := kubernetes.NewForConfig(ClientConfig(cfg, "kube-controller-manager/daemon-set-controller"))
	if err != nil {
		return nil, err
	}
	infClient, err := kubernetes.NewForConfig(ClientConfig(cfg, "kube-controller-manager/shared-informers"))
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(infClient, 12*time.Hour)
	dsc, err := daemon.NewDaemonSetsController(ctx,
		factory.Apps().V1().DaemonSets(),
		factory.Apps().V1().ControllerRevisions(),
		factory.Core().V1().Pods(),
		factory.Core().V1().Nodes(),
		client,
		flowcontrol.NewBackOff(1*time.Second, 15*time.Minute),
	)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	factory.Start(ctx.Done())
	go func() {
		defer close(done)
		dsc.Run(ctx, 2)
		factory.Shutdown()
	}()
	return done, nil
}
