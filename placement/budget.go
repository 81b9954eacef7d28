package placement

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/api"
)

// ScaledValue resolves an int-or-percent budget against total (upstream:
// intstr.GetScaledValueFromIntOrPercent; docs/rolling-update.md, R4): an
// int is returned as is; "N%" gives ceil(N×total/100) when roundUp, else
// floor. A nil value, or a string that is not an integer followed by "%",
// is an error.
func ScaledValue(v *api.IntOrPercent, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	if !v.IsString {
		return int(v.IntVal), nil
	}
	s, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok {
		return 0, fmt.Errorf("invalid type: string is not a percentage: %q", v.StrVal)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", v.StrVal, err)
	}
	f := float64(n) * float64(total) / 100
	if roundUp {
		return int(math.Ceil(f)), nil
	}
	return int(math.Floor(f)), nil
}

// SurgeCount is how many nodes may run an extra pod during a rolling update
// of ds when desired nodes should run it: 0 unless the strategy is
// RollingUpdate with a maxSurge; a nil maxSurge is 0.
func SurgeCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil || ru.MaxSurge == nil {
		return 0, nil
	}
	return ScaledValue(ru.MaxSurge, desired, true)
}

// UnavailableCount is how many of desired nodes may lack an available pod
// during a rolling update: 0 unless the strategy is RollingUpdate; a nil
// maxUnavailable is an error, as upstream (the API defaults it to 1).
func UnavailableCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil {
		return 0, nil
	}
	return ScaledValue(ru.MaxUnavailable, desired, true)
}

// AllowsSurge reports whether ds updates by surging: maxSurge scaled against
// one node is positive. It decides how duplicates on a node are resolved.
func AllowsSurge(ds *api.DaemonSet) bool {
	n, err := SurgeCount(ds, 1)
	return err == nil && n != 0
}
