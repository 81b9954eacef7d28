package rollout

import (
	"errors"
	"fmt"

	"github.com/daemonplan/daemonplan/api"
)

// Budgets are the limits of one rolling-update step, resolved against the
// number of nodes that should run the pod.
type Budgets struct {
	// Desired is the number of nodes whose decision is ShouldRun.
	Desired int
	// MaxUnavailable and MaxSurge are the scaled budgets (docs/rolling-update.md, R4).
	MaxUnavailable int
	MaxSurge       int
}

// Surge reports whether the rolling update creates new pods before
// deleting old ones: maxSurge is not zero. A negative maxSurge (which
// validation rejects) takes this path too, as upstream's rollingUpdate
// branches on maxSurge == 0, and surges onto no node beyond those whose
// old pod is unavailable. (Manage's test is
// [github.com/daemonplan/daemonplan/placement.AllowsSurge]: positive only.)
func (b Budgets) Surge() bool { return b.MaxSurge != 0 }

// ResolveBudgets scales maxUnavailable and maxSurge of ds against desired
// (upstream: updatedDesiredNodeCounts; docs/rolling-update.md, R4): ints as
// they are, percentages of desired rounded up, a nil
// maxSurge as 0, and both zero (with desired > 0) as maxUnavailable 1. A nil
// maxUnavailable or a malformed string is an error, as upstream, and so is a
// nil DaemonSet.
func ResolveBudgets(ds *api.DaemonSet, desired int) (Budgets, error) {
	b := Budgets{Desired: desired}
	if ds == nil {
		return b, errors.New("rollout.ResolveBudgets: nil DaemonSet")
	}
	var err error
	if b.MaxUnavailable, err = unavailableCount(ds, desired); err != nil {
		return b, fmt.Errorf("invalid value for MaxUnavailable: %w", err)
	}
	if b.MaxSurge, err = surgeCount(ds, desired); err != nil {
		return b, fmt.Errorf("invalid value for MaxSurge: %w", err)
	}
	if desired > 0 && b.MaxUnavailable == 0 && b.MaxSurge == 0 {
		b.MaxUnavailable = 1
	}
	return b, nil
}

// surgeCount is how many nodes may run an extra pod during a rolling
// update of ds when desired nodes should run it: 0 unless the strategy is
// RollingUpdate with a maxSurge; a nil maxSurge is 0.
func surgeCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil || ru.MaxSurge == nil {
		return 0, nil
	}
	return ru.MaxSurge.Scaled(desired, true)
}

// unavailableCount is how many of desired nodes may lack an available pod
// during a rolling update: 0 unless the strategy is RollingUpdate; a nil
// maxUnavailable is an error, as upstream (the API defaults it to 1).
func unavailableCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil {
		return 0, nil
	}
	return ru.MaxUnavailable.Scaled(desired, true)
}

// scaleCount resolves a validated int-or-percent count of the progressive
// extensions (a partition, a canary size) against desired, a percentage
// above 100 as 100%. A nil count is 0; a malformed percentage is an error.
func scaleCount(v *api.IntOrPercent, desired int, roundUp bool) (int, error) {
	if v == nil {
		return 0, nil
	}
	if v.IsString {
		n, ok := v.Percentage()
		if !ok {
			return 0, fmt.Errorf("invalid percentage %q", v.StrVal)
		}
		if n > 100 {
			v = api.Percent("100%")
		}
	}
	return v.Scaled(desired, roundUp)
}
