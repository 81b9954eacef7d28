package field_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/field"
)

// Paths are built step by step; errors render as Kubernetes renders them.
func ExampleNewPath() {
	p := field.NewPath("spec", "updateStrategy", "rollingUpdate").Child("maxSurge")
	fmt.Println(field.Invalid(p, "abc%", "must be an int or a percentage"))
	fmt.Println(field.Required(field.NewPath("spec").Child("selector"), ""))
	fmt.Println(field.NewPath("spec", "template", "spec", "tolerations").Index(2).Child("key"))
	// Output:
	// spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "abc%": must be an int or a percentage
	// spec.selector: Required value
	// spec.template.spec.tolerations[2].key
}

// An ErrorList is an error; ToError returns nil for an empty list, so that
// a function can return it as its error without the nil-interface trap.
func ExampleErrorList_ToError() {
	var errs field.ErrorList
	fmt.Println(errs.ToError() == nil)
	errs = append(errs, field.NotSupported(field.NewPath("spec", "updateStrategy", "type"), "Canary", "OnDelete", "RollingUpdate"))
	fmt.Println(errs.ToError())
	// Output:
	// true
	// spec.updateStrategy.type: Unsupported value: "Canary": supported values: "OnDelete", "RollingUpdate"
}

// InvalidEach turns a validator's list of problems into one error each.
func ExampleInvalidEach() {
	p := field.NewPath("metadata", "labels")
	problems := []string{"name part must be non-empty", "prefix part must be non-empty"}
	for _, e := range field.InvalidEach(p, "/", problems) {
		fmt.Println(e)
	}
	fmt.Println(field.InvalidEach(p, "app", nil) == nil)
	// Output:
	// metadata.labels: Invalid value: "/": name part must be non-empty
	// metadata.labels: Invalid value: "/": prefix part must be non-empty
	// true
}
