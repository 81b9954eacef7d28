package api

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file is the budget arithmetic of the project, in one place: how an
// int-or-percent count (maxUnavailable, maxSurge, a partition, a canary
// size) becomes a number of nodes.

// Scaled resolves v against total (upstream:
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
func (v *IntOrPercent) Scaled(total int, roundUp bool) (int, error) {
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

// Percentage returns N of a well-formed percentage "N%" (N decimal digits
// only). Like upstream's validation it parses N with strconv.Atoi, which
// saturates on overflow, so a huge percentage stays above 100. ok is false
// for an int, a nil value and any other string.
func (v *IntOrPercent) Percentage() (n int, ok bool) {
	if v == nil || !v.IsString || !isPercentString(v.StrVal) {
		return 0, false
	}
	n, _ = strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}
