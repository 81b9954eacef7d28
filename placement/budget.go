package placement

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/daemonplan/daemonplan/api"
)

var errNilDaemonSet = errors.New("nil DaemonSet")

// ScaledValue resolves an int-or-percent budget against total (upstream:
// intstr.GetScaledValueFromIntOrPercent; docs/rolling-update.md, R4): an
// int is returned as is; "N%" gives ceil(N×total/100) when roundUp, else
// floor. A nil value, or a string that is not an integer followed by "%",
// is an error.
//
// The result is the same on every platform. Upstream converts the product,
// a float64, to int, and a percentage such as "9223372036854775807%"
// overflows that conversion, whose result Go leaves to the platform (the
// smallest int on amd64, the largest on arm64). Here N is parsed as an
// int64 on every platform and the product saturates at the int32 range,
// the range of an int budget: a percentage too large for it acts as the
// largest budget (as arm64 does upstream), a too negative one as the
// smallest. Within that range the result is exactly upstream's.
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
	// strconv.Atoi on a 64-bit platform, whose errors upstream prints.
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok {
			ne.Func = "Atoi"
		}
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", v.StrVal, err)
	}
	f := float64(n) * float64(total) / 100
	if roundUp {
		f = math.Ceil(f)
	} else {
		f = math.Floor(f)
	}
	switch {
	case f >= math.MaxInt32:
		return math.MaxInt32, nil
	case f <= math.MinInt32:
		return math.MinInt32, nil
	}
	return int(f), nil
}

// SurgeCount is how many nodes may run an extra pod during a rolling update
// of ds when desired nodes should run it: 0 unless the strategy is
// RollingUpdate with a maxSurge; a nil maxSurge is 0. A nil DaemonSet is an
// error.
func SurgeCount(ds *api.DaemonSet, desired int) (int, error) {
	if ds == nil {
		return 0, errNilDaemonSet
	}
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil || ru.MaxSurge == nil {
		return 0, nil
	}
	return ScaledValue(ru.MaxSurge, desired, true)
}

// UnavailableCount is how many of desired nodes may lack an available pod
// during a rolling update: 0 unless the strategy is RollingUpdate; a nil
// maxUnavailable is an error, as upstream (the API defaults it to 1), and so
// is a nil DaemonSet.
func UnavailableCount(ds *api.DaemonSet, desired int) (int, error) {
	if ds == nil {
		return 0, errNilDaemonSet
	}
	ru := ds.UpdateStrategy.RollingUpdate
	if ds.UpdateStrategy.Type != api.RollingUpdate || ru == nil {
		return 0, nil
	}
	return ScaledValue(ru.MaxUnavailable, desired, true)
}

// AllowsSurge reports whether ds updates by surging: maxSurge scaled against
// one node is positive (a negative one, which validation rejects, is not
// surge). It decides how duplicates on a node are resolved. A nil DaemonSet
// does not surge. (The rolling update itself branches on another test:
// rollout.Budgets.Surge.)
func AllowsSurge(ds *api.DaemonSet) bool {
	n, err := SurgeCount(ds, 1)
	return err == nil && n > 0
}
