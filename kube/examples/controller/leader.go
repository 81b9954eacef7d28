package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaderOptions are kube-controller-manager's --leader-elect flags, with
// its defaults but for two: election is off unless asked for (one replica
// needs none), and the lease is daemonplan-controller's, not
// kube-controller-manager's, so that both can run side by side.
type leaderOptions struct {
	Elect                                     bool
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	ResourceLock                              string
	ResourceName, ResourceNamespace           string
}

func defaultLeaderOptions() leaderOptions {
	return leaderOptions{
		LeaseDuration:     15 * time.Second,
		RenewDeadline:     10 * time.Second,
		RetryPeriod:       2 * time.Second,
		ResourceLock:      resourcelock.LeasesResourceLock,
		ResourceName:      "daemonplan-controller",
		ResourceNamespace: "kube-system",
	}
}

// healthzTimeout is how long past the lease's expiry a leader that has
// not renewed it still reports healthy: kube-controller-manager's 20 s.
const healthzTimeout = 20 * time.Second

// validate returns every problem of o, each naming its flag. The bounds
// are client-go's (leaderelection.NewLeaderElector): the lease outlasts
// the renew deadline, which outlasts 1.2 retry periods.
func (o leaderOptions) validate() error {
	if !o.Elect {
		return nil
	}
	var errs []error
	if o.ResourceLock != resourcelock.LeasesResourceLock {
		errs = append(errs, fmt.Errorf("--leader-elect-resource-lock: %q: only %q is supported", o.ResourceLock, resourcelock.LeasesResourceLock))
	}
	if o.ResourceName == "" {
		errs = append(errs, errors.New("--leader-elect-resource-name: required"))
	}
	if o.ResourceNamespace == "" {
		errs = append(errs, errors.New("--leader-elect-resource-namespace: required"))
	}
	if o.RetryPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--leader-elect-retry-period: %v: must be positive", o.RetryPeriod))
	}
	if o.LeaseDuration <= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("--leader-elect-lease-duration: %v: must be longer than --leader-elect-renew-deadline (%v)", o.LeaseDuration, o.RenewDeadline))
	}
	if float64(o.RenewDeadline) <= leaderelection.JitterFactor*float64(o.RetryPeriod) {
		errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline: %v: must be longer than %v times --leader-elect-retry-period (%v)", o.RenewDeadline, leaderelection.JitterFactor, o.RetryPeriod))
	}
	return errors.Join(errs...)
}

// errLeaseLost ends a controller that lost its lease without being asked
// to stop: as kube-controller-manager, it exits rather than run on beside
// the new leader; its restart stands by for the lease again.
var errLeaseLost = errors.New("leader election lost")

// runElected runs run while the process identified by id holds the Lease
// o names, as kube-controller-manager runs its controllers: run starts
// once the lease is acquired, and its context ends when ctx does or when
// the lease could not be renewed within the renew deadline. runElected
// returns when run has returned: run's error, errLeaseLost when the lease
// was lost, or nil when ctx ended (with run never started, for a process
// that never led). The lease is not released on the way out, as
// kube-controller-manager does not: the next leader waits for it to
// expire, so that no two controllers ever write at once. watchdog, if not
// nil, reports an expired lease to the health check.
func runElected(ctx context.Context, client kubernetes.Interface, o leaderOptions, id string, watchdog *leaderelection.HealthzAdaptor, run func(context.Context) error) error {
	if err := o.validate(); err != nil {
		return err
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.ResourceNamespace, Name: o.ResourceName},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	// client-go starts OnStartedLeading on a goroutine of its own, which
	// may not have run yet when the elector returns; handing its context
	// over a channel lets this goroutine run the controller and wait for
	// it.
	leading := make(chan context.Context, 1)
	cfg := leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: o.LeaseDuration,
		RenewDeadline: o.RenewDeadline,
		RetryPeriod:   o.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { leading <- ctx },
			OnStoppedLeading: func() {},
		},
		Name: o.ResourceName,
	}
	if watchdog != nil {
		cfg.WatchDog = watchdog
	}
	le, err := leaderelection.NewLeaderElector(cfg)
	if err != nil {
		return err
	}
	elected := make(chan struct{})
	go func() {
		defer close(elected)
		le.Run(ctx)
	}()
	select {
	case lctx := <-leading:
		err := run(lctx)
		<-elected
		if err == nil && ctx.Err() == nil {
			err = errLeaseLost
		}
		return err
	case <-elected:
		// The elector returns before ctx ends only after it led: the
		// lease was lost before the controller even started.
		if ctx.Err() == nil {
			return errLeaseLost
		}
		return nil
	}
}
