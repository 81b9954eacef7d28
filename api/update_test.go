package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/api"
)

// TestBumpGenerations: the API server's numbering of an update
// (docs/validation.md, V13), each kind of change from each kind of stored
// template generation.
func TestBumpGenerations(t *testing.T) {
	const key = api.AnnotationTemplateGeneration
	tests := []struct {
		name, reason string
		annotations  map[string]string
		change       api.SpecChange
		wantGen      int64
		wantAnn      map[string]string
	}{{
		name:        "template",
		reason:      "a template change moves both numbers by one",
		annotations: map[string]string{key: "4", "team": "infra"},
		change:      api.TemplateChanged,
		wantGen:     8,
		wantAnn:     map[string]string{key: "5", "team": "infra"},
	}, {
		name:        "spec",
		reason:      "another spec change moves metadata.generation only",
		annotations: map[string]string{key: "4"},
		change:      api.SpecChanged,
		wantGen:     8,
		wantAnn:     map[string]string{key: "4"},
	}, {
		name:        "unchanged",
		reason:      "metadata or status alone moves nothing",
		annotations: map[string]string{key: "4"},
		change:      api.SpecUnchanged,
		wantGen:     7,
		wantAnn:     map[string]string{key: "4"},
	}, {
		name:    "template, no annotation",
		reason:  "a missing template generation counts from 0, as upstream's internal field does",
		change:  api.TemplateChanged,
		wantGen: 8,
		wantAnn: map[string]string{key: "1"},
	}, {
		name:        "template, malformed annotation",
		reason:      "an annotation that is not a decimal integer counts as missing (upstream refuses the object)",
		annotations: map[string]string{key: "abc"},
		change:      api.TemplateChanged,
		wantGen:     8,
		wantAnn:     map[string]string{key: "1"},
	}, {
		name:    "spec, no annotation",
		reason:  "a spec change adds no template generation",
		change:  api.SpecChanged,
		wantGen: 8,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := &api.DaemonSet{Name: "agent", Generation: 7, Annotations: tt.annotations}
			keep := ds.DeepCopy()
			got := api.BumpGenerations(ds, tt.change)
			if got.Generation != tt.wantGen {
				t.Errorf("Generation = %d, want %d (%s)", got.Generation, tt.wantGen, tt.reason)
			}
			if diff := cmp.Diff(tt.wantAnn, got.Annotations); diff != "" {
				t.Errorf("Annotations mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
			if diff := cmp.Diff(keep, ds); diff != "" {
				t.Errorf("input changed (-was +is):\n%s", diff)
			}
			if got.Annotations != nil {
				got.Annotations["x"] = "y"
				if _, ok := ds.Annotations["x"]; ok {
					t.Errorf("the result shares its annotations with the input")
				}
			}
		})
	}
	t.Run("nil", func(t *testing.T) {
		got := api.BumpGenerations(nil, api.TemplateChanged)
		want := api.DaemonSet{Generation: 1, Annotations: map[string]string{key: "1"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("BumpGenerations(nil) mismatch (-want +got):\n%s", diff)
		}
	})
}
