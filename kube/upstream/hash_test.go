package upstream_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/daemonplan/daemonplan/kube/upstream"
)

// golden is testdata/hash/golden-v<minor>.json, written by
// kube/tools/hashgolden with the minor's own k8s.io/api and dump code.
type golden struct {
	Kubernetes string            `json:"kubernetes"`
	Modules    map[string]string `json:"modules"`
	Hashes     []struct {
		Template        string `json:"template"`
		CollisionCount  *int32 `json:"collisionCount"`
		Hash            string `json:"hash"`
		JSONDecodedHash string `json:"jsonDecodedHash"`
	} `json:"hashes"`
}

func readGolden(t *testing.T, v upstream.Version) golden {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hash", "golden-v"+v.String()+".json"))
	if err != nil {
		t.Fatalf("no golden hashes for %s (run kube/tools/hashgolden/regenerate.sh): %v", v, err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.Kubernetes != v.String() || len(g.Hashes) == 0 {
		t.Fatalf("golden-v%s.json is for %q with %d hashes", v, g.Kubernetes, len(g.Hashes))
	}
	return g
}

// readTemplate decodes testdata/hash/templates/<name>.json with this
// module's k8s.io/api, as package load does.
func readTemplate(t *testing.T, name string) *corev1.PodTemplateSpec {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hash", "templates", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &tmpl
}

func templateNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "hash", "templates", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	return names
}

// TestHashGolden compares Version.Hash, for every supported version, with
// the hashes that version's own code computed for the same templates (after
// a protobuf round trip, as the controller receives them). The templates
// are decoded here with this module's k8s.io/api, which is newer than most
// of the versions: fields the version lacks must not count, and fields it
// has that this build lacks must print as nil.
func TestHashGolden(t *testing.T) {
	names := templateNames(t)
	for _, v := range upstream.Versions() {
		g := readGolden(t, v)
		seen := make(map[string]int)
		for _, e := range g.Hashes {
			seen[e.Template]++
			got, err := v.Hash(readTemplate(t, e.Template), e.CollisionCount)
			if err != nil {
				t.Errorf("%s.Hash(%s, %s): %v", v, e.Template, ccString(e.CollisionCount), err)
				continue
			}
			if got != e.Hash {
				t.Errorf("%s.Hash(%s, %s) = %q, want %q (k8s.io/api %s)", v, e.Template, ccString(e.CollisionCount), got, e.Hash, g.Modules["k8s.io/api"])
			}
		}
		for _, n := range names {
			if seen[n] == 0 {
				t.Errorf("golden-v%s.json has no hash of template %s: regenerate it", v, n)
			}
		}
	}
}

// TestHashGoldenCoverage checks that the goldens exercise what they claim:
// every version hashes every template differently (the struct changes each
// release), a collision count changes a hash, and the normalised template
// does hash differently when decoded from JSON without a protobuf round
// trip (so the normalisation is tested, not idle).
func TestHashGoldenCoverage(t *testing.T) {
	byVersion := make(map[string]map[string]upstream.Version) // template/cc -> hash -> version
	jsonDiffers := 0
	for _, v := range upstream.Versions() {
		g := readGolden(t, v)
		for _, e := range g.Hashes {
			key := e.Template + "/" + ccString(e.CollisionCount)
			if byVersion[key] == nil {
				byVersion[key] = make(map[string]upstream.Version)
			}
			if other, ok := byVersion[key][e.Hash]; ok {
				t.Errorf("%s: %s and %s hash alike (%s)", key, other, v, e.Hash)
			}
			byVersion[key][e.Hash] = v
			if e.JSONDecodedHash != "" {
				jsonDiffers++
			}
		}
	}
	if jsonDiffers == 0 {
		t.Error("no golden template hashes differently when decoded from JSON: the normalisation is untested")
	}
}

func ccString(cc *int32) string {
	if cc == nil {
		return "nil"
	}
	b, _ := json.Marshal(*cc)
	return string(b)
}

// TestHashIgnoresLaterFields sets, on a template, fields that later
// releases added (this build knows them); the hash of each version changes
// exactly when the version has the field.
func TestHashIgnoresLaterFields(t *testing.T) {
	grpcTLS := corev1.GRPCProbeModeTLS
	http2 := corev1.HTTPProtocolHTTP2
	group := "group-a"
	tests := []struct {
		name   string
		reason string
		since  upstream.Version
		set    func(*corev1.PodTemplateSpec)
	}{
		{"PodCertificateProjection.UserAnnotations", "added in 1.35", upstream.V1_35, func(p *corev1.PodTemplateSpec) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{PodCertificate: &corev1.PodCertificateProjection{UserAnnotations: map[string]string{"k": "v"}}}},
			}}}}
		}},
		{"PodSpec.SchedulingGroup", "added in 1.36", upstream.V1_36, func(p *corev1.PodTemplateSpec) {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &group}
		}},
		{"PodSpec.EvictionResponders", "added in 1.37", upstream.V1_37, func(p *corev1.PodTemplateSpec) {
			p.Spec.EvictionResponders = []corev1.EvictionResponder{{Name: "example.com/x"}}
		}},
		{"HTTPGetAction.Protocol", "added in 1.37", upstream.V1_37, func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Protocol: &http2}}}
		}},
		{"GRPCAction.Mode", "added in 1.37", upstream.V1_37, func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Mode: &grpcTLS}}}
		}},
		{"VolumeMount.BindMountOptions", "added in 1.37", upstream.V1_37, func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "v", BindMountOptions: []string{"nosuid"}}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range upstream.Versions() {
				base := readTemplate(t, "minimal")
				changed := readTemplate(t, "minimal")
				// The field's parent, without the field: the parent itself
				// may count in every version.
				tt.set(base)
				clearNewest(base)
				tt.set(changed)
				a, err := v.Hash(base, nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := v.Hash(changed, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := v >= tt.since; (a != b) != want {
					t.Errorf("%s (%s): %s hash changed = %v, want %v", tt.name, tt.reason, v, a != b, want)
				}
			}
		})
	}
}

// clearNewest removes the fields TestHashIgnoresLaterFields sets, keeping
// their parents.
func clearNewest(p *corev1.PodTemplateSpec) {
	p.Spec.SchedulingGroup = nil
	p.Spec.EvictionResponders = nil
	for i := range p.Spec.Volumes {
		if pr := p.Spec.Volumes[i].Projected; pr != nil {
			for _, s := range pr.Sources {
				if s.PodCertificate != nil {
					s.PodCertificate.UserAnnotations = nil
				}
			}
		}
	}
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if c.LivenessProbe != nil && c.LivenessProbe.HTTPGet != nil {
			c.LivenessProbe.HTTPGet.Protocol = nil
		}
		if c.LivenessProbe != nil && c.LivenessProbe.GRPC != nil {
			c.LivenessProbe.GRPC.Mode = nil
		}
		for j := range c.VolumeMounts {
			c.VolumeMounts[j].BindMountOptions = nil
		}
	}
}

// TestHashAsStored checks the normalisation Version.Hash documents: how a
// template was built does not count, only what an API server would store.
func TestHashAsStored(t *testing.T) {
	build := func(mem resource.Quantity, args []string, sel map[string]string) *corev1.PodTemplateSpec {
		p := readTemplate(t, "minimal")
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: mem}
		p.Spec.Containers[0].Args = args
		p.Spec.NodeSelector = sel
		return p
	}
	parsed := build(resource.MustParse("1Gi"), nil, nil)
	tests := []struct {
		name, reason string
		template     *corev1.PodTemplateSpec
	}{
		{"non-canonical quantity", "an API server stores 1024Mi as 1Gi", build(resource.MustParse("1024Mi"), nil, nil)},
		{"computed quantity", "a Quantity made by a constructor has no cached string", build(*resource.NewQuantity(1<<30, resource.BinarySI), nil, nil)},
		{"printed quantity", "String caches the string in the Quantity", func() *corev1.PodTemplateSpec {
			q := resource.MustParse("1Gi")
			_ = q.String()
			return build(q, nil, nil)
		}()},
		{"empty list and map", "protobuf does not keep them", build(resource.MustParse("1Gi"), []string{}, map[string]string{})},
	}
	for _, v := range upstream.Versions() {
		want, err := v.Hash(parsed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			before := tt.template.DeepCopy()
			got, err := v.Hash(tt.template, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: %s: %s.Hash = %q, want %q", tt.name, tt.reason, v, got, want)
			}
			if !reflect.DeepEqual(before, tt.template) {
				t.Errorf("%s: %s.Hash changed its input", tt.name, v)
			}
		}
	}
}

func TestHashErrors(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{}
	tests := []struct {
		name, reason string
		v            upstream.Version
		template     *corev1.PodTemplateSpec
	}{
		{"nil template", "nothing to hash", upstream.Latest, nil},
		{"zero version", "the zero Version is no version", 0, tmpl},
		{"unknown version", "only Versions() are supported", upstream.Latest + 1, tmpl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if h, err := tt.v.Hash(tt.template, nil); err == nil {
				t.Errorf("%s: Hash = %q, want an error", tt.reason, h)
			}
		})
	}
}
