package cli

import (
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/timeline"
)

// timing are the flags of the timing model diff and simulate share
// (docs/timeline.md): the same defaults, the same meaning, one simulation
// (package timeline) behind both.
type timing struct {
	readyAfter  time.Duration
	gracePeriod time.Duration
	terminating time.Duration
	resyncAfter time.Duration
	maxSyncs    int
	maxDuration time.Duration
	// graceSet is whether --grace-period was given; otherwise the
	// template's terminationGracePeriodSeconds holds.
	graceSet bool
}

func defaultTiming() timing {
	return timing{readyAfter: timeline.DefaultReadyAfter, terminating: 30 * time.Second, maxDuration: timeline.DefaultMaxDuration}
}

func addTimingFlags(cmd *cobra.Command, t *timing) {
	f := cmd.Flags()
	f.DurationVar(&t.readyAfter, "ready-after", t.readyAfter, "how long a new pod takes from its creation to Ready")
	f.DurationVar(&t.gracePeriod, "grace-period", 0, "how long a pod the controller deletes takes to go; its node gets no new pod\nmeanwhile (default: the template's terminationGracePeriodSeconds, else 30s)")
	f.DurationVar(&t.terminating, "terminating", t.terminating, "how long the pods found terminating (deletionTimestamp set) take to go;\n0 keeps them forever")
	f.DurationVar(&t.resyncAfter, "resync-after", 0, "how long after a sync that wrote the controller syncs again (0: at once, as\nits own writes queue the DaemonSet)")
	f.IntVar(&t.maxSyncs, "max-syncs", 0, "stop after this many syncs (default: ten per node and 1000 more)")
	f.DurationVar(&t.maxDuration, "max-duration", t.maxDuration, "stop when the simulated clock would pass this")
}

// check validates the flags for the command cmd.
func (t *timing) check(cmd *cobra.Command, name string) error {
	t.graceSet = cmd.Flags().Changed("grace-period")
	switch {
	case t.readyAfter <= 0:
		return usagef("%s: --ready-after %v: want a positive duration, e.g. 30s", name, t.readyAfter)
	case t.gracePeriod < 0:
		return usagef("%s: --grace-period %v: want a duration of 0 or more", name, t.gracePeriod)
	case t.terminating < 0:
		return usagef("%s: --terminating %v: want a duration of 0 or more", name, t.terminating)
	case t.resyncAfter < 0:
		return usagef("%s: --resync-after %v: want a duration of 0 or more", name, t.resyncAfter)
	case t.maxSyncs < 0:
		return usagef("%s: --max-syncs %d: want 0 (the default) or a positive number", name, t.maxSyncs)
	case t.maxDuration <= 0:
		return usagef("%s: --max-duration %v: want a positive duration", name, t.maxDuration)
	}
	return nil
}

// grace returns the grace period of the pods the controller deletes:
// --grace-period, else the template's terminationGracePeriodSeconds (the
// pods of the DaemonSet as it is carry it), else the API server's 30 s.
func (t *timing) grace(ds *appsv1.DaemonSet) time.Duration {
	if t.graceSet {
		return t.gracePeriod
	}
	if ds != nil {
		if s := ds.Spec.Template.Spec.TerminationGracePeriodSeconds; s != nil && *s >= 0 {
			return time.Duration(*s) * time.Second
		}
	}
	return timeline.DefaultGracePeriod
}
