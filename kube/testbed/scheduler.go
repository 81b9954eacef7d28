package testbed

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	compat "k8s.io/component-base/compatibility"
	"k8s.io/component-base/configz"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// schedulers numbers the kube-schedulers of this process: each registers
// its informers under a name of its own.
var schedulers atomic.Int64

// kubeScheduler is a running kube-scheduler.
type kubeScheduler struct {
	cancel context.CancelFunc
	done   chan error
	name   *cache.InformerName
}

// startScheduler starts kube-scheduler v1.37.2 in this process as its
// command does (options, flags, Setup, Run) with the default profile,
// reaching the server through the kubeconfig file, without leader
// election and without serving (--secure-port=0: nothing here reads its
// health or metrics). Like kube-apiserver here, it has a feature-gate
// registry of its own, so that several may run, one after the other, in
// one process.
func startScheduler(kubeconfig string) (_ *kubeScheduler, err error) {
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	registry := compat.NewComponentGlobalsRegistry()
	if err := registry.Register(compat.DefaultKubeComponent, compatibility.DefaultBuildEffectiveVersion(), featureGate); err != nil {
		return nil, err
	}
	opts := options.NewOptionsWithComponentGlobalsRegistry(registry)
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
	}); err != nil {
		return nil, err
	}
	if err := registry.Set(); err != nil {
		return nil, err
	}
	s := &kubeScheduler{done: make(chan error, 1)}
	if s.name, err = cache.NewInformerName(fmt.Sprintf("kube-scheduler-testbed-%d", schedulers.Add(1))); err != nil {
		return nil, err
	}
	opts.InformerName = s.name
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	cc, sched, err := app.Setup(ctx, opts)
	if err != nil {
		cancel()
		s.name.Release()
		return nil, fmt.Errorf("setup: %w", err)
	}
	go func() { s.done <- app.Run(ctx, cc, sched) }()
	return s, nil
}

// stop stops the scheduler and waits until it has.
func (s *kubeScheduler) stop() error {
	s.cancel()
	var err error
	select {
	case err = <-s.done:
		// Run ends with this error when its context ends.
		if err != nil && err.Error() == "finished without leader elect" {
			err = nil
		}
	case <-time.After(time.Minute):
		err = errors.New("kube-scheduler: still running a minute after stop")
	}
	// Run registers its configuration under this name, once per process.
	configz.Delete("componentconfig")
	s.name.Release()
	return err
}
