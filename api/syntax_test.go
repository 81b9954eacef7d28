package api

import (
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/field"
)

// errRow is the structural part of a field error that tests compare.
type errRow struct {
	Type     field.ErrorType
	Field    string
	BadValue any
}

func rows(errs field.ErrorList) []errRow {
	var out []errRow
	for _, e := range errs {
		out = append(out, errRow{e.Type, e.Field, e.BadValue})
	}
	return out
}

func TestValidateLabelKey(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		key    string
		// problems is the number of problems reported; 0 means valid.
		problems int
	}{
		{"simple", "a plain name is a key", "app", 0},
		{"mixed case and symbols", "names allow upper case, '-', '_' and '.' inside", "My_app-1.x", 0},
		{"digits only", "names may start and end with digits", "123", 0},
		{"one char", "a one-character name is valid", "a", 0},
		{"prefixed", "a DNS subdomain prefix is allowed", "example.com/app", 0},
		{"k8s prefix", "well-known labels have a prefix", "kubernetes.io/hostname", 0},
		{"name 63", "63 is the name limit", strings.Repeat("a", 63), 0},
		{"prefix 253", "253 is the prefix limit", strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61) + "/x", 0},
		{"empty", "an empty key has an empty name, which also fails the pattern", "", 2},
		{"name 64", "a name longer than 63 characters is too long", strings.Repeat("a", 64), 1},
		{"leading dash", "names must start alphanumeric", "-app", 1},
		{"trailing dot", "names must end alphanumeric", "app.", 1},
		{"space", "spaces are not name characters", "invalid key", 1},
		{"two slashes", "more than one '/' is one problem", "a/b/c", 1},
		{"empty prefix", "'/' needs a non-empty prefix", "/app", 1},
		{"empty name after prefix", "the name part may not be empty", "example.com/", 2},
		{"upper case prefix", "the prefix is lower case", "Example.com/app", 1},
		{"prefix with underscore", "underscores are not DNS characters", "ex_ample.com/app", 1},
		{"prefix double dot", "each DNS label must be non-empty", "example..com/app", 1},
		{"prefix too long", "a prefix over 253 characters is too long (and still well-formed)", strings.Repeat("a.", 127) + "a/x", 1},
		{"non-ASCII", "only ASCII characters are allowed", "café", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateLabelKey(tt.key)
			if len(got) != tt.problems {
				t.Errorf("ValidateLabelKey(%q) = %q, want %d problems (%s)", tt.key, got, tt.problems, tt.reason)
			}
		})
	}
}

func TestValidateLabelValue(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		value    string
		problems int
	}{
		{"empty", "the empty value is valid", "", 0},
		{"simple", "alphanumerics", "v1", 0},
		{"symbols inside", "'-', '_' and '.' inside", "a-b_c.d", 0},
		{"63", "63 is the limit", strings.Repeat("x", 63), 0},
		{"64", "longer than 63 characters", strings.Repeat("x", 64), 1},
		{"64 bad end", "too long and badly ended: two problems", strings.Repeat("x", 63) + "-", 2},
		{"negative number", "values start alphanumeric, so -1 is invalid", "-1", 1},
		{"plus sign", "'+' is not a value character", "+1", 1},
		{"slash", "values have no prefix", "a/b", 1},
		{"spaces", "spaces are not value characters", "invalid value: ___@#$%^", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateLabelValue(tt.value)
			if len(got) != tt.problems {
				t.Errorf("ValidateLabelValue(%q) = %q, want %d problems (%s)", tt.value, got, tt.problems, tt.reason)
			}
		})
	}
}

func TestIsDNS1123Subdomain(t *testing.T) {
	tests := []struct {
		name     string
		reason   string
		in       string
		problems int
	}{
		{"simple", "one label", "node-1", 0},
		{"dotted", "several labels", "a.b-c.d", 0},
		{"empty", "the empty string is not a subdomain", "", 1},
		{"underscore", "node names like host_1 are not DNS names", "host_1", 1},
		{"upper", "lower case only", "Node", 1},
		{"leading dot", "labels are non-empty", ".a", 1},
		{"trailing dash", "labels end alphanumeric", "a-", 1},
		{"too long", "254 characters", strings.Repeat("a", 254), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDNS1123Subdomain(tt.in); len(got) != tt.problems {
				t.Errorf("IsDNS1123Subdomain(%q) = %q, want %d problems (%s)", tt.in, got, tt.problems, tt.reason)
			}
		})
	}
}
