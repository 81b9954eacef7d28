package whatif_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/whatif"
)

// TestEditNumbersGenerations: Edit numbers the edited DaemonSet as
// api.BumpGenerations, the API server's rule (docs/validation.md, V13; W2),
// from the original: a new template moves both generations, another spec
// change metadata.generation only, a metadata edit neither; numbers the
// edit sets itself stand. An Edit that counted for itself would drift from
// sim, which shares the rule.
func TestEditNumbersGenerations(t *testing.T) {
	before := settled(t, 2, maxUnavailable(1))
	tests := []struct {
		name, reason string
		edit         func(ds *api.DaemonSet)
		change       api.SpecChange
		own          bool // the edit sets its own numbers, which stand
	}{
		{name: "template", reason: "a new image", change: api.TemplateChanged,
			edit: func(ds *api.DaemonSet) { ds.TemplateData = []byte(`{"image":"agent:v2"}`) }},
		{name: "strategy", reason: "another budget", change: api.SpecChanged,
			edit: func(ds *api.DaemonSet) { ds.UpdateStrategy = maxUnavailable(2) }},
		{name: "minReadySeconds", reason: "a spec field outside the template", change: api.SpecChanged,
			edit: func(ds *api.DaemonSet) { ds.MinReadySeconds = 30 }},
		{name: "annotation", reason: "metadata only", change: api.SpecUnchanged,
			edit: func(ds *api.DaemonSet) { ds.Annotations[api.AnnotationChangeCause] = "why" }},
		{name: "own numbers", reason: "an edited DaemonSet read back from a cluster is already numbered", own: true,
			edit: func(ds *api.DaemonSet) {
				ds.TemplateData = []byte(`{"image":"agent:v2"}`)
				ds.Generation = 9
				ds.Annotations[api.AnnotationTemplateGeneration] = "7"
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := before.DaemonSet.DeepCopy()
			tt.edit(ds)
			edited, err := whatif.Edit(before, daemonplan.Input{DaemonSet: ds})
			require.NoError(t, err)
			want := api.BumpGenerations(before.DaemonSet, tt.change)
			if tt.own {
				want = *ds
			}
			require.Equal(t, want.Generation, edited.DaemonSet.Generation, "metadata.generation (%s)", tt.reason)
			require.Equal(t, api.TemplateGeneration(&want), api.TemplateGeneration(edited.DaemonSet), "template generation (%s)", tt.reason)
		})
	}
}
