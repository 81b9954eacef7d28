// Command testbed runs a throwaway control plane to try daemonplan on by
// hand: embedded etcd, the real kube-apiserver v1.37.2, kwok nodes and
// the real DaemonSet controller, on loopback, until interrupted. It
// writes an admin kubeconfig and prints how to use it.
//
//	cd kube/testbed && go run ./cmd/testbed -nodes 6 -zones a,b,c
//
// Pods turn Ready -ready-after their creation; a pod whose first
// container runs an image ending in ":bad" never turns Ready, one ending
// in ":crash" crash-loops (five restarts, CrashLoopBackOff), for trying
// the health gates. Pods are bound by the test bed's stand-in for
// kube-scheduler (every node has room), and no kubelet runs: nothing is
// pulled or started.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/kube/testbed"
)

func main() {
	nodes := flag.Int("nodes", 6, "how many kwok nodes to create (node-0, node-1, ...)")
	zones := flag.String("zones", "a,b,c", "zones given to the nodes in turn (label topology.kubernetes.io/zone); empty for none")
	readyAfter := flag.Duration("ready-after", 2*time.Second, "how long a new pod takes to turn Ready")
	dir := flag.String("dir", "", "keep the control plane's files (kubeconfig, logs, etcd) here, and reuse them if a run left them; default a temporary directory, removed on exit")
	flag.Parse()
	if err := run(*nodes, *zones, *readyAfter, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "testbed:", err)
		os.Exit(1)
	}
}

func run(nodes int, zones string, readyAfter time.Duration, dir string) error {
	if nodes < 0 || nodes > 5000 {
		return fmt.Errorf("-nodes %d: want 0 to 5000", nodes)
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "daemonplan-testbed-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		dir = abs
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	// kube-apiserver and the controller log through klog: to a file, so
	// that the terminal stays the user's.
	logFile, err := os.Create(filepath.Join(dir, "control-plane.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.Set("logtostderr", "false")
	klogFlags.Set("alsologtostderr", "false")
	klogFlags.Set("stderrthreshold", "FATAL")
	klog.SetOutput(logFile)
	var stages []string
	for _, suffix := range []string{"bad", "crash"} {
		for _, name := range []string{"agent", "node-agent", "nginx", "busybox"} {
			image := name + ":" + suffix
			if suffix == "bad" {
				stages = append(stages, testbed.NeverReadyStage(image))
			} else {
				stages = append(stages, testbed.CrashLoopStages(image, readyAfter, time.Second)...)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "testbed: starting etcd, kube-apiserver and kwok (the first build takes about 15 minutes on two cores)")
	b, err := testbed.Start(testbed.Options{PodReadyDelay: readyAfter, Dir: dir, ExtraPodStages: stages})
	if err != nil {
		return err
	}
	defer b.Stop()
	ctrl, err := testbed.StartUpstream(b.Config)
	if err != nil {
		return err
	}
	defer ctrl.Stop()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var zoneList []string
	if zones != "" {
		zoneList = strings.Split(zones, ",")
	}
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		labels := map[string]string{"type": "kwok", "kubernetes.io/hostname": name}
		if len(zoneList) > 0 {
			labels["topology.kubernetes.io/zone"] = zoneList[i%len(zoneList)]
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		_, err := b.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// A -dir kept from an earlier run holds its etcd data, nodes
			// included: reuse the node, with this run's labels.
			err = reuseNode(ctx, b, name, labels)
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
	}
	fmt.Printf(`control plane ready in %v: %d kwok nodes, the real DaemonSet controller of Kubernetes v1.37.2
  export KUBECONFIG=%s
  kubectl get nodes -L topology.kubernetes.io/zone
new pods turn Ready %v after their creation; images agent:bad, node-agent:bad, nginx:bad and busybox:bad
never turn Ready; the same names with :crash crash-loop. Files (control-plane.log, etcd): %s
Ctrl-C stops it.
`, b.Started.Round(time.Millisecond), nodes, b.Kubeconfig, readyAfter, b.Dir)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "testbed: stopping")
	return nil
}

// reuseNode gives the node name, kept from an earlier run, labels.
func reuseNode(ctx context.Context, b *testbed.Bed, name string, labels map[string]string) error {
	node, err := b.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	maps.Copy(node.Labels, labels)
	_, err = b.Client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
	return err
}
