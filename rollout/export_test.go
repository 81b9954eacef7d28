package rollout

import (
	"time"

	"github.com/daemonplan/daemonplan/placement"
)

// FormerRollingUpdate is the rolling update as it was before its decision
// table moved into engine.go, kept as a differential oracle.
func FormerRollingUpdate(cl *placement.Index, now time.Time, hash string, p Progressive) (Step, Progress, error) {
	if p.IsZero() {
		step, err := formerRollingUpdate(cl, now, hash)
		return step, Progress{}, err
	}
	return formerProgressive(p, cl, now, hash)
}
