package testbed

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
)

var keep = flag.String("testbed.keep", "", "keep each control plane's files (logs, data) under this directory")

// binDir holds the example controller's binary for the whole run.
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	// kube-apiserver and the controllers log through klog: to a file when
	// kept, else nowhere.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.Set("logtostderr", "false")
	klogFlags.Set("alsologtostderr", "false")
	klogFlags.Set("stderrthreshold", "FATAL")
	var out io.Writer = io.Discard
	if *keep != "" {
		os.MkdirAll(*keep, 0o755)
		f, err := os.Create(filepath.Join(*keep, "klog.log"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		out = f
	}
	klog.SetOutput(out)
	var err error
	if binDir, err = os.MkdirTemp("", "testbed-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// startBed starts a fresh control plane for the test and stops it at the
// test's end.
func startBed(t *testing.T, name string, opts Options) *Bed {
	t.Helper()
	if *keep != "" {
		opts.Dir = filepath.Join(*keep, name)
		os.RemoveAll(opts.Dir)
	}
	b, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: control plane ready in %v", name, b.Started.Round(time.Millisecond))
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	return b
}

// controllerKind names the two controllers a scenario runs under.
type controllerKind string

const (
	upstreamKind   controllerKind = "upstream"
	daemonplanKind controllerKind = "daemonplan"
)

func startController(t *testing.T, kind controllerKind, b *Bed, namespace, name string) Controller {
	t.Helper()
	switch kind {
	case upstreamKind:
		c, err := StartUpstream(b.Config)
		if err != nil {
			t.Fatal(err)
		}
		return c
	default:
		bin, err := BuildExample(binDir)
		if err != nil {
			t.Fatal(err)
		}
		c, err := StartExample(bin, b, namespace, name, filepath.Join(b.Dir, "controller.log"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func daemonSet(name, image string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	grace := int64(1)
	one := intstr.FromInt32(1)
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: name, Image: image}},
					TerminationGracePeriodSeconds: &grace,
				},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one},
			},
		},
	}
}

// TestSmoke: three kwok nodes, a DaemonSet (maxUnavailable 1, pods ready
// 1 s after binding, 1 s grace period) until each node has a ready pod,
// then a new image until it converges again; under both controllers,
// compared and checked as every scenario (scenario_test.go).
func TestSmoke(t *testing.T) {
	nodes := nodeNames(0, 3)
	runScenario(t, scenario{
		name:  "smoke",
		nodes: nodes,
		phases: []phase{
			{name: "rollout", do: setImage("agent:v2"), done: converged("agent:v2", nodes), unavailable: limit(1)},
		},
	})
}
