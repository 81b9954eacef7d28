package revision

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

func TestSafeEncode(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		n      uint32
		want   string
	}{
		{"Zero", "0 maps to 4", 0, "4"},
		{"EveryDigit", "digits 0-9 map to 4 5 6 7 8 9 b c d f", 1234567890, "56789bcdf4"},
		{"MaxUint32", "ten digits at most", 4294967295, "86f8fbc6f9"},
		{"ConformanceHash", "the hash label of conformance case extra-collision-47 decodes to 2370802222", 2370802222, "67c4d46666"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeEncode(tt.n); got != tt.want {
				t.Errorf("SafeEncode(%d) = %q, want %q (%s)", tt.n, got, tt.want, tt.reason)
			}
		})
	}
}

func TestDefaultHash(t *testing.T) {
	ds := testDS(`{"spec":{"template":{"$patch":"replace"}}}`)
	sum := func(extra []byte) string {
		h := fnv.New32a()
		h.Write(ds.TemplateData)
		h.Write(extra)
		return SafeEncode(h.Sum32())
	}
	le := func(n uint32) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, n)
		return b
	}
	tests := []struct {
		name   string
		reason string
		count  *int32
		want   string
	}{
		{"NilCount", "nothing is appended without a collision count", nil, sum(nil)},
		{"ZeroCount", "a zero count appends eight zero bytes, so it differs from nil", int32p(0), sum(le(0))},
		{"Count", "the count is appended as 4 bytes little endian then 4 zero bytes", int32p(3), sum(le(3))},
		{"NegativeCount", "a negative count is hashed as its uint32 bits", int32p(-1), sum(le(0xffffffff))},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DefaultHash(ds, tt.count)
			if got != tt.want {
				t.Errorf("DefaultHash() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			if other, ok := seen[got]; ok {
				t.Errorf("DefaultHash() = %q for both %s and %s", got, other, tt.name)
			}
			seen[got] = tt.name
		})
	}
}

func TestTemplateData(t *testing.T) {
	secs := int64(30)
	deadline := int64(0)
	full := api.PodTemplate{
		Labels:       map[string]string{"z": "1", "a": "2"},
		Annotations:  map[string]string{"note": "<&>"},
		NodeName:     "n1",
		NodeSelector: map[string]string{"disk": "ssd"},
		RequiredNodeAffinity: &api.NodeSelector{Terms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.SelectorOpIn, Values: []string{"a", "b"}}},
			MatchFields:      []api.NodeSelectorRequirement{{Key: api.NodeNameField, Operator: api.SelectorOpIn, Values: []string{"n1"}}},
		}}},
		Tolerations: []api.Toleration{
			{Key: "k", Operator: api.TolerationOpEqual, Value: "v", Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
			{Operator: api.TolerationOpExists},
		},
		HostNetwork:           true,
		RestartPolicy:         "Always",
		ActiveDeadlineSeconds: &deadline,
	}
	tests := []struct {
		name   string
		reason string
		ds     api.DaemonSet
		want   string
	}{{
		name:   "TemplateDataWins",
		reason: "given bytes are returned as they are",
		ds:     api.DaemonSet{TemplateData: []byte("raw"), Template: full},
		want:   "raw",
	}, {
		name:   "EmptyTemplateDataWins",
		reason: "an empty but non-nil TemplateData is still the caller's content",
		ds:     api.DaemonSet{TemplateData: []byte{}, Template: full},
		want:   "",
	}, {
		name:   "EmptyTemplate",
		reason: "metadata and spec are always present, as in upstream's patch",
		want:   `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{}}}}`,
	}, {
		name:   "EmptyMapsLikeNil",
		reason: "nil and empty label maps encode alike",
		ds:     api.DaemonSet{Template: api.PodTemplate{Labels: map[string]string{}, Tolerations: []api.Toleration{}}},
		want:   `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{}}}}`,
	}, {
		name:   "NodeSelectorWithoutTerms",
		reason: "a non-nil required affinity without terms is written, so that it differs from none",
		ds:     api.DaemonSet{Template: api.PodTemplate{RequiredNodeAffinity: &api.NodeSelector{}}},
		want:   `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}}}`,
	}, {
		name:   "FullTemplate",
		reason: "every field, keys sorted at every level, lists in order",
		ds:     api.DaemonSet{Template: full},
		want: `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"note":"\u003c\u0026\u003e"},"labels":{"a":"2","z":"1"}},` +
			`"spec":{"activeDeadlineSeconds":0,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[` +
			`{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}],"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}}},` +
			`"hostNetwork":true,"nodeName":"n1","nodeSelector":{"disk":"ssd"},"restartPolicy":"Always",` +
			`"tolerations":[{"effect":"NoExecute","key":"k","operator":"Equal","tolerationSeconds":30,"value":"v"},{"operator":"Exists"}]}}}}`,
	}, {
		name:   "Containers",
		reason: "containers in order with their non-empty fields, quantities as Kubernetes prints them, overhead and pod-level resources",
		ds: api.DaemonSet{Template: api.PodTemplate{
			Containers: []api.Container{{
				Name: "agent", Image: "agent:1.0",
				Resources: api.Resources{
					Requests: resource.List{"cpu": resource.MustParse("0.1"), "memory": resource.MustParse("64Mi")},
					Limits:   resource.List{"memory": resource.MustParse("1.5Gi")},
				},
				Ports: []api.ContainerPort{{Name: "metrics", ContainerPort: 9100, HostPort: 9100}},
			}},
			InitContainers: []api.Container{{Name: "proxy", Image: "proxy:2", RestartPolicy: api.ContainerRestartPolicyAlways}, {Name: "empty"}},
			Overhead:       resource.List{"cpu": resource.MustParse("10m")},
			Resources:      api.Resources{Limits: resource.List{"cpu": resource.MustParse("1")}},
		}},
		want: `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{` +
			`"containers":[{"image":"agent:1.0","name":"agent","ports":[{"containerPort":9100,"hostPort":9100,"name":"metrics"}],` +
			`"resources":{"limits":{"memory":"1536Mi"},"requests":{"cpu":"100m","memory":"64Mi"}}}],` +
			`"initContainers":[{"image":"proxy:2","name":"proxy","restartPolicy":"Always"},{"name":"empty"}],` +
			`"overhead":{"cpu":"10m"},"resources":{"limits":{"cpu":"1"}}}}}}`,
	}, {
		name:   "EmptyContainerFieldsLeftOut",
		reason: "empty container lists, lists of quantities and pod-level resources encode like none",
		ds: api.DaemonSet{Template: api.PodTemplate{
			Containers: []api.Container{}, Overhead: resource.List{},
			Resources: api.Resources{Requests: resource.List{}},
		}},
		want: `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{}}}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(TemplateData(&tt.ds)); got != tt.want {
				t.Errorf("TemplateData() = %s\nwant %s\n(%s)", got, tt.want, tt.reason)
			}
		})
	}

	t.Run("DeterministicAndCopied", func(t *testing.T) {
		ds := api.DaemonSet{Template: full}
		first := TemplateData(&ds)
		for i := 0; i < 20; i++ {
			if got := TemplateData(&ds); string(got) != string(first) {
				t.Fatalf("TemplateData() changed between calls:\n%s\n%s", first, got)
			}
		}
		given := api.DaemonSet{TemplateData: []byte("abc")}
		TemplateData(&given)[0] = 'x'
		if string(given.TemplateData) != "abc" {
			t.Errorf("TemplateData() returned the DaemonSet's own slice")
		}
	})
	t.Run("ImageChangeIsNewRevision", func(t *testing.T) {
		a := api.DaemonSet{Template: api.PodTemplate{Containers: []api.Container{{Name: "agent", Image: "agent:1.0"}}}}
		b := api.DaemonSet{Template: *new(api.PodTemplate)}
		b.Template.Containers = []api.Container{{Name: "agent", Image: "agent:1.1"}}
		if string(TemplateData(&a)) == string(TemplateData(&b)) || DefaultHash(&a, nil) == DefaultHash(&b, nil) {
			t.Errorf("TemplateData() and DefaultHash() ignore the image")
		}
	})
	t.Run("TolerationOrderMatters", func(t *testing.T) {
		a := api.DaemonSet{Template: api.PodTemplate{Tolerations: []api.Toleration{{Key: "a"}, {Key: "b"}}}}
		b := api.DaemonSet{Template: api.PodTemplate{Tolerations: []api.Toleration{{Key: "b"}, {Key: "a"}}}}
		if string(TemplateData(&a)) == string(TemplateData(&b)) {
			t.Errorf("TemplateData() ignores toleration order")
		}
	})
}
