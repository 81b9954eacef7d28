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

	"k8s.io/client-go/rest"

	"github.com/daemonplan/daemonplan/kube/testbed/upstreamdaemon"
)

// Controller is a DaemonSet controller running against a Bed.
type Controller interface {
	// Stop stops the controller and waits until it has.
	Stop() error
}

type upstream struct {
	cancel context.CancelFunc
	done   <-chan struct{}
}

// StartUpstream runs the DaemonSet controller of Kubernetes v1.37.2 in this
// process as kube-controller-manager starts it (upstreamdaemon.Start).
func StartUpstream(cfg *rest.Config) (Controller, error) {
	ctx, cancel := context.WithCancel(context.Background())
	done, err := upstreamdaemon.Start(ctx, cfg)
	if err != nil {
		cancel()
		return nil, err
	}
	return &upstream{cancel: cancel, done: done}, nil
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

// A program built once per process.
type built struct {
	once sync.Once
	path string
	err  error
}

var (
	exampleBuild, upstreamBuild, daemonplanBuild built
)

func (b *built) build(dir, name, pkg string) (string, error) {
	b.once.Do(func() {
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			b.err = fmt.Errorf("building %s: %w", pkg, err)
		}
	})
	return b.path, b.err
}

// BuildExample builds daemonplan's example controller
// (kube/examples/controller of this checkout) once per process into dir.
func BuildExample(dir string) (string, error) {
	return exampleBuild.build(dir, "controller", "github.com/daemonplan/daemonplan/kube/examples/controller")
}

// BuildUpstream builds cmd/upstream-controller, upstream's DaemonSet
// controller as a program, once per process into dir.
func BuildUpstream(dir string) (string, error) {
	return upstreamBuild.build(dir, "upstream-controller", "github.com/daemonplan/daemonplan/kube/testbed/cmd/upstream-controller")
}

// BuildDaemonplan builds the daemonplan CLI (kube/cmd/daemonplan of this
// checkout) once per process into dir, for the scenarios that run
// `daemonplan rollout` as a user would: a program of its own, with a
// kubeconfig.
func BuildDaemonplan(dir string) (string, error) {
	return daemonplanBuild.build(dir, "daemonplan", "github.com/daemonplan/daemonplan/kube/cmd/daemonplan")
}

// Example is a controller running as a program: daemonplan's example
// controller, or upstream's (StartUpstreamProcess).
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
	return startProgram(logFile, bin, "--kubeconfig", b.Kubeconfig, "--namespace", namespace, "--name", name)
}

// StartUpstreamProcess runs the program bin (from BuildUpstream) against
// the Bed. Its output goes to logFile.
func StartUpstreamProcess(bin string, b *Bed, logFile string) (*Example, error) {
	return startProgram(logFile, bin, "--kubeconfig", b.Kubeconfig)
}

func startProgram(logFile, bin string, args ...string) (*Example, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
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

// PID is the program's process id.
func (e *Example) PID() int { return e.cmd.Process.Pid }

// Stop interrupts the program and waits until it exits; it kills it after
// a minute.
func (e *Example) Stop() error {
	e.cmd.Process.Signal(os.Interrupt)
	select {
	case <-e.done:
	case <-time.After(time.Minute):
		e.cmd.Process.Signal(syscall.SIGKILL)
		<-e.done
		return fmt.Errorf("%s: killed a minute after interrupt", e.cmd.Path)
	}
	if st := e.cmd.ProcessState; st != nil {
		e.CPU = st.UserTime() + st.SystemTime()
	}
	return nil
}

// Kill kills the program (SIGKILL: no cleanup, as a node failure or an
// OOM kill) and waits until it has exited.
func (e *Example) Kill() error {
	if err := e.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-e.done
	return nil
}
