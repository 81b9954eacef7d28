package revision

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
	"github.com/daemonplan/daemonplan/selector"
)

// compileSelector compiles spec.selector (docs/manage.md, M4): nil matches
// nothing, an empty selector matches everything. An invalid selector is the
// field.ErrorList of selector.Compile rooted at "spec.selector", as
// upstream fails constructHistory and kubectl fails rollout commands when
// LabelSelectorAsSelector does.
func compileSelector(ls *api.LabelSelector) (func(map[string]string) bool, error) {
	s, err := selector.Compile(ls)
	if err != nil {
		if list, ok := err.(field.ErrorList); ok {
			return nil, list.Prefix("spec.selector")
		}
		return nil, err
	}
	return s.Matches, nil
}
