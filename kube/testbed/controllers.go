package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// Controller is a DaemonSet controller running against a Bed.
type Controller interface {
	// Stop stops the controller and waits until it has.
	Stop() error
}

// controllerClientConfig is cfg as kube-controller-manager's clients
// have it: protobuf, QPS 20, burst 30 (its --kube-api-qps and
// --kube-api-burst defaults), and a user agent of their own.
func controllerClientConfig(cfg *rest.Config, userAgent string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c.QPS, c.Burst = 20, 30
	c.UserAgent = userAgent
	return c
}

type upstream struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// StartUpstream runs the DaemonSet controller of Kubernetes v1.37.2 in this
// process as kube-controller-manager starts it: NewDaemonSetsController on
// a shared informer factory (resync 12h, kube-controller-manager's
// --min-resync-period), the failed-pods backoff of 1s to 15m, and Run with
// 2 workers (--concurrent-daemonset-syncs).
func StartUpstream(cfg *rest.Config) (Controller, error) {
	client, err := kubernetes.NewForConfig(controllerClientConfig(cfg, "kube-controller-manager/daemon-set-controller"))
	if err != nil {
		return nil, err
	}
	infClient, err := kubernetes.NewForConfig(controllerClientConfig(cfg, "kube-controller-manager/shared-informers"))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
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
		cancel()
		return nil, err
	}
	u := &upstream{cancel: cancel, done: make(chan struct{})}
	factory.Start(ctx.Done())
	go func() {
		defer close(u.done)
		dsc.Run(ctx, 2)
		factory.Shutdown()
	}()
	return u, nil
}

func (u *upstream) Stop() error {
	u.cancel()
	select {
	case <-u.done:
		return nil
	case <-time.After(time.Minute):
		return errors.New("upstream DaemonSet controller: still running a minute after stop")
	}
}

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// BuildExample builds daemonplan's example controller
// (kube/examples/controller of this checkout) once per process into dir.
func BuildExample(dir string) (string, error) {
	buildOnce.Do(func() {
		builtPath = filepath.Join(dir, "controller")
		cmd := exec.Command("go", "build", "-o", builtPath, "github.com/daemonplan/daemonplan/kube/examples/controller")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("building the example controller: %w", err)
		}
	})
	return builtPath, buildErr
}

// Example is daemonplan's example controller running as a program.
type Example struct {
	cmd  *exec.Cmd
	done chan struct{}
	// CPU is the process's user and system CPU time, once it stopped.
	CPU time.Duration
}

// StartExample runs the program bin (from BuildExample) for the DaemonSet
// namespace/name against the Bed, as a user would run it: with the Bed's
// kubeconfig and its default flags otherwise. Its output goes to logFile.
func StartExample(bin string, b *Bed, namespace, name, logFile string) (*Example, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--kubeconfig", b.Kubeconfig, "--namespace", namespace, "--name", name)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	e := &Example{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		cmd.Wait()
		log.Close()
	}()
	return e, nil
}

// Stop interrupts the program and waits until it exits; it kills it after
// a minute.
func (e *Example) Stop() error {
	e.cmd.Process.Signal(os.Interrupt)
	select {
	case <-e.done:
	case <-time.After(time.Minute):
		e.cmd.Process.Signal(syscall.SIGKILL)
		<-e.done
		return errors.New("example controller: killed a minute after interrupt")
	}
	if st := e.cmd.ProcessState; st != nil {
		e.CPU = st.UserTime() + st.SystemTime()
	}
	return nil
}
