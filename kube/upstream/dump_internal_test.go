package upstream

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/dump"
	"sigs.k8s.io/randfill"
)

// buildVersion returns the supported version whose layout is exactly the
// PodTemplateSpec of this module's k8s.io/api, if any.
func buildVersion(t *testing.T) (Version, bool) {
	t.Helper()
	for _, v := range Versions() {
		l, err := layoutOf(v)
		if err != nil {
			t.Fatal(err)
		}
		if sameLayout(l.root, reflect.TypeFor[corev1.PodTemplateSpec](), make(map[*layoutType]bool)) == "" {
			return v, true
		}
	}
	return 0, false
}

// sameLayout returns "" if t has the layout of lt, and otherwise where they
// differ.
func sameLayout(lt *layoutType, t reflect.Type, done map[*layoutType]bool) string {
	if done[lt] {
		return ""
	}
	done[lt] = true
	if lt.name != t.String() {
		return fmt.Sprintf("%s: named %s in this build", lt.id, t)
	}
	if lt.kind == kindOpaque {
		return ""
	}
	if lt.kind != t.Kind() {
		return fmt.Sprintf("%s: kind %s in this build", lt.id, t.Kind())
	}
	switch lt.kind {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return sameLayout(lt.elem, t.Elem(), done)
	case reflect.Map:
		if d := sameLayout(lt.key, t.Key(), done); d != "" {
			return d
		}
		return sameLayout(lt.elem, t.Elem(), done)
	case reflect.Struct:
		if len(lt.fields) != t.NumField() {
			return fmt.Sprintf("%s: %d fields in this build, %d in the layout", lt.id, t.NumField(), len(lt.fields))
		}
		for i, f := range lt.fields {
			if t.Field(i).Name != f.name {
				return fmt.Sprintf("%s: field %d is %s in this build, %s in the layout", lt.id, i, t.Field(i).Name, f.name)
			}
			if d := sameLayout(f.typ, t.Field(i).Type, done); d != "" {
				return d
			}
		}
	}
	return ""
}

// TestLayoutsParse reads every layout and checks that the newest one is
// this build's: the module's k8s.io/api moves with the newest supported
// version.
func TestLayoutsParse(t *testing.T) {
	for _, v := range Versions() {
		if _, err := layoutOf(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	l, err := layoutOf(Latest)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameLayout(l.root, reflect.TypeFor[corev1.PodTemplateSpec](), make(map[*layoutType]bool)); d != "" {
		t.Errorf("this module's k8s.io/api is not the layout of %s, the newest version: %s", Latest, d)
	}
}

func TestParseLayoutErrors(t *testing.T) {
	tests := []struct{ name, reason, text string }{
		{"no root", "a layout names its root", "type a struct a\n"},
		{"undeclared", "every type used is declared", "root r\ntype r struct r\n\tF x -\n"},
		{"cycle", "a type may not contain itself", "root r\ntype r struct r\n\tF *r -\ntype *r ptr *r r\n"},
		{"bad kind", "kinds are Go kinds or opaque", "root r\ntype r thing r\n"},
		{"arguments", "a pointer names its element", "root r\ntype r struct r\n\tF *x -\ntype *x ptr *x\n"},
		{"field outside struct", "fields follow a struct", "root r\ntype r string r\n\tF r -\n"},
		{"twice", "a type is declared once", "root r\ntype r struct r\ntype r struct r\n"},
		{"map key", "map keys are strings", "root r\ntype r struct r\n\tM map[int]int -\ntype map[int]int map map[int]int int int\ntype int int int\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseLayout(tt.text); err == nil {
				t.Errorf("%s: parseLayout succeeded", tt.reason)
			}
		})
	}
}

// filler fills templates with random content that an API server could
// store: valid quantities and times, everything else at random.
func filler(seed int64) *randfill.Filler {
	quantities := []string{"0", "1", "100m", "1.5", "1024Mi", "64Mi", "1Gi", "0.5Gi", "1e3", "12345678901234567890", "1.000000001", "-3k"}
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 2).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*q = resource.MustParse(quantities[c.Intn(len(quantities))])
			case 1:
				*q = *resource.NewMilliQuantity(c.Int63n(1<<40)-1<<39, resource.DecimalSI)
			default:
				*q = *resource.NewQuantity(c.Int63n(1<<40), resource.BinarySI)
				if c.Bool() {
					_ = q.String() // caches the string in q
				}
			}
		},
		// Times are left zero: upstream prints a decoded time with the
		// controller's local time zone (see Version.Hash).
		func(*metav1.Time, randfill.Continue) {},
	)
}

// protobufRoundTrip returns p as the controller receives it from an API
// server.
func protobufRoundTrip(t *testing.T, p *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	t.Helper()
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.PodTemplateSpec
	if err := out.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestDumpMatchesForHash compares, byte for byte, the dump of random
// templates with upstream's own dump.ForHash of the same template after a
// protobuf round trip, for the version this module's k8s.io/api is (the
// goldens cover the other versions).
func TestDumpMatchesForHash(t *testing.T) {
	v, ok := buildVersion(t)
	if !ok {
		t.Skip("this module's k8s.io/api is no supported version")
	}
	n := 300
	if testing.Short() {
		n = 30
	}
	for seed := int64(0); seed < int64(n); seed++ {
		var tmpl corev1.PodTemplateSpec
		filler(seed).Fill(&tmpl)
		before := tmpl.DeepCopy()
		// Upstream's dump of a copy: Marshal caches quantity strings in
		// the template it encodes.
		want := dump.ForHash(*protobufRoundTrip(t, tmpl.DeepCopy()))
		got, err := v.dump(reflect.ValueOf(tmpl))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if string(got) != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			lo := max(0, i-200)
			t.Fatalf("seed %d: dump differs from dump.ForHash at byte %d:\ngot  …%s\nwant …%s",
				seed, i, got[lo:min(len(got), i+100)], want[lo:min(len(want), i+100)])
		}
		if !reflect.DeepEqual(before, &tmpl) {
			t.Fatalf("seed %d: dump changed the template", seed)
		}
	}
}

// TestUnknownFieldDoesNotCount builds, at run time, a PodTemplateSpec whose
// PodSpec has a field that no supported version has, as a newer k8s.io/api
// would: it does not change any version's dump, set or not.
func TestUnknownFieldDoesNotCount(t *testing.T) {
	specType := reflect.TypeFor[corev1.PodSpec]()
	var fields []reflect.StructField
	for i := 0; i < specType.NumField(); i++ {
		fields = append(fields, specType.Field(i))
	}
	// In the middle, as new fields sometimes are.
	extra := reflect.StructField{Name: "FutureGate", Type: reflect.TypeFor[*string](), Tag: `json:"futureGate,omitempty"`}
	fields = append(fields[:5], append([]reflect.StructField{extra}, fields[5:]...)...)
	futureSpec := reflect.StructOf(fields)
	futureTemplate := reflect.StructOf([]reflect.StructField{
		{Name: "ObjectMeta", Type: reflect.TypeFor[metav1.ObjectMeta](), Anonymous: true, Tag: `json:"metadata,omitempty"`},
		{Name: "Spec", Type: futureSpec, Tag: `json:"spec,omitempty"`},
	})

	var tmpl corev1.PodTemplateSpec
	filler(7).Fill(&tmpl)
	future := reflect.New(futureTemplate).Elem()
	future.Field(0).Set(reflect.ValueOf(tmpl.ObjectMeta))
	spec := reflect.ValueOf(tmpl.Spec)
	for i := 0; i < specType.NumField(); i++ {
		future.Field(1).FieldByName(specType.Field(i).Name).Set(spec.Field(i))
	}
	for _, v := range Versions() {
		want, err := v.dump(reflect.ValueOf(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range []bool{false, true} {
			if set {
				s := "on"
				future.Field(1).FieldByName("FutureGate").Set(reflect.ValueOf(&s))
			}
			got, err := v.dump(future)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: a field unknown to the version (set: %v) changed the dump", v, set)
			}
			if strings.Contains(string(got), "FutureGate") {
				t.Errorf("%s: the dump shows a field unknown to the version", v)
			}
		}
	}
}

// TestMissingFieldPrintsZero removes fields from a build's structs, as an
// older or newer k8s.io/api without them would: every version prints them
// as their zero value (a pointer, and a timestamp whose time.Time is
// opaque).
func TestMissingFieldPrintsZero(t *testing.T) {
	without := func(typ reflect.Type, name string) reflect.Type {
		var fields []reflect.StructField
		for i := 0; i < typ.NumField(); i++ {
			if f := typ.Field(i); f.Name != name {
				f.Anonymous = false
				fields = append(fields, f)
			}
		}
		return reflect.StructOf(fields)
	}
	olderMeta := without(reflect.TypeFor[metav1.ObjectMeta](), "CreationTimestamp")
	olderSpec := without(reflect.TypeFor[corev1.PodSpec](), "HostUsers")
	olderTemplate := reflect.StructOf([]reflect.StructField{
		{Name: "ObjectMeta", Type: olderMeta},
		{Name: "Spec", Type: olderSpec},
	})
	copyFields := func(dst, src reflect.Value) {
		for i := 0; i < dst.NumField(); i++ {
			dst.Field(i).Set(src.FieldByName(dst.Type().Field(i).Name))
		}
	}
	var tmpl corev1.PodTemplateSpec
	filler(11).Fill(&tmpl)
	tmpl.Spec.HostUsers = nil
	tmpl.CreationTimestamp = metav1.Time{}
	older := reflect.New(olderTemplate).Elem()
	copyFields(older.Field(0), reflect.ValueOf(tmpl.ObjectMeta))
	copyFields(older.Field(1), reflect.ValueOf(tmpl.Spec))
	for _, v := range Versions() {
		want, err := v.dump(reflect.ValueOf(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.dump(older)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: a build without HostUsers and CreationTimestamp dumps differently", v)
		}
		for _, zero := range []string{
			"HostUsers:(*bool)<nil>",
			"CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}",
		} {
			if !strings.Contains(string(got), zero) {
				t.Errorf("%s: the dump does not show %s", v, zero)
			}
		}
	}
}

// Types for TestPrinterMatchesSpew: shapes that no Kubernetes layout has
// today (pointers in lists and maps, arrays, floats), which the printer
// must still print as go-spew does.
type spewItem struct {
	N *int64
	S string
}

// spewList is opaque in spewLayout: printed by the go-spew path.
type spewList struct {
	P []*spewItem
	M map[string]*spewItem
	I any
	J any
}

type spewProbe struct {
	Opaque spewList
	Items  []*spewItem
	After  string
	ByName map[string]*spewItem
	Tail   int32
	Arr    [2]int8
	F      float64
	G      float32
	U      uint16
	B      bool
	Bytes  []byte
	Last   *spewItem
}

const spewLayout = `root github.com/daemonplan/daemonplan/kube/upstream.spewProbe
type github.com/daemonplan/daemonplan/kube/upstream.spewProbe struct upstream.spewProbe
	Opaque github.com/daemonplan/daemonplan/kube/upstream.spewList -
	Items []*github.com/daemonplan/daemonplan/kube/upstream.spewItem -
	After string -
	ByName map[string]*github.com/daemonplan/daemonplan/kube/upstream.spewItem -
	Tail int32 -
	Arr [2]int8 -
	F float64 -
	G float32 -
	U uint16 -
	B bool -
	Bytes []uint8 -
	Last *github.com/daemonplan/daemonplan/kube/upstream.spewItem -
type github.com/daemonplan/daemonplan/kube/upstream.spewList opaque upstream.spewList {P:([]*upstream.spewItem)<nil> M:(map[string]*upstream.spewItem)<nil> I:(interface {})<nil> J:(interface {})<nil>}
type github.com/daemonplan/daemonplan/kube/upstream.spewItem struct upstream.spewItem
	N *int64 -
	S string -
type []*github.com/daemonplan/daemonplan/kube/upstream.spewItem slice []*upstream.spewItem *github.com/daemonplan/daemonplan/kube/upstream.spewItem
type *github.com/daemonplan/daemonplan/kube/upstream.spewItem ptr *upstream.spewItem github.com/daemonplan/daemonplan/kube/upstream.spewItem
type map[string]*github.com/daemonplan/daemonplan/kube/upstream.spewItem map map[string]*upstream.spewItem string *github.com/daemonplan/daemonplan/kube/upstream.spewItem
type [2]int8 array [2]int8 2 int8
type []uint8 slice []uint8 uint8
type *int64 ptr *int64 int64
type int64 int64 int64
type int32 int32 int32
type int8 int8 int8
type uint8 uint8 uint8
type uint16 uint16 uint16
type float64 float64 float64
type float32 float32 float32
type bool bool bool
type string string string
`

// TestPrinterMatchesSpew compares the printer with go-spew (upstream's
// dump.ForHash) on values of spewProbe: a nil pointer that ends a list
// leaves the next field's type unprinted, non-nil pointers in lists print
// as "<*>", and so on.
func TestPrinterMatchesSpew(t *testing.T) {
	l, err := parseLayout(spewLayout)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(-7)
	tests := []struct {
		name  string
		probe spewProbe
	}{
		{"zero", spewProbe{}},
		{"nil last in list", spewProbe{Items: []*spewItem{{N: &n, S: "a"}, nil}, After: "x", Tail: 3}},
		{"non-nil in list", spewProbe{Items: []*spewItem{{S: "a"}, {N: &n}}, After: "x"}},
		{"nil last in map", spewProbe{ByName: map[string]*spewItem{"b": nil, "a": {S: "s"}}, Tail: 1}},
		{"non-nil in map", spewProbe{ByName: map[string]*spewItem{"b": {N: &n}, "a": {S: "s"}}, Tail: 1}},
		{"opaque lists", spewProbe{Opaque: spewList{P: []*spewItem{{N: &n}, nil}, M: map[string]*spewItem{"a": nil, "b": {S: "b"}}, I: &n, J: spewItem{S: "j"}}, Tail: 1}},
		{"opaque nil last", spewProbe{Opaque: spewList{P: []*spewItem{nil, {S: "x"}, nil}}, Items: []*spewItem{nil}}},
		{"scalars", spewProbe{Arr: [2]int8{-1, 2}, F: 0.1, G: 1.5e-7, U: 65535, B: true, Bytes: []byte{0, 255}, Last: &spewItem{S: "z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p printer
			if err := p.typed(l.root, reflect.ValueOf(tt.probe)); err != nil {
				t.Fatal(err)
			}
			if want := dump.ForHash(tt.probe); string(p.out) != want {
				t.Errorf("printer:\n%s\ngo-spew:\n%s", p.out, want)
			}
		})
	}
}

// TestOpaqueMatchesSpew: values of opaque types (a timestamp with its time
// zone, a quantity held as an inf.Dec) print as go-spew prints them.
func TestOpaqueMatchesSpew(t *testing.T) {
	zone := time.FixedZone("X", 3600)
	for _, when := range []time.Time{time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, zone), time.Unix(1e9, 0).In(zone)} {
		tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(when)}}
		// Too large for an int64: held as an inf.Dec, also once stored.
		tmpl.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("123456789012345678901234567890")}
		got, err := Latest.dump(reflect.ValueOf(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		if want := dump.ForHash(tmpl); string(got) != want {
			t.Errorf("%v: printer:\n%s\ngo-spew:\n%s", when, got, want)
		}
		if !strings.Contains(string(got), "Dec:(*inf.Dec){unscaled:(big.Int){neg:(bool)false abs:(big.nat)[") || (when.Location() != time.UTC && !strings.Contains(string(got), "time.Location){name:(string)X")) {
			t.Errorf("%v: the dump does not show what the test means to check:\n%s", when, got)
		}
	}
}

// TestKindMismatch: a build whose field has another kind than the layout
// is an error, not a guess.
func TestKindMismatch(t *testing.T) {
	wrong := reflect.StructOf([]reflect.StructField{
		{Name: "ObjectMeta", Type: reflect.TypeFor[metav1.ObjectMeta](), Anonymous: true},
		{Name: "Spec", Type: reflect.TypeFor[string]()},
	})
	if _, err := Latest.dump(reflect.New(wrong).Elem()); err == nil {
		t.Error("a string Spec dumped without error")
	}
}
