//go:build !k8s134

package main

import (
	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// nodeShouldRun is upstream's verdict for one node. From v1.35 on,
// NodeShouldRunDaemonPod takes a logger first.
func nodeShouldRun(n *v1.Node, ds *apps.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	return daemon.NodeShouldRunDaemonPod(klog.FromContext(quietContext()), n, ds)
}
