package selector

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// keyErrors reports each problem of a label key as Invalid at p, as the
// requirement constructors of upstream's labels package do.
func keyErrors(p *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range api.ValidateLabelKey(key) {
		errs = append(errs, field.Invalid(p, key, msg))
	}
	return errs
}

// valueErrors reports each problem of each label value as Invalid at p[j].
func valueErrors(p *field.Path, values []string) field.ErrorList {
	var errs field.ErrorList
	for j, v := range values {
		for _, msg := range api.ValidateLabelValue(v) {
			errs = append(errs, field.Invalid(p.Index(j), v, msg))
		}
	}
	return errs
}
