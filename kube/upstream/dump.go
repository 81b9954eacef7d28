package upstream

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityID is the layout ID of resource.Quantity, which the dump prints
// in the form an API server stores (see Version.Hash).
const quantityID = "k8s.io/apimachinery/pkg/api/resource.Quantity"

var quantityType = reflect.TypeFor[resource.Quantity]()

// printer writes what go-spew writes for the "%#v" verb under the settings
// upstream hashes with (types shown, methods not called, map keys sorted,
// no pointer addresses): the dump that ComputeHash feeds to FNV.
//
// Types of a layout (everything declared in k8s.io) are printed from the
// layout: its type names and its fields, in its order, looked up by name in
// the value given. A field the layout lacks is not printed; a field the
// value lacks is printed as its zero value. Opaque types (time.Time,
// inf.Dec) and what they contain are printed from the value itself, as
// go-spew does.
type printer struct {
	out []byte
	// skipType is go-spew's "ignore next type": set before a slice element,
	// a map key or value and a pointer's target, so that their type is not
	// printed, and cleared by the next value that is printed. A nil pointer
	// leaves it set, which go-spew does too.
	skipType bool
	// emptyBytesAbsent: an empty byte string counts as absent, as
	// protobuf carries it from 1.36 on (the only one is a managed field
	// entry's FieldsV1.Raw). Before 1.36 it stays empty.
	emptyBytesAbsent bool
	// depth and seen are go-spew's cycle check, kept for opaque values.
	depth int
	seen  map[uintptr]int
}

// mismatchError reports a value whose kind is not the layout's.
type mismatchError struct {
	id   string
	kind reflect.Kind
}

func (e *mismatchError) Error() string {
	return fmt.Sprintf("type %s: this build holds a %s where the layout has another kind", e.id, e.kind)
}

func (p *printer) str(s string) { p.out = append(p.out, s...) }

// typeName prints "(name)" unless skipType is set, and clears skipType.
func (p *printer) typeName(name string) {
	if !p.skipType {
		p.str("(" + name + ")")
	}
	p.skipType = false
}

// typed prints v as a value of layout type t. An invalid v stands for the
// zero value of t.
func (p *printer) typed(t *layoutType, v reflect.Value) error {
	if v.IsValid() && t.kind != kindOpaque && v.Kind() != t.kind {
		return &mismatchError{id: t.id, kind: v.Kind()}
	}
	if t.kind == reflect.Pointer {
		return p.typedPointer(t, v)
	}
	p.typeName(t.name)
	zero := !v.IsValid()
	switch t.kind {
	case kindOpaque:
		if zero {
			p.str(t.zero)
			return nil
		}
		if v.Type().String() != t.name {
			return fmt.Errorf("type %s: this build holds a %s", t.id, v.Type())
		}
		return p.spewBody(v)
	case reflect.Bool:
		p.str(strconv.FormatBool(!zero && v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var n int64
		if !zero {
			n = v.Int()
		}
		p.str(strconv.FormatInt(n, 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var n uint64
		if !zero {
			n = v.Uint()
		}
		p.str(strconv.FormatUint(n, 10))
	case reflect.Uintptr:
		var n uint64
		if !zero {
			n = v.Uint()
		}
		p.hexPointer(n)
	case reflect.Float32, reflect.Float64:
		var f float64
		if !zero {
			f = v.Float()
		}
		p.float(f, t.kind)
	case reflect.String:
		if !zero {
			p.str(v.String())
		}
	case reflect.Slice:
		// An empty list does not survive protobuf: the controller sees nil.
		if zero || v.IsNil() || (v.Len() == 0 && (t.elem.kind != reflect.Uint8 || p.emptyBytesAbsent)) {
			p.str("<nil>")
			return nil
		}
		return p.typedList(t.elem, v, v.Len())
	case reflect.Array:
		if !zero && v.Len() != t.len {
			return fmt.Errorf("type %s: this build has %d elements", t.id, v.Len())
		}
		return p.typedList(t.elem, v, t.len)
	case reflect.Map:
		// An empty map does not survive protobuf either.
		if zero || v.Len() == 0 {
			p.str("<nil>")
			return nil
		}
		return p.typedMap(t, v)
	case reflect.Struct:
		if !zero && t.id == quantityID {
			v = storedQuantity(v)
		}
		p.str("{")
		p.depth++
		for i, f := range t.fields {
			if i > 0 {
				p.str(" ")
			}
			p.str(f.name + ":")
			if err := p.typed(f.typ, field(v, f.name)); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		p.depth--
		p.str("}")
	default:
		return fmt.Errorf("type %s: kind %s is not supported", t.id, t.kind)
	}
	return nil
}

// typedPointer prints a pointer of layout type t as go-spew does: "<nil>"
// alone when the type is skipped, "(*T)<nil>" otherwise; a non-nil pointer
// as "(*T)" (or "<*>" when the type is skipped) and its target without
// type. Pointers are followed without cycle checks: layout types contain
// no cycles, and shared pointers are printed at every place, as in an
// object decoded from an API server, which shares none.
func (p *printer) typedPointer(t *layoutType, v reflect.Value) error {
	if !v.IsValid() || v.IsNil() {
		if !p.skipType {
			p.str("(" + t.name + ")")
		}
		p.str("<nil>")
		return nil
	}
	if p.skipType {
		p.str("<*>")
	} else {
		p.str("(*" + t.elem.name + ")")
	}
	p.skipType = true
	return p.typed(t.elem, v.Elem())
}

func (p *printer) typedList(elem *layoutType, v reflect.Value, n int) error {
	p.str("[")
	p.depth++
	for i := 0; i < n; i++ {
		if i > 0 {
			p.str(" ")
		}
		var e reflect.Value
		if v.IsValid() {
			e = v.Index(i)
		}
		p.skipType = true
		if err := p.typed(elem, e); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	p.depth--
	p.str("]")
	return nil
}

func (p *printer) typedMap(t *layoutType, v reflect.Value) error {
	keys := v.MapKeys()
	if len(keys) > 0 && keys[0].Kind() != reflect.String {
		return &mismatchError{id: t.key.id, kind: keys[0].Kind()}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	p.str("map[")
	p.depth++
	for i, k := range keys {
		if i > 0 {
			p.str(" ")
		}
		p.skipType = true
		if err := p.typed(t.key, k); err != nil {
			return err
		}
		p.str(":")
		p.skipType = true
		if err := p.typed(t.elem, v.MapIndex(k)); err != nil {
			return fmt.Errorf("[%s]: %w", k.String(), err)
		}
	}
	p.depth--
	p.str("]")
	return nil
}

// field returns v's own field name (not one promoted from an embedded
// struct), or the invalid Value if v is invalid or has none.
func field(v reflect.Value, name string) reflect.Value {
	if !v.IsValid() {
		return reflect.Value{}
	}
	f, ok := v.Type().FieldByName(name)
	if !ok || len(f.Index) != 1 {
		return reflect.Value{}
	}
	return v.Field(f.Index[0])
}

// storedQuantity returns the Quantity in v as a client decodes it from an
// API server: the API server stores a quantity as its canonical string, and
// decoding parses that string again. How a Quantity was built (parsed from
// a non-canonical string, made by NewMilliQuantity, printed once with
// String, which caches the string in it) changes the fields the dump
// shows, but not what the controller sees. v itself is not changed.
func storedQuantity(v reflect.Value) reflect.Value {
	if v.Type() != quantityType || !v.CanInterface() {
		return v
	}
	q := v.Interface().(resource.Quantity)
	stored, err := resource.ParseQuantity(q.String())
	if err != nil {
		return v // unreachable: String's output always parses
	}
	return reflect.ValueOf(stored)
}

func (p *printer) float(f float64, kind reflect.Kind) {
	bits := 64
	if kind == reflect.Float32 {
		bits = 32
	}
	p.str(strconv.FormatFloat(f, 'g', -1, bits))
}

func (p *printer) hexPointer(n uint64) {
	if n == 0 {
		p.str("<nil>")
		return
	}
	p.str("0x" + strconv.FormatUint(n, 16))
}

// spew prints v as go-spew does, from v's own types. It is used for opaque
// types only.
func (p *printer) spew(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Invalid:
		p.str("<invalid>")
		return nil
	case reflect.Pointer:
		return p.spewPointer(v)
	}
	p.typeName(v.Type().String())
	return p.spewBody(v)
}

// unpack is go-spew's treatment of an interface value: its type is printed
// again, and a non-nil one is replaced by what it holds.
func (p *printer) unpack(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Interface {
		p.skipType = false
		if !v.IsNil() {
			v = v.Elem()
		}
	}
	return v
}

// spewBody prints v after its type.
func (p *printer) spewBody(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		p.str(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.str(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.str(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		p.float(v.Float(), v.Kind())
	case reflect.String:
		p.str(v.String())
	case reflect.Interface:
		if v.IsNil() {
			p.str("<nil>")
		}
	case reflect.Uintptr:
		p.hexPointer(v.Uint())
	case reflect.UnsafePointer, reflect.Chan, reflect.Func:
		p.hexPointer(uint64(v.Pointer()))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			p.str("<nil>")
			return nil
		}
		p.str("[")
		p.depth++
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				p.str(" ")
			}
			p.skipType = true
			if err := p.spew(p.unpack(v.Index(i))); err != nil {
				return err
			}
		}
		p.depth--
		p.str("]")
	case reflect.Map:
		if v.IsNil() {
			p.str("<nil>")
			return nil
		}
		keys := v.MapKeys()
		if err := sortKeys(keys); err != nil {
			return err
		}
		p.str("map[")
		p.depth++
		for i, k := range keys {
			if i > 0 {
				p.str(" ")
			}
			p.skipType = true
			if err := p.spew(p.unpack(k)); err != nil {
				return err
			}
			p.str(":")
			p.skipType = true
			if err := p.spew(p.unpack(v.MapIndex(k))); err != nil {
				return err
			}
		}
		p.depth--
		p.str("]")
	case reflect.Struct:
		p.str("{")
		p.depth++
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				p.str(" ")
			}
			p.str(v.Type().Field(i).Name + ":")
			if err := p.spew(p.unpack(v.Field(i))); err != nil {
				return err
			}
		}
		p.depth--
		p.str("}")
	default:
		return fmt.Errorf("%s: kind %s is not supported", v.Type(), v.Kind())
	}
	return nil
}

// spewPointer is go-spew's pointer printing, cycle check included: it
// follows a chain of pointers (and interfaces) to the value and prints the
// chain's type, or "<*>" for each level when the type is skipped.
func (p *printer) spewPointer(v reflect.Value) error {
	if v.IsNil() && p.skipType {
		p.str("<nil>")
		return nil
	}
	if p.seen == nil {
		p.seen = make(map[uintptr]int)
	}
	for addr, d := range p.seen {
		if d >= p.depth {
			delete(p.seen, addr)
		}
	}
	nilFound, cycle := false, false
	levels := 0
	e := v
	for e.Kind() == reflect.Pointer {
		if e.IsNil() {
			nilFound = true
			break
		}
		levels++
		addr := e.Pointer()
		if d, ok := p.seen[addr]; ok && d < p.depth {
			cycle = true
			levels--
			break
		}
		p.seen[addr] = p.depth
		e = e.Elem()
		if e.Kind() == reflect.Interface {
			if e.IsNil() {
				nilFound = true
				break
			}
			e = e.Elem()
		}
	}
	if !p.skipType {
		p.str("(" + strings.Repeat("*", levels) + e.Type().String() + ")")
	} else {
		if nilFound || cycle {
			levels += strings.Count(e.Type().String(), "*")
		}
		p.str("<" + strings.Repeat("*", levels) + ">")
	}
	switch {
	case nilFound:
		p.str("<nil>")
	case cycle:
		p.str("<shown>")
	default:
		p.skipType = true
		return p.spew(e)
	}
	return nil
}

// sortKeys sorts map keys as go-spew does for the kinds it can compare.
func sortKeys(keys []reflect.Value) error {
	if len(keys) == 0 {
		return nil
	}
	var less func(a, b reflect.Value) bool
	switch keys[0].Kind() {
	case reflect.Bool:
		less = func(a, b reflect.Value) bool { return !a.Bool() && b.Bool() }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		less = func(a, b reflect.Value) bool { return a.Int() < b.Int() }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		less = func(a, b reflect.Value) bool { return a.Uint() < b.Uint() }
	case reflect.Float32, reflect.Float64:
		less = func(a, b reflect.Value) bool { return a.Float() < b.Float() }
	case reflect.String:
		less = func(a, b reflect.Value) bool { return a.String() < b.String() }
	default:
		return fmt.Errorf("map keys of kind %s are not supported", keys[0].Kind())
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	return nil
}
