package placement

import "github.com/daemonplan/daemonplan/api"

// AllowsSurge reports whether ds updates by surging: maxSurge scaled against
// one node is positive (a negative one, which validation rejects, is not
// surge). It decides how duplicates on a node are resolved. A nil DaemonSet
// does not surge. (The rolling update itself branches on another test:
// [github.com/daemonplan/daemonplan/rollout.Budgets.Surge].)
func AllowsSurge(ds *api.DaemonSet) bool {
	if ds == nil || ds.UpdateStrategy.Type != api.RollingUpdate || ds.UpdateStrategy.RollingUpdate == nil {
		return false
	}
	n, err := ds.UpdateStrategy.RollingUpdate.MaxSurge.Scaled(1, true)
	return err == nil && n > 0
}
