package resource

import "testing"

// benchTexts are the quantities daemon pods commonly request, plus one of
// each unusual path: a kept spelling, a written exponent, a binary fraction
// (exact path) and a 21-digit number (exact path, math/big value).
var benchTexts = []struct{ name, text string }{
	{"milli", "250m"},
	{"mebi", "64Mi"},
	{"plain", "2"},
	{"exponent", "1e3"},
	{"binaryFraction", "1.5Gi"},
	{"bigDecimal", "123456789012345678901"},
}

var (
	sinkQuantity Quantity
	sinkString   string
	sinkInt      int
	sinkList     List
)

func BenchmarkParse(b *testing.B) {
	for _, bt := range benchTexts {
		b.Run(bt.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkQuantity, _ = Parse(bt.text)
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	for _, bt := range benchTexts {
		q := MustParse(bt.text).Canonical()
		b.Run(bt.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkString = q.String()
			}
		})
	}
}

// benchPairs are sums a pod-requests computation does: same scale, milli
// plus whole, binary plus binary, and a sum that leaves int64.
var benchPairs = []struct{ name, a, b string }{
	{"sameScale", "250m", "100m"},
	{"milliPlusWhole", "250m", "1"},
	{"binary", "64Mi", "1Gi"},
	{"overflow", "9223372036854775807", "1"},
}

func BenchmarkAdd(b *testing.B) {
	for _, bp := range benchPairs {
		x, y := MustParse(bp.a), MustParse(bp.b)
		b.Run(bp.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkQuantity = x.Add(y)
			}
		})
	}
}

func BenchmarkCmp(b *testing.B) {
	for _, bp := range benchPairs {
		x, y := MustParse(bp.a), MustParse(bp.b)
		b.Run(bp.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkInt = x.Cmp(y)
			}
		})
	}
}

// benchPod is a typical daemon pod: an agent and an exporter, a sidecar
// proxy, an init container, and runtime-class overhead.
func benchPod() PodResources {
	l := func(cpu, mem string) List { return List{"cpu": MustParse(cpu), "memory": MustParse(mem)} }
	return PodResources{
		Containers: []Container{
			{Name: "agent", Requests: l("100m", "128Mi"), Limits: l("500m", "256Mi")},
			{Name: "exporter", Requests: l("10m", "32Mi")},
		},
		InitContainers: []Container{
			{Name: "proxy", Sidecar: true, Requests: l("50m", "64Mi")},
			{Name: "setup", Requests: l("200m", "16Mi")},
		},
		Overhead: l("25m", "20Mi"),
	}
}

func BenchmarkPodRequests(b *testing.B) {
	p := benchPod()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sinkList = PodRequests(p)
	}
}
