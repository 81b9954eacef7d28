package sim

import (
	"maps"
	"slices"
	"time"

	"github.com/daemonplan/daemonplan"
)

// FromInput returns a cluster in the state of a sync input: its DaemonSet
// (copied), nodes, pods, revisions, clock and backoff, as a real cluster
// would be found. Pods already there that are Pending become Ready
// ReadyAfter after their creation, like the pods the cluster creates;
// pods that are Running but not Ready stay so. The cluster knows no
// template by image, so Template and Rollback to a revision it did not
// create are not available.
func FromInput(in daemonplan.Input) *Cluster {
	c := &Cluster{
		Nodes:      slices.Clone(in.Nodes),
		Pods:       slices.Clone(in.Pods),
		Revisions:  slices.Clone(in.Revisions),
		Now:        in.Now,
		Backoff:    maps.Clone(in.Backoff),
		ReadyAfter: 10 * time.Second,
		fates:      map[string]Fate{},
		templates:  map[string]Template{},
	}
	if in.DaemonSet != nil {
		c.DaemonSet = *in.DaemonSet.DeepCopy()
	}
	// The pods it creates are named as sim names them; never as a pod
	// that was there, even once that one is gone.
	c.loaded = map[string]bool{}
	for _, p := range in.Pods {
		c.loaded[p.Name] = true
	}
	return c
}

// Input returns the cluster's state as the input of its next sync.
func (c *Cluster) Input() daemonplan.Input {
	return daemonplan.Input{
		DaemonSet: &c.DaemonSet,
		Nodes:     c.Nodes,
		Pods:      c.Pods,
		Revisions: c.Revisions,
		Now:       c.Now,
		Backoff:   c.Backoff,
	}
}
