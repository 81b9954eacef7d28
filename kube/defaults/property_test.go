package defaults

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

// randomDaemonSet fills a DaemonSet at random from seed: any field, any
// depth (quantities valid, times zero).
func randomDaemonSet(seed int64) *appsv1.DaemonSet {
	quantities := []string{"0", "1", "100m", "1.5", "1.0001", "1500u", "64Mi", "1e3", "-3k"}
	f := randfill.NewWithSeed(seed).NilChance(0.4).NumElements(0, 2).MaxDepth(14).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse(quantities[c.Intn(len(quantities))])
		},
		func(*metav1.Time, randfill.Continue) {},
	)
	var ds appsv1.DaemonSet
	f.Fill(&ds)
	return &ds
}

// TestPropertyDefaults, on random DaemonSets and every supported minor:
//   - the input is never changed;
//   - defaulting is idempotent: a defaulted DaemonSet (as the API server
//     stores it) is kept as it is, which is also why live objects are
//     planned unchanged;
//   - a field set is kept: defaulting only fills what is empty, but for
//     the deprecated serviceAccount, which always follows a
//     serviceAccountName that is set (the API server's rule).
func TestPropertyDefaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := randomDaemonSet(rapid.Int64().Draw(t, "seed"))
		v := rapid.SampledFrom(upstream.Versions()).Draw(t, "version")
		before := in.DeepCopy()
		out, err := DaemonSet(in, v)
		if !equality.Semantic.DeepEqual(in, before) {
			t.Fatalf("the input changed:\n%s", cmp.Diff(before, in))
		}
		if err != nil {
			return // a field the minor drops (TestVersions)
		}
		again, err := DaemonSet(out, v)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(out, again) {
			t.Fatalf("not idempotent:\n%s", cmp.Diff(out, again))
		}
		if !kept(before, out) {
			t.Fatalf("a field set was changed:\n%s", cmp.Diff(before, out))
		}
	})
}

// kept reports whether every value of in is in out: in's JSON, as a
// tree, is a subtree of out's, quantities compared by value.
func kept(in, out *appsv1.DaemonSet) bool {
	var a, b any
	json.Unmarshal(jsonOf(roundUpAll(in)), &a)
	json.Unmarshal(jsonOf(out), &b)
	return subtree(a, b)
}

// roundUpAll rounds the quantities of the resource lists defaulting
// rounds, so that they compare with out's, and sets the deprecated
// serviceAccount as defaulting overwrites it.
func roundUpAll(ds *appsv1.DaemonSet) *appsv1.DaemonSet {
	c := ds.DeepCopy()
	s := &c.Spec.Template.Spec
	if s.ServiceAccountName != "" {
		s.DeprecatedServiceAccount = s.ServiceAccountName
	}
	var rs []*corev1.ResourceRequirements
	for i := range s.Containers {
		rs = append(rs, &s.Containers[i].Resources)
	}
	for i := range s.InitContainers {
		rs = append(rs, &s.InitContainers[i].Resources)
	}
	for i := range s.EphemeralContainers {
		rs = append(rs, &s.EphemeralContainers[i].Resources)
	}
	for _, r := range rs {
		roundUp(r.Limits)
		roundUp(r.Requests)
	}
	if s.Resources != nil {
		roundUp(s.Resources.Limits)
		roundUp(s.Resources.Requests)
	}
	roundUp(s.Overhead)
	for i := range s.Volumes {
		if e := s.Volumes[i].Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
			roundUp(e.VolumeClaimTemplate.Spec.Resources.Limits)
			roundUp(e.VolumeClaimTemplate.Spec.Resources.Requests)
		}
	}
	return c
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// subtree reports whether the JSON value a is in b: a null of a is
// unset, and any value of b holds it.
func subtree(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, av := range a {
			if !subtree(av, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return false
		}
		for i := range a {
			if !subtree(a[i], bs[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// FuzzDaemonSet: any DaemonSet that decodes is defaulted without a panic,
// without changing the input, idempotently.
func FuzzDaemonSet(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(`{"spec":{"updateStrategy":{"type":"RollingUpdate"},"template":{"spec":{"volumes":[{"name":"v"}],"containers":[{"image":"busybox@sha256:x","livenessProbe":{"grpc":{}}}]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in appsv1.DaemonSet
		if err := yaml.Unmarshal(data, &in); err != nil {
			return
		}
		before := in.DeepCopy()
		out, err := DaemonSet(&in, upstream.Latest)
		if !equality.Semantic.DeepEqual(&in, before) {
			t.Fatalf("the input changed")
		}
		if err != nil {
			t.Fatalf("error for the latest minor: %v", err)
		}
		again, err := DaemonSet(out, upstream.Latest)
		if err != nil || !equality.Semantic.DeepEqual(out, again) {
			t.Fatalf("not idempotent (%v):\n%s", err, cmp.Diff(out, again))
		}
	})
}
