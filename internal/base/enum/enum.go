// Package enum renders the module's enumerations, small integer types with
// a table of names, the one way they all print.
package enum

import "strconv"

// Name returns names[v], or, for a value with no name (out of the table,
// negative, or an empty entry), typ(v) as in "Reason(12)": a value never
// prints as another's name, and never panics.
func Name(names []string, v int, typ string) string {
	if v >= 0 && v < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}
