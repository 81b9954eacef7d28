package main

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/daemonplan/daemonplan/kube/internal/fakeclient"
	"github.com/daemonplan/daemonplan/kube/load"
)

// TestControllerScope: the controller syncs every DaemonSet of its
// namespace from one queue, each with its own pods, and none of another
// namespace; with no namespace (--all-namespaces), those of every
// namespace.
func TestControllerScope(t *testing.T) {
	for _, tc := range []struct {
		name, namespace string
		want            map[string]int // pods by namespace/app
	}{
		{"one namespace", "default", map[string]int{"default/agent": 4, "default/logs": 4, "other/logs": 0}},
		{"all namespaces", "", map[string]int{"default/agent": 4, "default/logs": 4, "other/logs": 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load.Read(strings.NewReader(cluster))
			if err != nil {
				t.Fatal(err)
			}
			fc := fakeclient.New(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			ctx, cancel := context.WithCancel(context.Background())
			for _, ns := range []string{"default", "other"} {
				ds := c.DaemonSet.DeepCopy()
				ds.Name, ds.Namespace, ds.UID = "logs", ns, types.UID("logs-uid-"+ns)
				ds.Spec.Selector.MatchLabels = map[string]string{"app": "logs"}
				ds.Spec.Template.Labels = map[string]string{"app": "logs"}
				if _, err := fc.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			ctrl := &Controller{Client: fc, Namespace: tc.namespace, Now: time.Now, Recorder: record.NewFakeRecorder(1000)}
			done := make(chan error)
			go func() { done <- ctrl.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			deadline := time.Now().Add(budget)
			for {
				pods, err := fc.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				byApp := map[string]int{}
				for _, p := range pods.Items {
					byApp[p.Namespace+"/"+p.Labels["app"]]++
				}
				created := true
				for k, n := range tc.want {
					if n > 0 && byApp[k] != n {
						created = false
					}
				}
				if created {
					for k, n := range tc.want {
						if n == 0 && byApp[k] != 0 {
							t.Errorf("pods created for %s, outside the controller's scope: %v", k, byApp)
						}
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("not every DaemonSet in scope has its pods within %v: %v", budget, byApp)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
