package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", clientcmd.RecommendedHomeFile, "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the DaemonSet")
	name := flag.String("name", "", "name of the DaemonSet (required)")
	resync := flag.Duration("resync", time.Minute, "sync at least this often (0: only on changes)")
	flag.Parse()
	if *name == "" {
		flag.Usage()
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err == nil {
		var client *kubernetes.Clientset
		if client, err = kubernetes.NewForConfig(cfg); err == nil {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			c := &Controller{Client: client, Namespace: *namespace, Name: *name, Now: time.Now, Resync: *resync}
			err = c.Run(ctx)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(1)
	}
}
