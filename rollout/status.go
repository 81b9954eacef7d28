package rollout

import (
	"fmt"

	"github.com/daemonplan/daemonplan/api"
)

// StatusText is what `kubectl rollout status` reports for a DaemonSet.
type StatusText struct {
	// Message is kubectl's text, ending in a newline; for a strategy other
	// than RollingUpdate it is the error kubectl prints (no newline).
	Message string
	// Done reports that kubectl would stop waiting.
	Done bool
	// Unsupported reports a strategy other than RollingUpdate.
	Unsupported bool
}

// StatusMessage renders kubectl's rollout status for ds with status s and
// generation (docs/status.md, S11). ds must not be nil: StatusMessage
// panics on a nil DaemonSet.
func StatusMessage(ds *api.DaemonSet, s api.Status) StatusText {
	if ds == nil {
		panic("rollout.StatusMessage: nil DaemonSet")
	}
	if ds.UpdateStrategy.Type != api.RollingUpdate {
		return StatusText{Message: "rollout status is only available for RollingUpdate strategy type", Done: true, Unsupported: true}
	}
	if ds.Generation > s.ObservedGeneration {
		return StatusText{Message: "Waiting for daemon set spec update to be observed...\n"}
	}
	switch {
	case s.UpdatedNumberScheduled < s.DesiredNumberScheduled:
		return StatusText{Message: fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d out of %d new pods have been updated...\n",
			ds.Name, s.UpdatedNumberScheduled, s.DesiredNumberScheduled)}
	case s.NumberAvailable < s.DesiredNumberScheduled:
		return StatusText{Message: fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d of %d updated pods are available...\n",
			ds.Name, s.NumberAvailable, s.DesiredNumberScheduled)}
	}
	return StatusText{Message: fmt.Sprintf("daemon set %q successfully rolled out\n", ds.Name), Done: true}
}
