package api_test

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/plantest"
	"github.com/daemonplan/daemonplan/resource"
)

// sharedMemory returns the path of the first map, slice or pointer that a
// and b share, or "" when they share none. a and b must have the same type.
//
// A resource.Quantity is an immutable value whose internals may be shared
// safely; it is not looked into.
func sharedMemory(a, b reflect.Value, path string) string {
	if a.Type() == reflect.TypeFor[resource.Quantity]() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedMemory(a.Elem(), b.Elem(), "(*"+path+")")
	case reflect.Map:
		if a.IsNil() || b.IsNil() || a.Len() == 0 {
			return ""
		}
		if a.UnsafePointer() == b.UnsafePointer() {
			return path
		}
	case reflect.Slice:
		if a.IsNil() || b.IsNil() || a.Cap() == 0 {
			return ""
		}
		if unsafe.Pointer(a.Pointer()) == unsafe.Pointer(b.Pointer()) {
			return path
		}
		for i := 0; i < a.Len(); i++ {
			if p := sharedMemory(a.Index(i), b.Index(i), path+"[i]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if p := sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestDeepCopy checks, on generated objects, that DeepCopy returns an equal
// value (nil and empty kept apart) that shares no map, slice or pointer with
// its receiver.
func TestDeepCopy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := plantest.Options{Rollout: true, Failed: true, Terminating: true, Orphans: true}
		ds := plantest.DaemonSet(opts).Draw(t, "ds")
		ds.Status.CollisionCount = rapid.Ptr(rapid.Int32(), true).Draw(t, "collisionCount")
		ds.TemplateData = rapid.SliceOf(rapid.Byte()).Draw(t, "templateData")
		plantest.Workload(t, &ds.Template)
		check(t, "DaemonSet", ds, ds.DeepCopy())
		n := plantest.Node(opts, 0).Draw(t, "node")
		check(t, "Node", n, n.DeepCopy())
		p := plantest.Pod(opts, ds, 0, []string{"node-0"}, []string{"h"}).Draw(t, "pod")
		check(t, "Pod", p, p.DeepCopy())
	})
	var nilDS *api.DaemonSet
	if nilDS.DeepCopy() != nil {
		t.Error("(*DaemonSet)(nil).DeepCopy() is not nil")
	}
}

func check[T any](t *rapid.T, kind string, in, out T) {
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("%s.DeepCopy() mismatch (-in +copy):\n%s", kind, diff)
	}
	if p := sharedMemory(reflect.ValueOf(in), reflect.ValueOf(out), kind); p != "" {
		t.Fatalf("%s.DeepCopy() shares %s with its receiver", kind, p)
	}
}
