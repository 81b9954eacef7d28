package admission_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/admission"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/resource"
)

var names = []string{"cpu", "memory", "example.com/gpu"}

// genList draws a list over a few names with small quantities, some zero.
func genList(t *rapid.T, label string) resource.List {
	if rapid.IntRange(0, 3).Draw(t, label+".nil") == 0 {
		return nil
	}
	out := resource.List{}
	for _, n := range names {
		if rapid.Bool().Draw(t, label+"."+n) {
			out[n] = resource.NewMilliQuantity(int64(rapid.IntRange(0, 8).Draw(t, label+"."+n+".v"))*250, resource.DecimalSI)
		}
	}
	return out
}

func genObjects(t *rapid.T) admission.ClusterObjects {
	var o admission.ClusterObjects
	for i := range rapid.IntRange(0, 3).Draw(t, "limitRanges") {
		lr := admission.LimitRange{Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"), Name: fmt.Sprintf("lr-%d", i)}
		for j := range rapid.IntRange(0, 2).Draw(t, "items") {
			l := fmt.Sprintf("lr%d.%d", i, j)
			lr.Limits = append(lr.Limits, admission.LimitRangeItem{
				Type:    rapid.SampledFrom([]string{admission.LimitTypeContainer, admission.LimitTypePod}).Draw(t, l+".type"),
				Default: genList(t, l+".default"), DefaultRequest: genList(t, l+".defaultRequest"),
				Max: genList(t, l+".max"), Min: genList(t, l+".min"),
			})
		}
		o.LimitRanges = append(o.LimitRanges, lr)
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "classes") {
		o.PriorityClasses = append(o.PriorityClasses, admission.PriorityClass{
			Name: fmt.Sprintf("pc-%d", i), Value: int32(rapid.IntRange(-5, 5).Draw(t, "value")),
			GlobalDefault:    rapid.Bool().Draw(t, "globalDefault"),
			PreemptionPolicy: rapid.SampledFrom([]string{"", api.PreemptLowerPriority, api.PreemptNever}).Draw(t, "policy"),
		})
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "runtimes") {
		o.RuntimeClasses = append(o.RuntimeClasses, admission.RuntimeClass{Name: fmt.Sprintf("rc-%d", i), Overhead: genList(t, "overhead")})
	}
	return o
}

func genTemplate(t *rapid.T) api.PodTemplate {
	var tpl api.PodTemplate
	for i := range rapid.IntRange(0, 2).Draw(t, "containers") {
		tpl.Containers = append(tpl.Containers, api.Container{Name: fmt.Sprintf("c%d", i), Resources: api.Resources{
			Requests: genList(t, "requests"), Limits: genList(t, "limits"),
		}})
	}
	for i := range rapid.IntRange(0, 1).Draw(t, "initContainers") {
		tpl.InitContainers = append(tpl.InitContainers, api.Container{Name: fmt.Sprintf("i%d", i), Resources: api.Resources{
			Requests: genList(t, "requests"), Limits: genList(t, "limits"),
		}})
	}
	tpl.PriorityClassName = rapid.SampledFrom([]string{"", "", "pc-0", "pc-1", "missing", admission.SystemNodeCritical}).Draw(t, "class")
	tpl.RuntimeClassName = rapid.SampledFrom([]string{"", "", "rc-0", "rc-1"}).Draw(t, "runtime")
	return tpl
}

func compile(t *rapid.T) (*admission.Rules, admission.ClusterObjects) {
	o := genObjects(t)
	r, err := admission.Compile(o)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return r, o
}

// TestAdmitIdempotent: admitting the admitted pod again changes nothing.
func TestAdmitIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, _ := compile(t)
		tpl := genTemplate(t)
		ns := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "namespace")
		first := r.Admit(ns, &tpl)
		second := r.Admit(ns, &first.Template)
		if d := cmp.Diff(first.Template, second.Template, quantityCmp); d != "" {
			t.Fatalf("second Admit changed the template (-first +second):\n%s", d)
		}
		if first.Priority != second.Priority || first.PreemptionPolicy != second.PreemptionPolicy {
			t.Fatalf("priority %d/%s, then %d/%s", first.Priority, first.PreemptionPolicy, second.Priority, second.PreemptionPolicy)
		}
		if len(first.Refused) == 0 && len(second.Refused) != 0 {
			t.Fatalf("admitted, then refused: %v", second.Refused)
		}
	})
}

// TestAdmitKeepsWhatIsSet: a request or limit the template sets is never
// changed by LimitRange defaults, and the input is never changed.
func TestAdmitKeepsWhatIsSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, o := compile(t)
		tpl := genTemplate(t)
		before, objBefore := tpl.DeepCopy(), cloneObjects(o)
		a := r.Admit(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "namespace"), &tpl)
		if d := cmp.Diff(before, tpl, quantityCmp); d != "" {
			t.Fatalf("Admit changed its input (-before +after):\n%s", d)
		}
		if d := cmp.Diff(objBefore, o, quantityCmp); d != "" {
			t.Fatalf("Compile changed its input (-before +after):\n%s", d)
		}
		for _, cs := range [][2][]api.Container{{tpl.Containers, a.Template.Containers}, {tpl.InitContainers, a.Template.InitContainers}} {
			for i, c := range cs[0] {
				got := cs[1][i].Resources
				for name, q := range c.Resources.Requests {
					if g, ok := got.Requests[name]; !ok || g.String() != q.String() {
						t.Fatalf("%s request %s: %s, admitted %s", c.Name, name, q, g)
					}
				}
				for name, q := range c.Resources.Limits {
					if g, ok := got.Limits[name]; !ok || g.String() != q.String() {
						t.Fatalf("%s limit %s: %s, admitted %s", c.Name, name, q, g)
					}
					if _, requested := c.Resources.Requests[name]; !requested && got.Requests[name].String() != q.String() {
						t.Fatalf("%s: limit %s of %s not taken as its request (%s)", c.Name, q, name, got.Requests[name])
					}
				}
			}
		}
	})
}

// TestAdmitWithoutDefaults: with no LimitRange in the namespace and no
// RuntimeClass named, admission leaves the requests as they were.
func TestAdmitWithoutDefaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, _ := compile(t)
		tpl := genTemplate(t)
		tpl.RuntimeClassName = ""
		a := r.Admit("no-limit-ranges", &tpl)
		if got, want := a.Template.Requests().String(), tpl.Requests().String(); got != want {
			t.Fatalf("requests %s, admitted %s", want, got)
		}
	})
}

func cloneObjects(o admission.ClusterObjects) admission.ClusterObjects {
	var out admission.ClusterObjects
	for _, lr := range o.LimitRanges {
		c := lr
		c.Limits = nil
		for _, it := range lr.Limits {
			c.Limits = append(c.Limits, admission.LimitRangeItem{
				Type: it.Type, Max: clone(it.Max), Min: clone(it.Min), Default: clone(it.Default),
				DefaultRequest: clone(it.DefaultRequest), MaxLimitRequestRatio: clone(it.MaxLimitRequestRatio),
			})
		}
		out.LimitRanges = append(out.LimitRanges, c)
	}
	out.PriorityClasses = append(out.PriorityClasses, o.PriorityClasses...)
	for _, rc := range o.RuntimeClasses {
		out.RuntimeClasses = append(out.RuntimeClasses, admission.RuntimeClass{Name: rc.Name, Overhead: clone(rc.Overhead)})
	}
	return out
}

func clone(l resource.List) resource.List {
	if l == nil {
		return nil
	}
	out := resource.List{}
	for k, v := range l {
		out[k] = v
	}
	return out
}

// TestAdmitOrderFree: the order in which the objects are given never
// changes what admission makes of a pod (LimitRanges apply by name; of
// several global defaults the lowest value, then the first name).
func TestAdmitOrderFree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, o := compile(t)
		s := admission.ClusterObjects{
			LimitRanges:     rapid.Permutation(o.LimitRanges).Draw(t, "limitRanges"),
			PriorityClasses: rapid.Permutation(o.PriorityClasses).Draw(t, "priorityClasses"),
			RuntimeClasses:  rapid.Permutation(o.RuntimeClasses).Draw(t, "runtimeClasses"),
		}
		r2, err := admission.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		tpl := genTemplate(t)
		ns := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "namespace")
		if d := cmp.Diff(r.Admit(ns, &tpl), r2.Admit(ns, &tpl), quantityCmp); d != "" {
			t.Fatalf("Admit() depends on the objects' order (-given +shuffled):\n%s", d)
		}
	})
}
