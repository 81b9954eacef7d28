package api

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/field"
)

var (
	nameRE      = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	subdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// refValidKey is apimachinery's IsQualifiedName rule (docs/validation.md,
// V7) written with the upstream regular
// expressions, as a reference for the hand-written checks.
func refValidKey(k string) bool {
	parts := strings.Split(k, "/")
	name := parts[0]
	switch len(parts) {
	case 1:
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" || len(prefix) > 253 || !subdomainRE.MatchString(prefix) {
			return false
		}
	default:
		return false
	}
	return name != "" && len(name) <= 63 && nameRE.MatchString(name)
}

// FuzzValidateLabelKey: ValidateLabelKey never panics and agrees with the
// regular-expression reference.
func FuzzValidateLabelKey(f *testing.F) {
	for _, s := range []string{"", "a", "a/b", "/b", "a/", "a/b/c", "Example.com/x", "a..b/c", "x-", "k8s.io/x_y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		probs := ValidateLabelKey(k)
		if got, want := len(probs) == 0, refValidKey(k); got != want {
			t.Fatalf("ValidateLabelKey(%q) = %q (valid %v), reference says valid %v", k, probs, got, want)
		}
		if got, want := len(IsDNS1123Subdomain(k)) == 0, len(k) <= 253 && subdomainRE.MatchString(k); got != want {
			t.Fatalf("IsDNS1123Subdomain(%q) valid = %v, reference says %v", k, got, want)
		}
	})
}

// FuzzValidateLabelValue: ValidateLabelValue never panics and agrees with
// the regular-expression reference.
func FuzzValidateLabelValue(f *testing.F) {
	for _, s := range []string{"", "a", "-a", "a-", "a_b.c", strings.Repeat("v", 64), "0", "-1", "+1", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		probs := ValidateLabelValue(v)
		want := v == "" || len(v) <= 63 && nameRE.MatchString(v)
		if got := len(probs) == 0; got != want {
			t.Fatalf("ValidateLabelValue(%q) = %q (valid %v), reference says valid %v", v, probs, got, want)
		}
	})
}

// FuzzValidateTolerations checks that validation never panics, reports paths
// below the toleration's index only, and accepts nothing that breaks the
// rules it can check cheaply.
func FuzzValidateTolerations(f *testing.F) {
	f.Add("example.com/key", "Equal", "value", "NoSchedule", int64(0), false)
	f.Add("", "Exists", "", "", int64(0), false)
	f.Add("", "", "", "NoSchedule", int64(300), true)
	f.Add("a/b/c", "Bogus", "not valid!", "Sometimes", int64(-1), true)
	f.Add("example.com/gpu", "Lt", "010", "NoSchedule", int64(0), false)
	f.Add("example.com/gpu", "Gt", "-42", "", int64(0), false)
	f.Add(strings.Repeat("x", 64), "Exists", "v", "NoExecute", int64(5), true)
	f.Fuzz(func(t *testing.T, key, op, value, effect string, seconds int64, hasSeconds bool) {
		tol := Toleration{Key: key, Operator: TolerationOperator(op), Value: value, Effect: TaintEffect(effect)}
		if hasSeconds {
			tol.TolerationSeconds = &seconds
		}
		// Each toleration is validated with the comparison operators gate
		// off and on.
		for _, gate := range []bool{false, true} {
			errs := ValidateTolerations([]Toleration{tol}, ValidateOptions{ComparisonOperators: gate})
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "[0].") {
					t.Fatalf("gate %v: error outside the toleration: %v", gate, e)
				}
				if e.Type != field.TypeInvalid && e.Type != field.TypeNotSupported {
					t.Fatalf("gate %v: unexpected error type: %v", gate, e)
				}
				_ = e.Error()
			}
			if len(errs) > 0 {
				continue
			}
			comparison := tol.Operator == TolerationOpLt || tol.Operator == TolerationOpGt
			switch {
			case key == "" && tol.Operator != TolerationOpExists:
				t.Fatalf("gate %v: accepted an empty key with operator %q", gate, op)
			case hasSeconds && tol.Effect != TaintEffectNoExecute:
				t.Fatalf("gate %v: accepted tolerationSeconds with effect %q", gate, effect)
			case comparison && !gate:
				t.Fatalf("accepted operator %q without the gate", op)
			case comparison && strconv.FormatInt(mustParseInt(t, value), 10) != value:
				t.Fatalf("accepted %s with value %q, not a canonical integer", op, value)
			case !comparison && tol.Operator != "" && tol.Operator != TolerationOpEqual && tol.Operator != TolerationOpExists:
				t.Fatalf("gate %v: accepted operator %q", gate, op)
			case tol.Operator == TolerationOpExists && value != "":
				t.Fatalf("gate %v: accepted Exists with value %q", gate, value)
			case effect != "" && !knownEffect(tol.Effect):
				t.Fatalf("gate %v: accepted effect %q", gate, effect)
			case len(value) > 63 || len(key) > 253+1+63:
				t.Fatalf("gate %v: accepted an over-long key or value: %q, %q", gate, key, value)
			}
		}
	})
}

// mustParseInt is value as an int64, failing t when it is not one.
func mustParseInt(t *testing.T, value string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		t.Fatalf("accepted value %q: %v", value, err)
	}
	return n
}
