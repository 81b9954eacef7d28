package upstream_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in, reason  string
		want        upstream.Version
		unsupported bool // the error wraps ErrUnsupportedVersion
	}{
		{"1.37", "major.minor", upstream.V1_37, false},
		{"v1.37", "with a leading v", upstream.V1_37, false},
		{"1.37.2", "a patch number is accepted", upstream.V1_37, false},
		{"v1.34.4", "the conformance cases' v1.34", upstream.V1_34, false},
		{"1.35", "every supported minor parses", upstream.V1_35, false},
		{"1.36.0", "patch zero", upstream.V1_36, false},
		{"1.33", "older than supported", 0, true},
		{"1.38", "newer than supported", 0, true},
		{"2.37", "another major", 0, true},
		{"", "empty", 0, false},
		{"1", "no minor", 0, false},
		{"1.37.2.1", "too many parts", 0, false},
		{"1.x", "not a number", 0, false},
		{"1.037", "leading zero", 0, false},
		{"1.+37", "sign", 0, false},
		{"1.37-rc.1", "pre-release suffix", 0, false},
		{"vv1.37", "one v only", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := upstream.ParseVersion(tt.in)
			if tt.want != 0 {
				if err != nil || got != tt.want {
					t.Errorf("%s: ParseVersion(%q) = %v, %v; want %v", tt.reason, tt.in, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s: ParseVersion(%q) = %v, want an error", tt.reason, tt.in, got)
			}
			if errors.Is(err, upstream.ErrUnsupportedVersion) != tt.unsupported {
				t.Errorf("%s: ParseVersion(%q): errors.Is(ErrUnsupportedVersion) = %v, want %v (%v)", tt.reason, tt.in, !tt.unsupported, tt.unsupported, err)
			}
			if tt.unsupported && !strings.Contains(err.Error(), "1.34, 1.35, 1.36, 1.37") {
				t.Errorf("%s: the error does not name the supported versions: %v", tt.reason, err)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	vs := upstream.Versions()
	if len(vs) == 0 || vs[len(vs)-1] != upstream.Latest {
		t.Fatalf("Versions() = %v, want it to end with Latest %v", vs, upstream.Latest)
	}
	for i, v := range vs {
		if !v.Supported() {
			t.Errorf("%v is listed but not supported", v)
		}
		if i > 0 && vs[i-1] >= v {
			t.Errorf("Versions() not sorted: %v", vs)
		}
		back, err := upstream.ParseVersion(v.String())
		if err != nil || back != v {
			t.Errorf("ParseVersion(%q) = %v, %v", v, back, err)
		}
	}
	var zero upstream.Version
	if zero.Supported() || zero.String() != "Version(0)" {
		t.Errorf("zero Version: Supported %v, String %q", zero.Supported(), zero.String())
	}
}

func TestVersionText(t *testing.T) {
	type doc struct {
		Version upstream.Version `json:"version"`
	}
	b, err := json.Marshal(doc{upstream.V1_35})
	if err != nil || string(b) != `{"version":"1.35"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"version":"v1.36.3"}`), &d); err != nil || d.Version != upstream.V1_36 {
		t.Errorf("Unmarshal = %v, %v", d.Version, err)
	}
	if err := json.Unmarshal([]byte(`{"version":"1.30"}`), &d); !errors.Is(err, upstream.ErrUnsupportedVersion) {
		t.Errorf("Unmarshal of 1.30: %v, want ErrUnsupportedVersion", err)
	}
	if _, err := json.Marshal(doc{}); err == nil {
		t.Error("Marshal of the zero Version succeeded")
	}
}
