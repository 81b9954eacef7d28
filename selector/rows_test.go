package selector

import "github.com/daemonplan/daemonplan/field"

// errRow is the structural part of a field error that tests compare.
type errRow struct {
	Type     field.ErrorType
	Field    string
	BadValue any
}

func rows(errs field.ErrorList) []errRow {
	var out []errRow
	for _, e := range errs {
		out = append(out, errRow{e.Type, e.Field, e.BadValue})
	}
	return out
}
