package convert_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/kube/convert"
	"github.com/daemonplan/daemonplan/kube/load"
	"github.com/daemonplan/daemonplan/rollout"
)

// readKruise reads the one OpenKruise DaemonSet of testdata/kruise.yaml,
// edited by edit (a YAML string replacement, old then new).
func readKruise(t *testing.T, edit ...string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kruise.yaml"))
	require.NoError(t, err)
	s := string(b)
	for i := 0; i+1 < len(edit); i += 2 {
		require.Contains(t, s, edit[i])
		s = strings.Replace(s, edit[i], edit[i+1], 1)
	}
	objs, err := convert.KruiseObjects(strings.NewReader(s))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0]
}

type finding struct {
	Type  field.ErrorType
	Field string
}

func findings(l field.ErrorList) []finding {
	var out []finding
	for _, e := range l {
		out = append(out, finding{e.Type, e.Field})
	}
	return out
}

func TestKruiseDaemonSet(t *testing.T) {
	u := readKruise(t)
	before := u.DeepCopy()
	k, err := convert.KruiseDaemonSet(u)
	require.NoError(t, err)
	require.Equal(t, before, u, "the input is not changed")

	want := rollout.Progressive{
		Partition:          api.Int(3),
		PartitionedScaling: true,
		Scope:              &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}},
	}
	if diff := cmp.Diff(want, k.Progressive); diff != "" {
		t.Errorf("Progressive mismatch (-want +got):\n%s", diff)
	}
	require.Equal(t, 3, k.BurstReplicas, "50% of 6 desired, rounded down")
	wantWarnings := []finding{
		{field.TypeForbidden, "spec.updateStrategy.rollingUpdate.rollingUpdateType"},
		{field.TypeForbidden, "spec.lifecycle"},
		{field.TypeForbidden, "metadata.annotations[apps.kruise.io/image-predownload-parallelism]"},
	}
	if diff := cmp.Diff(wantWarnings, findings(k.Warnings)); diff != "" {
		t.Errorf("Warnings mismatch (-want +got):\n%s", diff)
	}

	// The rest is an apps/v1 DaemonSet, with the template byte for byte.
	ds := k.DaemonSet
	require.Equal(t, "kube-system/agent", ds.Namespace+"/"+ds.Name)
	require.EqualValues(t, "7a1c-agent", ds.UID)
	require.EqualValues(t, 2, ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.IntVal)
	require.EqualValues(t, 6, ds.Status.DesiredNumberScheduled)
	var plain appsv1.DaemonSet
	plainJSON, err := utilyaml.ToJSON([]byte(`
spec:
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: registry.example.com/agent:1.1
`))
	require.NoError(t, err)
	require.NoError(t, utiljson.Unmarshal(plainJSON, &plain))
	got, err := convert.DaemonSet(ds)
	require.NoError(t, err)
	wantData, err := convert.DaemonSet(&plain)
	require.NoError(t, err)
	require.Equal(t, string(wantData.TemplateData), string(got.TemplateData), "revision data as upstream stores it")
}

func TestKruiseDaemonSetVersionsAndErrors(t *testing.T) {
	tests := []struct {
		name, reason string
		edit         []string
		want         *rollout.Progressive
		wantErr      []finding
		wantWarn     []finding
	}{
		{
			name:   "v1alpha1 with the progressive-create annotation",
			reason: "v1alpha1 takes an int partition and switches partitioned scaling by annotation",
			edit: []string{"apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1",
				"    apps.kruise.io/image-predownload-parallelism: \"5\"", "    daemonset.kruise.io/progressive-create-pod: \"true\"",
				"  scaleStrategy:\n    partitionedScaling: true\n", "",
				"  lifecycle:\n    preDelete:\n      labelsHandler:\n        example.com/drain: \"true\"\n", "",
				"      rollingUpdateType: InPlaceIfPossible\n", ""},
			want: &rollout.Progressive{Partition: api.Int(3), PartitionedScaling: true,
				Scope: &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}},
		},
		{
			name:   "percent partition and paused",
			reason: "v1beta1's partition is an int or a percentage; paused maps to Pause",
			edit:   []string{"partition: 3", "partition: 50%\n      paused: true", "  scaleStrategy:\n    partitionedScaling: true\n", ""},
			want: &rollout.Progressive{Partition: api.Percent("50%"), Pause: true,
				Scope: &api.LabelSelector{MatchLabels: map[string]string{"pool": "blue"}}},
			wantWarn: []finding{
				{field.TypeForbidden, "spec.updateStrategy.rollingUpdate.rollingUpdateType"},
				{field.TypeForbidden, "spec.lifecycle"},
				{field.TypeForbidden, "metadata.annotations[apps.kruise.io/image-predownload-parallelism]"},
			},
		},
		{
			name:   "unknown spec fields are warnings",
			reason: "a field daemonplan does not know is reported, never dropped silently",
			edit:   []string{"  burstReplicas: 50%", "  burstReplicas: 50%\n  futureField: 1", "    rollingUpdate:\n", "    rollingUpdate:\n      surgeMode: x\n"},
			wantWarn: []finding{
				{field.TypeNotSupported, "spec.futureField"},
				{field.TypeNotSupported, "spec.updateStrategy.rollingUpdate.surgeMode"},
				{field.TypeForbidden, "spec.updateStrategy.rollingUpdate.rollingUpdateType"},
				{field.TypeForbidden, "spec.lifecycle"},
				{field.TypeForbidden, "metadata.annotations[apps.kruise.io/image-predownload-parallelism]"},
			},
		},
		{
			name:    "partition out of range",
			reason:  "rollout.Progressive.Validate, reported at the OpenKruise path",
			edit:    []string{"partition: 3", "partition: 150%"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.partition"}},
		},
		{
			name:    "partition of the wrong type",
			reason:  "neither an int nor a string",
			edit:    []string{"partition: 3", "partition: [3]"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.partition"}},
		},
		{
			name:    "partition beyond int32",
			reason:  "4294967296 is 2^32: read as an int32 it wrapped to 0, and every outdated pod was deleted",
			edit:    []string{"partition: 3", "partition: 4294967296"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.partition"}},
		},
		{
			name:    "fractional partition",
			reason:  "1.5 is no integer: it was truncated to 1",
			edit:    []string{"partition: 3", "partition: 1.5"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.partition"}},
		},
		{
			name:    "v1alpha1 percent partition",
			reason:  "v1alpha1's partition is an *int32 in OpenKruise's types; only v1beta1's is an int or a percentage",
			edit:    []string{"apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1", "partition: 3", "partition: 50%"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.partition"}},
		},
		{
			name:    "burstReplicas beyond int32",
			reason:  "an int beyond the int32 range wrapped modulo 2^32",
			edit:    []string{"burstReplicas: 50%", "burstReplicas: 4294967297"},
			wantErr: []finding{{field.TypeInvalid, "spec.burstReplicas"}},
		},
		{
			name:    "fractional burstReplicas",
			reason:  "2.5 is no integer: it was truncated to 2",
			edit:    []string{"burstReplicas: 50%", "burstReplicas: 2.5"},
			wantErr: []finding{{field.TypeInvalid, "spec.burstReplicas"}},
		},
		{
			name:    "bad scope selector",
			reason:  "selector syntax is checked at its OpenKruise path",
			edit:    []string{"          pool: blue", "          \"bad key!\": blue"},
			wantErr: []finding{{field.TypeInvalid, "spec.updateStrategy.rollingUpdate.selector.matchLabels"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := convert.KruiseDaemonSet(readKruise(t, tt.edit...))
			if tt.wantErr != nil {
				var errs field.ErrorList
				require.ErrorAs(t, err, &errs, tt.reason)
				if diff := cmp.Diff(tt.wantErr, findings(errs)); diff != "" {
					t.Errorf("errors mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
				}
				return
			}
			require.NoError(t, err, tt.reason)
			if tt.want != nil {
				if diff := cmp.Diff(*tt.want, k.Progressive); diff != "" {
					t.Errorf("Progressive mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
				}
			}
			if diff := cmp.Diff(tt.wantWarn, findings(k.Warnings)); diff != "" {
				t.Errorf("Warnings mismatch (-want +got):\n%s\nreason: %s", diff, tt.reason)
			}
		})
	}
}

func TestKruiseDaemonSetRejectsOtherKinds(t *testing.T) {
	for _, gvk := range [][2]string{{"apps/v1", "DaemonSet"}, {"apps.kruise.io/v1beta1", "CloneSet"}, {"apps.kruise.io/v2", "DaemonSet"}} {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvk[0], "kind": gvk[1]}}
		_, err := convert.KruiseDaemonSet(u)
		require.Error(t, err, "%v", gvk)
	}
}

// TestKruiseObjects reads OpenKruise DaemonSets out of mixed input: JSON
// and YAML, Lists and typed lists, next to apps/v1 objects it skips.
func TestKruiseObjects(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"yaml stream", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: apps.kruise.io/v1beta1\nkind: DaemonSet\nmetadata: {name: x}\n---\n", []string{"x"}},
		{"json list", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"up"}},{"apiVersion":"apps.kruise.io/v1alpha1","kind":"DaemonSet","metadata":{"name":"y"}}]}`, []string{"y"}},
		{"typed list", `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSetList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, []string{"a", "b"}},
		{"concatenated json", `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","metadata":{"name":"a"}} {"apiVersion":"v1","kind":"Pod"}`, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := convert.KruiseObjects(strings.NewReader(tt.input))
			require.NoError(t, err)
			var got []string
			for _, o := range objs {
				got = append(got, o.GetName())
			}
			require.Equal(t, tt.want, got)
		})
	}
	_, err := convert.KruiseObjects(strings.NewReader("{not json"))
	require.Error(t, err)
}

// TestKruiseObjectsRefusesDuplicateKeys: a field given twice in one object
// is an error in JSON as in YAML; plain JSON decoding would keep the last
// value silently (partition 0: every outdated pod updated).
func TestKruiseObjectsRefusesDuplicateKeys(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"json", `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","metadata":{"name":"a"},"spec":{"updateStrategy":{"rollingUpdate":{"partition":3,"partition":0}}}}`,
			`"spec.updateStrategy.rollingUpdate.partition"`},
		{"json, second document", `{"apiVersion":"v1","kind":"Pod"}` + "\n" + `{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","metadata":{"name":"a","name":"b"}}`,
			`document 2`},
		{"json list item", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"DaemonSet","spec":{"burstReplicas":1,"burstReplicas":9}}]}`,
			`"items[0].spec.burstReplicas"`},
		{"yaml", "apiVersion: apps.kruise.io/v1beta1\nkind: DaemonSet\nspec:\n  updateStrategy:\n    rollingUpdate:\n      partition: 3\n      partition: 0\n",
			"partition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := convert.KruiseObjects(strings.NewReader(tt.input))
			require.Error(t, err, "read as %d objects", len(objs))
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestKruiseObjectsBoundsAliases: KruiseObjects refuses a YAML document
// whose aliases add more than load.MaxAliasExpansion bytes, as kube/load
// does, before converting it: the conversion copies an aliased value out
// at every alias.
func TestKruiseObjectsBoundsAliases(t *testing.T) {
	tests := []struct {
		name, reason string
		times        int
		want         error
	}{
		{"at the limit", "two aliases of MaxAliasExpansion/2-1 bytes add MaxAliasExpansion", 2, nil},
		{"beyond the limit", "three such aliases add half as much again", 3, load.ErrAliasExpansion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "apiVersion: apps.kruise.io/v1beta1\nkind: DaemonSet\nmetadata: {name: a, annotations: {s: &s " +
				strings.Repeat("x", load.MaxAliasExpansion/2-1) + "}}\nl: [" + strings.TrimSuffix(strings.Repeat("*s, ", tt.times), ", ") + "]\n"
			_, err := convert.KruiseObjects(strings.NewReader(in))
			if tt.want == nil {
				require.NoError(t, err, tt.reason)
				return
			}
			require.ErrorIs(t, err, tt.want, tt.reason)
			require.Contains(t, err.Error(), "document 1", tt.reason)
		})
	}
}
