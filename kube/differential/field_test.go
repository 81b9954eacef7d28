package differential

import (
	"testing"

	kfield "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/field"
)

// TestFieldErrorsRenderAsApimachinery: every constructor of package field
// renders the same message as apimachinery's for the same path, value and
// detail, over the kinds of bad value daemonplan reports (strings, the
// integer types, a nil, a list, a map, a struct) and the details with and
// without text.
func TestFieldErrorsRenderAsApimachinery(t *testing.T) {
	type taint struct {
		Key    string `json:"key"`
		Effect string `json:"effect,omitempty"`
	}
	values := []struct {
		name  string
		value any
	}{
		{"string", "abc%"},
		{"empty string", ""},
		{"int", 3},
		{"int64", int64(-1)},
		{"int32", int32(7)},
		{"bool", true},
		{"nil", nil},
		{"strings", []string{"a", "b"}},
		{"map", map[string]string{"k": "v"}},
		{"struct", taint{Key: "dedicated"}},
	}
	ours := field.NewPath("spec", "template").Child("spec").Index(2).Key("a/b")
	theirs := kfield.NewPath("spec", "template").Child("spec").Index(2).Key("a/b")
	if ours.String() != theirs.String() {
		t.Fatalf("path %q, apimachinery %q", ours, theirs)
	}
	check := func(name string, got, want error) {
		t.Helper()
		if got.Error() != want.Error() {
			t.Errorf("%s:\n got %q\nwant %q", name, got.Error(), want.Error())
		}
	}
	check("Required", field.Required(ours, "must be set"), kfield.Required(theirs, "must be set"))
	check("Required no detail", field.Required(ours, ""), kfield.Required(theirs, ""))
	check("Forbidden", field.Forbidden(ours, "may not be set"), kfield.Forbidden(theirs, "may not be set"))
	for _, v := range values {
		check("Invalid "+v.name, field.Invalid(ours, v.value, "is wrong"), kfield.Invalid(theirs, v.value, "is wrong"))
		check("Invalid no detail "+v.name, field.Invalid(ours, v.value, ""), kfield.Invalid(theirs, v.value, ""))
		check("Duplicate "+v.name, field.Duplicate(ours, v.value), kfield.Duplicate(theirs, v.value))
		check("NotSupported "+v.name, field.NotSupported(ours, v.value, "In", "NotIn"), kfield.NotSupported(theirs, v.value, []string{"In", "NotIn"}))
		check("NotSupported none "+v.name, field.NotSupported(ours, v.value), kfield.NotSupported[string](theirs, v.value, nil))
		for _, max := range []int{1, 63} {
			check("TooLong "+v.name, field.TooLong(ours, v.value, max), kfield.TooLong(theirs, v.value, max))
		}
	}
	list := field.ErrorList{field.Required(ours, "x"), field.Invalid(ours, 1, "y")}
	klist := kfield.ErrorList{kfield.Required(theirs, "x"), kfield.Invalid(theirs, 1, "y")}
	check("ErrorList", list, klist.ToAggregate())
}
