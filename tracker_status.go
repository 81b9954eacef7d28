package daemonplan

import (
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/internal/base/syncrule"
)

// SetStatus replaces the DaemonSet's status alone: the write of a plan's
// Status once applied. Unlike SetDaemonSet it decides nothing again,
// unless the collision count changes: that changes the revisions' names
// and the hash, and costs what SetDaemonSet costs.
func (p *Tracker) SetStatus(st api.Status) {
	if !syncrule.EqualCount(st.CollisionCount, p.ds.Status.CollisionCount) {
		ds := p.ds.DeepCopy()
		ds.Status = st.DeepCopy()
		p.SetDaemonSet(ds)
		return
	}
	p.ds.Status = st.DeepCopy()
	p.dds.Status = st.DeepCopy()
}
