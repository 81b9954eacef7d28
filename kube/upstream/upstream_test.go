package upstream_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

func ptr[T any](v T) *T { return &v }

func sampleDS() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", Annotations: map[string]string{"a": "b"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      map[string]string{"app": "agent"},
					Annotations: map[string]string{"html": "<&>"},
				},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: "c", Image: "img"}},
					TerminationGracePeriodSeconds: ptr(int64(30)),
				},
			},
		},
	}
}

func TestHash(t *testing.T) {
	base := sampleDS()
	other := sampleDS()
	other.Spec.Template.Spec.Containers[0].Image = "img2"
	tests := []struct {
		name     string
		reason   string
		template *corev1.PodTemplateSpec
		cc       *int32
		differs  bool // from Hash(base, nil)
	}{
		{"same template", "equal templates hash equally", &sampleDS().Spec.Template, nil, false},
		{"other image", "a template change changes the hash", &other.Spec.Template, nil, true},
		{"collision count 0", "a zero collision count still adds 8 bytes", &base.Spec.Template, ptr(int32(0)), true},
		{"collision count 1", "the collision count is hashed", &base.Spec.Template, ptr(int32(1)), true},
	}
	want := hash134(&base.Spec.Template, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hash134(tt.template, tt.cc)
			if (got != want) != tt.differs {
				t.Errorf("%s: Hash() = %q, base %q", tt.reason, got, want)
			}
			if strings.Trim(got, "456789bcdf") != "" || len(got) == 0 || len(got) > 10 {
				t.Errorf("Hash() = %q, want 1-10 characters of the safe digits", got)
			}
		})
	}
	if hash134(&base.Spec.Template, ptr(int32(0))) == hash134(&base.Spec.Template, ptr(int32(1))) {
		t.Error("collision counts 0 and 1 hash equally")
	}
	if !reflect.DeepEqual(base, sampleDS()) {
		t.Error("Hash changed its input")
	}
}

func TestRevisionData(t *testing.T) {
	ds := sampleDS()
	got, err := upstream.RevisionData(ds)
	if err != nil {
		t.Fatal(err)
	}
	// Keys sorted, compact, HTML escaped, "$patch" first (it sorts first),
	// no creationTimestamp (omitzero since apimachinery v0.34).
	want := `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"html":"\u003c\u0026\u003e"},"labels":{"app":"agent"}},` +
		`"spec":{"containers":[{"image":"img","name":"c","resources":{}}],"terminationGracePeriodSeconds":30}}}}`
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("RevisionData() mismatch (-want +got):\n%s", d)
	}
	if !reflect.DeepEqual(ds, sampleDS()) {
		t.Error("RevisionData changed its input")
	}
	if _, err := upstream.RevisionData(nil); err == nil {
		t.Error("RevisionData(nil) succeeded")
	}
}

// TestRevisionDataLargeIntegers: integers beyond float64's exact range
// (2^53) come out as they went in, as upstream's getPatch decodes with
// apimachinery's json package, which keeps whole numbers as int64. Through
// float64, 2^53+1 would become 2^53, the revision would not match its
// template, and the sync would see a hash collision (found running the
// v1.37.2 controller side by side).
func TestRevisionDataLargeIntegers(t *testing.T) {
	for _, v := range []int64{1<<53 + 1, 1<<63 - 1} {
		ds := sampleDS()
		ds.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(v)
		got, err := upstream.RevisionData(ds)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"terminationGracePeriodSeconds":%d}`, v); !strings.Contains(string(got), want) {
			t.Errorf("RevisionData() = %s, want it to hold %s", got, want)
		}
	}
}

func TestStoredData(t *testing.T) {
	tests := []struct {
		name, reason, in, want string
	}{
		{"indented", "kubectl's indentation is removed", "{\n \"a\": [\n  1, \"x y\"\n ]\n}", `{"a":[1,"x y"]}`},
		{"compact", "compact data is unchanged", `{"a":"\u003c"}`, `{"a":"\u003c"}`},
		{"not JSON", "other bytes are kept", "\x00\x01", "\x00\x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(upstream.StoredData([]byte(tt.in))); got != tt.want {
				t.Errorf("%s: StoredData() = %q, want %q", tt.reason, got, tt.want)
			}
		})
	}
}

// hash134 is the v1.34 hash; the recorded v1.34 cases and the older tests
// were written against it.
func hash134(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h, err := upstream.V1_34.Hash(template, collisionCount)
	if err != nil {
		panic(err)
	}
	return h
}
