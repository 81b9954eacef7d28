package upstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor release whose DaemonSet controller the
// package reproduces. The zero value is no version: Hash refuses it, and a
// caller that wants "the default" says Latest.
type Version uint8

// The supported versions, oldest first.
const (
	V1_34 Version = iota + 1
	V1_35
	V1_36
	V1_37

	// Latest is the newest supported version, the default target.
	Latest = V1_37
)

// ErrUnsupportedVersion is wrapped by the errors of ParseVersion and Hash
// for a version outside Versions.
var ErrUnsupportedVersion = errors.New("unsupported Kubernetes version")

// Versions returns the supported versions, oldest first.
func Versions() []Version {
	return []Version{V1_34, V1_35, V1_36, V1_37}
}

// minor returns v's minor number, or 0 for an unsupported v.
func (v Version) minor() int {
	if v < V1_34 || v > Latest {
		return 0
	}
	return 33 + int(v)
}

// OrLatest returns v, or Latest for the zero Version: option structs use
// the zero value for "the default".
func (v Version) OrLatest() Version {
	if v == 0 {
		return Latest
	}
	return v
}

// Supported reports whether v is one of Versions.
func (v Version) Supported() bool { return v.minor() != 0 }

// String returns "1.<minor>", e.g. "1.37", or "Version(N)" for an
// unsupported v.
func (v Version) String() string {
	if m := v.minor(); m != 0 {
		return "1." + strconv.Itoa(m)
	}
	return "Version(" + strconv.Itoa(int(v)) + ")"
}

// ParseVersion reads a Kubernetes version: "1.37", "v1.37" or with a patch
// number, "1.37.2" or "v1.37.2". The patch number is accepted and ignored:
// the controller's decisions and hash do not change within a minor. A
// well-formed version that is not supported yields an error that wraps
// ErrUnsupportedVersion and names the supported ones.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("kubernetes version %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. %s", s, Latest)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' || p[0] == '-' || (len(p) > 1 && p[0] == '0') {
			return 0, fmt.Errorf("kubernetes version %q: %q is not a version number", s, p)
		}
		nums[i] = n
	}
	if nums[0] == 1 {
		for _, v := range Versions() {
			if v.minor() == nums[1] {
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("kubernetes version %q: %w; supported: %s", s, ErrUnsupportedVersion, supportedList())
}

func supportedList() string {
	var names []string
	for _, v := range Versions() {
		names = append(names, v.String())
	}
	return strings.Join(names, ", ")
}

// MarshalText returns v.String() for a supported v, and an error otherwise.
func (v Version) MarshalText() ([]byte, error) {
	if !v.Supported() {
		return nil, fmt.Errorf("upstream.Version.MarshalText: %w: %s", ErrUnsupportedVersion, v)
	}
	return []byte(v.String()), nil
}

// UnmarshalText sets v to ParseVersion(text).
func (v *Version) UnmarshalText(text []byte) error {
	parsed, err := ParseVersion(string(text))
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}
