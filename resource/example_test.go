package resource_test

import (
	"errors"
	"fmt"

	"github.com/daemonplan/daemonplan/resource"
)

func ExampleParse() {
	for _, s := range []string{"100m", "0.5", "1.5Gi", "1024Ki", "2e3", "1000m", "+1", "1ki"} {
		q, err := resource.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-7s %-7s %v\n", s, q, q.Format())
	}
	// Output:
	// 100m    100m    DecimalSI
	// 0.5     500m    DecimalSI
	// 1.5Gi   1536Mi  BinarySI
	// 1024Ki  1Mi     BinarySI
	// 2e3     2e3     DecimalExponent
	// 1000m   1       DecimalSI
	// +1      +1      DecimalSI
	// resource: cannot parse quantity "1ki": unknown suffix
}

func ExampleParseError() {
	_, err := resource.Parse(".e-10")
	var pe *resource.ParseError
	fmt.Println(errors.As(err, &pe), pe.Text, errors.Is(err, resource.ErrNumber))
	// Output:
	// true .e-10 true
}

func ExampleMustParse() {
	q := resource.MustParse("64Mi")
	fmt.Println(q.Value())
	// Output:
	// 67108864
}

func ExampleNewQuantity() {
	fmt.Println(resource.NewQuantity(2048, resource.BinarySI), resource.NewQuantity(2000, resource.DecimalSI))
	// Output:
	// 2Ki 2k
}

func ExampleNewMilliQuantity() {
	fmt.Println(resource.NewMilliQuantity(1500, resource.DecimalSI))
	// Output:
	// 1500m
}

func ExampleFormat_String() {
	fmt.Println(resource.BinarySI.String(), resource.DecimalSI.String(), resource.DecimalExponent.String())
	// Output:
	// BinarySI DecimalSI DecimalExponent
}

func ExampleQuantity_Format() {
	// BinarySI below 1024 prints as DecimalSI but keeps its format.
	q := resource.MustParse("0.5Ki")
	fmt.Println(q, q.Format())
	// Output:
	// 512 BinarySI
}

func ExampleQuantity_Add() {
	cpu := resource.MustParse("250m").Add(resource.MustParse("1"))
	mem := resource.MustParse("1Ki").Add(resource.MustParse("1"))
	zero := resource.Quantity{}.Add(resource.MustParse("1Ki"))
	fmt.Println(cpu, mem, zero)
	// Output:
	// 1250m 1025 1Ki
}

func ExampleQuantity_Sub() {
	fmt.Println(resource.MustParse("1").Sub(resource.MustParse("250m")))
	// Output:
	// 750m
}

func ExampleQuantity_Neg() {
	fmt.Println(resource.MustParse("1.5Gi").Neg())
	// Output:
	// -1536Mi
}

func ExampleQuantity_Cmp() {
	a, b := resource.MustParse("1Gi"), resource.MustParse("1000Mi")
	fmt.Println(a.Cmp(b), b.Cmp(a), a.Cmp(resource.MustParse("1073741824")))
	// Output:
	// 1 -1 0
}

func ExampleQuantity_Equal() {
	fmt.Println(resource.MustParse("1").Equal(resource.MustParse("1000m")))
	// Output:
	// true
}

func ExampleQuantity_Sign() {
	fmt.Println(resource.MustParse("-1n").Sign(), resource.MustParse("0Ki").Sign(), resource.MustParse("1").Sign())
	// Output:
	// -1 0 1
}

func ExampleQuantity_IsZero() {
	fmt.Println(resource.MustParse("-0").IsZero(), resource.MustParse("0.1n").IsZero())
	// Output:
	// true false
}

func ExampleQuantity_String() {
	// Spellings apimachinery keeps are printed as written; others are
	// canonical.
	for _, s := range []string{"1.500", "1.5", "1E3", "15e2", "0.1m", "1000E"} {
		fmt.Print(resource.MustParse(s), " ")
	}
	fmt.Println()
	// Output:
	// 1.500 1500m 1E3 1500 100u 1000E
}

func ExampleQuantity_Canonical() {
	fmt.Println(resource.MustParse("1.500").Canonical(), resource.MustParse("+1").Canonical())
	// Output:
	// 1500m 1
}

func ExampleQuantity_ScaledValue() {
	q := resource.MustParse("1500")
	k, ok := q.ScaledValue(3)
	big, fits := resource.MustParse("20E").ScaledValue(0)
	fmt.Println(k, ok, big, fits)
	// Output:
	// 2 true 9223372036854775807 false
}

func ExampleQuantity_Value() {
	fmt.Println(resource.MustParse("1.1").Value(), resource.MustParse("-1.1").Value())
	// Output:
	// 2 -2
}

func ExampleQuantity_MilliValue() {
	fmt.Println(resource.MustParse("0.25").MilliValue(), resource.MustParse("1n").MilliValue())
	// Output:
	// 250 1
}

func ExampleList_Add() {
	a := resource.List{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")}
	b := resource.List{"cpu": resource.MustParse("150m"), "nvidia.com/gpu": resource.MustParse("1")}
	fmt.Println(a.Add(b))
	// Output:
	// cpu=250m,memory=64Mi,nvidia.com/gpu=1
}

func ExampleList_Max() {
	a := resource.List{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("1Gi")}
	b := resource.List{"cpu": resource.MustParse("1"), "memory": resource.MustParse("1073741824")}
	fmt.Println(a.Max(b))
	// Output:
	// cpu=1,memory=1Gi
}

func ExampleList_Names() {
	l := resource.List{"memory": {}, "cpu": {}, "example.com/gpu": {}}
	fmt.Println(l.Names())
	// Output:
	// [cpu example.com/gpu memory]
}

func ExampleList_String() {
	fmt.Printf("%q %q\n", resource.List{"memory": resource.MustParse("64Mi"), "cpu": resource.MustParse("0.25")}, resource.List(nil))
	// Output:
	// "cpu=250m,memory=64Mi" ""
}

func ExamplePodRequests() {
	pod := resource.PodResources{
		Containers: []resource.Container{
			{Name: "app", Requests: resource.List{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")}},
		},
		InitContainers: []resource.Container{
			{Name: "proxy", Sidecar: true, Requests: resource.List{"cpu": resource.MustParse("50m")}},
			{Name: "migrate", Requests: resource.List{"cpu": resource.MustParse("500m")}},
		},
		Overhead: resource.List{"memory": resource.MustParse("16Mi")},
	}
	fmt.Println(resource.PodRequests(pod))
	// Output:
	// cpu=550m,memory=80Mi
}

func ExampleDefault() {
	pod := resource.PodResources{Containers: []resource.Container{
		{Name: "agent", Limits: resource.List{"cpu": resource.MustParse("0.2"), "memory": resource.MustParse("1.5Mi")}},
	}}
	d := resource.Default(pod)
	fmt.Println(d.Containers[0].Requests)
	fmt.Printf("%q\n", pod.Containers[0].Requests)
	// Output:
	// cpu=200m,memory=1536Ki
	// ""
}

func ExampleEffectiveRequests() {
	pod := resource.PodResources{Containers: []resource.Container{
		{Name: "agent", Requests: resource.List{"cpu": resource.MustParse("10u")}, Limits: resource.List{"memory": resource.MustParse("128Mi")}},
	}}
	fmt.Println(resource.PodRequests(pod))
	fmt.Println(resource.EffectiveRequests(pod))
	// Output:
	// cpu=10u
	// cpu=1m,memory=128Mi
}
