package differential

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	helpers "k8s.io/component-helpers/resource"

	"github.com/daemonplan/daemonplan/resource"
)

// The benchmarks run both implementations as sub-benchmarks impl=daemonplan
// and impl=apimachinery (or impl=component-helpers) in the same run, so
// that benchstat -col /impl prints them side by side with their ratio:
//
//	go test ./kube/differential -run '^$' -bench 'Quantity|PodRequests' -benchmem -count 10 > bench.txt
//	benchstat -col /impl bench.txt

// benchQuantityTexts are the quantities daemon pods commonly request, plus
// a written exponent, a binary fraction and a 21-digit number (both on the
// exact path of either parser).
var benchQuantityTexts = []struct{ name, text string }{
	{"milli", "250m"},
	{"mebi", "64Mi"},
	{"plain", "2"},
	{"exponent", "1e3"},
	{"binaryFraction", "1.5Gi"},
	{"bigDecimal", "123456789012345678901"},
}

var (
	sinkOurs   resource.Quantity
	sinkTheirs apiresource.Quantity
	sinkErr    error
	sinkList   resource.List
	sinkV1List v1.ResourceList
)

func BenchmarkQuantityParse(b *testing.B) {
	for _, bt := range benchQuantityTexts {
		b.Run("text="+bt.name+"/impl=daemonplan", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkOurs, sinkErr = resource.Parse(bt.text)
			}
		})
		b.Run("text="+bt.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkTheirs, sinkErr = apiresource.ParseQuantity(bt.text)
			}
		})
	}
}

// benchQuantityPairs are sums a pod-requests computation does: same scale,
// milli plus whole, binary plus binary, and a sum that leaves int64.
var benchQuantityPairs = []struct{ name, a, b string }{
	{"sameScale", "250m", "100m"},
	{"milliPlusWhole", "250m", "1"},
	{"binary", "64Mi", "1Gi"},
	{"overflow", "9223372036854775807", "1"},
}

// BenchmarkQuantityAdd measures one sum. apimachinery's Add changes its
// receiver, so each iteration adds into a copy of the first operand (a
// struct copy: both operands are on its int64 path).
func BenchmarkQuantityAdd(b *testing.B) {
	for _, bp := range benchQuantityPairs {
		x, y := resource.MustParse(bp.a), resource.MustParse(bp.b)
		tx, ty := apiresource.MustParse(bp.a), apiresource.MustParse(bp.b)
		b.Run("pair="+bp.name+"/impl=daemonplan", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkOurs = x.Add(y)
			}
		})
		b.Run("pair="+bp.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				z := tx.DeepCopy()
				z.Add(ty)
				sinkTheirs = z
			}
		})
	}
}

// BenchmarkPodRequests measures a typical daemon pod: an agent and an
// exporter, a sidecar proxy, an init container, and runtime-class overhead.
func BenchmarkPodRequests(b *testing.B) {
	l := textList{"cpu": "100m", "memory": "128Mi"}
	p := textPod{
		containers: []textContainer{
			{requests: l, limits: textList{"cpu": "500m", "memory": "256Mi"}},
			{requests: textList{"cpu": "10m", "memory": "32Mi"}},
		},
		initContainers: []textContainer{
			{requests: textList{"cpu": "50m", "memory": "64Mi"}, sidecar: true},
			{requests: textList{"cpu": "200m", "memory": "16Mi"}},
		},
		overhead: textList{"cpu": "25m", "memory": "20Mi"},
	}
	ours, theirs := p.ours(), p.theirs()
	b.Run("impl=daemonplan", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkList = resource.PodRequests(ours)
		}
	})
	b.Run("impl=component-helpers", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkV1List = helpers.PodRequests(theirs, helpers.PodResourcesOptions{})
		}
	})
}
