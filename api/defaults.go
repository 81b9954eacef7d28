package api

import (
	"maps"
)

// DefaultRevisionHistoryLimit is the API default of spec.revisionHistoryLimit.
const DefaultRevisionHistoryLimit = 10

// Default returns a copy of ds with the API server's defaults applied
// (upstream: SetDefaults_DaemonSet; docs/validation.md, V1): an empty
// strategy type becomes [RollingUpdate]; for RollingUpdate a
// missing rollingUpdate block is created, maxUnavailable defaults to 1 and
// maxSurge to 0; a nil revisionHistoryLimit becomes 10. ds is not changed;
// the copy shares no defaulted pointer with it. ds must not be nil: Default
// panics on a nil [DaemonSet].
func Default(ds *DaemonSet) DaemonSet {
	if ds == nil {
		panic("api.Default: nil DaemonSet")
	}
	out := *ds
	out.Annotations = maps.Clone(ds.Annotations)
	if out.UpdateStrategy.Type == "" {
		out.UpdateStrategy.Type = RollingUpdate
	}
	if out.UpdateStrategy.Type == RollingUpdate {
		ru := RollingUpdateParams{}
		if ds.UpdateStrategy.RollingUpdate != nil {
			ru = *ds.UpdateStrategy.RollingUpdate
		}
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = Int(1)
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = Int(0)
		}
		out.UpdateStrategy.RollingUpdate = &ru
	}
	if out.RevisionHistoryLimit == nil {
		n := int32(DefaultRevisionHistoryLimit)
		out.RevisionHistoryLimit = &n
	}
	return out
}
