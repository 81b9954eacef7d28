package testbed

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	cacheddiscovery "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
)

// startGarbageCollector runs kube-controller-manager's garbage collector
// (v1.37.2) in this process as kube-controller-manager starts it: a
// discovery REST mapper reset every 30 s, typed and metadata informers,
// the default ignored resources, 20 workers (--concurrent-gc-syncs), a
// sync with discovery every 30 s. It stops with ctx.
func startGarbageCollector(ctx context.Context, cfg *rest.Config) error {
	c := rest.CopyConfig(cfg)
	c.UserAgent = "generic-garbage-collector" // not kube-controller-manager: Bed.Writes tells it from the DaemonSet controller
	c.QPS, c.Burst = 40, 30                   // kube-controller-manager's QPS × 2 for the collector
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return err
	}
	metadataClient, err := metadata.NewForConfig(c)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cacheddiscovery.NewMemCacheClient(dc))
	go wait.Until(mapper.Reset, 30*time.Second, ctx.Done())
	typed := informers.NewSharedInformerFactory(client, 12*time.Hour)
	meta := metadatainformer.NewSharedInformerFactory(metadataClient, 12*time.Hour)
	started := make(chan struct{})
	gc, err := garbagecollector.NewGarbageCollector(ctx, client, metadataClient, mapper,
		garbagecollector.DefaultIgnoredResources(), informerfactory.NewInformerFactory(typed, meta), started)
	if err != nil {
		return err
	}
	go gc.Run(ctx, 20, 30*time.Second)
	go gc.Sync(ctx, dc, 30*time.Second)
	typed.Start(ctx.Done())
	meta.Start(ctx.Done())
	close(started)
	go func() {
		<-ctx.Done()
		typed.Shutdown()
		meta.Shutdown()
	}()
	return nil
}
