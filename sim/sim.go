// Package sim is a small, deterministic in-memory cluster that applies
// daemonplan plans: pods are created and bound at once, become Ready after a
// delay (or fail, or hang), and the clock only moves when the caller says.
// Tests, demos and users drive rollouts with it.
//
// A [Cluster] owns its slices; read them between steps, change them only
// through its methods or between steps with care (node edits are fine).
package sim

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/daemonplan/daemonplan"
	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/placement"
	"github.com/daemonplan/daemonplan/revision"
)

// Fate is what happens to a new pod.
type Fate uint8

// The fates of a pod.
const (
	// BecomeReady: Running and Ready ReadyAfter after creation.
	BecomeReady Fate = iota + 1
	// Hang: stays Pending, never Ready.
	Hang
	// Fail: phase Failed ReadyAfter after creation.
	Fail
)

// Template is a pod template as the simulator versions it: what decisions
// read, plus an image that only changes the revision's content.
type Template struct {
	api.PodTemplate
	Image string
}

// Cluster is the simulated cluster. Make one with [New] or [Load]: a nil
// *Cluster is not a cluster, and its methods panic.
type Cluster struct {
	DaemonSet api.DaemonSet
	Nodes     []api.Node
	Pods      []api.Pod
	Revisions []revision.Revision
	Now       time.Time
	Backoff   placement.Backoff
	// ReadyAfter is how long a new pod takes to become Ready (or fail).
	ReadyAfter time.Duration
	// FateOf decides each new pod's fate; nil means BecomeReady.
	FateOf func(node string, pod *api.Pod) Fate
	// Options are passed to every daemonplan.Sync.
	Options daemonplan.Options

	fates     map[string]Fate
	templates map[string]Template
	seq       int
	loaded    map[string]bool // names of the pods Load found: never generated again
}

// New returns a cluster running ds (whose [Template] and image are given by
// t) on nodes, at time start. ds is copied shallowly: its maps and
// pointers, but Annotations, stay shared with the caller's. Its generation
// and template generation start at 1 unless set.
func New(ds api.DaemonSet, t Template, nodes []api.Node, start time.Time) *Cluster {
	c := &Cluster{
		DaemonSet:  ds,
		Nodes:      slices.Clone(nodes),
		Now:        start,
		ReadyAfter: 10 * time.Second,
		fates:      map[string]Fate{},
		templates:  map[string]Template{},
	}
	c.DaemonSet.Annotations = maps.Clone(ds.Annotations)
	if c.DaemonSet.Annotations == nil {
		c.DaemonSet.Annotations = map[string]string{}
	}
	if c.DaemonSet.Generation == 0 {
		c.DaemonSet.Generation = 1
	}
	if _, ok := c.DaemonSet.Annotations[api.AnnotationTemplateGeneration]; !ok {
		c.DaemonSet.Annotations[api.AnnotationTemplateGeneration] = "1"
	}
	c.setTemplate(t)
	return c
}

func (c *Cluster) setTemplate(t Template) {
	c.DaemonSet.Template = t.PodTemplate
	c.DaemonSet.TemplateData = nil
	base := revision.TemplateData(&c.DaemonSet)
	data, _ := json.Marshal(struct {
		Image    string          `json:"image"`
		Template json.RawMessage `json:"template"`
	}{t.Image, base})
	c.DaemonSet.TemplateData = data
	c.templates[string(data)] = t
}

// Template returns the DaemonSet's current template.
func (c *Cluster) Template() Template { return c.templates[string(c.DaemonSet.TemplateData)] }

// Update changes the DaemonSet's template as `kubectl apply` would: the
// generation and template generation go up by one, and changeCause (when
// not empty) is recorded as kubernetes.io/change-cause.
func (c *Cluster) Update(t Template, changeCause string) {
	c.bumpGeneration()
	if changeCause != "" {
		c.DaemonSet.Annotations[api.AnnotationChangeCause] = changeCause
	}
	c.setTemplate(t)
}

func (c *Cluster) bumpGeneration() {
	c.DaemonSet.Annotations = maps.Clone(c.DaemonSet.Annotations)
	c.DaemonSet.Generation++
	g := api.TemplateGeneration(&c.DaemonSet)
	next := int64(1)
	if g != nil {
		next = *g + 1
	}
	c.DaemonSet.Annotations[api.AnnotationTemplateGeneration] = strconv.FormatInt(next, 10)
}

// SetStrategy replaces the update strategy (a spec change: the generation
// goes up, the template generation does not).
func (c *Cluster) SetStrategy(s api.UpdateStrategy) {
	c.DaemonSet.UpdateStrategy = s
	c.DaemonSet.Generation++
}

// Rollback does what `kubectl rollout undo --to-revision=N` does: when the
// outcome is RolledBack, the DaemonSet's template becomes that revision's,
// unless the cluster never set that template (one loaded from a snapshot):
// the error is then non-nil and nothing changes.
func (c *Cluster) Rollback(toRevision int64) (revision.RollbackResult, error) {
	res, err := revision.Rollback(&c.DaemonSet, c.Revisions, toRevision)
	if err != nil || res.Outcome != revision.RolledBack {
		return res, err
	}
	t, ok := c.templates[string(res.Template)]
	if !ok {
		return res, errUnknownTemplate
	}
	c.bumpGeneration()
	c.setTemplate(t)
	return res, nil
}

var errUnknownTemplate = errors.New("sim: revision holds a template this cluster never set")

// Sync plans one sync at the current time and applies the plan.
func (c *Cluster) Sync() (daemonplan.Plan, error) {
	plan, err := daemonplan.Sync(c.Input(), c.Options)
	if err != nil {
		return plan, err
	}
	c.Apply(plan)
	return plan, nil
}

// Apply carries out every write of a plan at once: no observer sees the
// cluster between two writes of one Apply, so the order of application
// the package documentation gives is not observable here.
func (c *Cluster) Apply(p daemonplan.Plan) {
	owner := &api.OwnerRef{Kind: "DaemonSet", Name: c.DaemonSet.Name, UID: c.DaemonSet.UID}
	// Revisions.
	byName := func(name string) int {
		return slices.IndexFunc(c.Revisions, func(r revision.Revision) bool {
			return r.Namespace == c.DaemonSet.Namespace && r.Name == name
		})
	}
	for _, n := range p.Revisions.Adopt {
		if i := byName(n); i >= 0 {
			c.Revisions[i].Controller = owner
		}
	}
	for _, n := range p.Revisions.Release {
		if i := byName(n); i >= 0 {
			c.Revisions[i].Controller = nil
		}
	}
	for _, r := range p.Revisions.Update {
		if i := byName(r.Name); i >= 0 {
			c.Revisions[i] = r
		}
	}
	c.Revisions = append(c.Revisions, p.Revisions.Create...)
	if p.Status.CollisionCount != nil {
		cc := *p.Status.CollisionCount
		c.DaemonSet.Status.CollisionCount = &cc
	}
	// Pods.
	podIndex := make(map[string]int, len(c.Pods))
	for i := range c.Pods {
		if c.Pods[i].Namespace == c.DaemonSet.Namespace {
			podIndex[c.Pods[i].Name] = i
		}
	}
	for _, r := range p.Relabel {
		if i, ok := podIndex[r.Pod]; ok {
			c.Pods[i].Labels = maps.Clone(c.Pods[i].Labels)
			c.Pods[i].Labels[api.LabelRevisionHash] = r.Hash
		}
	}
	for _, n := range p.Adopt {
		if i, ok := podIndex[n]; ok {
			c.Pods[i].Controller = owner
		}
	}
	for _, n := range p.Release {
		if i, ok := podIndex[n]; ok {
			c.Pods[i].Controller = nil
		}
	}
	gone := map[string]bool{}
	for _, d := range p.Delete {
		gone[d.Pod] = true
	}
	for _, n := range slices.Concat(p.Revisions.DeleteDuplicates, p.Revisions.Delete) {
		if i := byName(n); i >= 0 {
			c.Revisions = slices.Delete(c.Revisions, i, i+1)
		}
	}
	c.Pods = slices.DeleteFunc(c.Pods, func(pod api.Pod) bool {
		return pod.Namespace == c.DaemonSet.Namespace && gone[pod.Name]
	})
	for _, cr := range p.Create {
		// A loaded cluster may already hold a pod of the generated name.
		var name string
		for {
			c.seq++
			name = c.DaemonSet.Name + "-" + suffix(c.seq)
			if _, taken := podIndex[name]; !taken && !c.loaded[name] {
				break
			}
		}
		pod := api.Pod{
			Namespace:            c.DaemonSet.Namespace,
			Name:                 name,
			UID:                  c.DaemonSet.Name + "-pod-" + strconv.Itoa(c.seq),
			Labels:               maps.Clone(cr.Labels),
			Controller:           owner,
			NodeName:             cr.Node,
			RequiredNodeAffinity: cr.NodeAffinity,
			Phase:                api.PodPending,
			Created:              c.Now,
		}
		fate := BecomeReady
		if c.FateOf != nil {
			fate = c.FateOf(cr.Node, &pod)
		}
		if c.fates == nil {
			c.fates = map[string]Fate{}
		}
		c.fates[pod.Name] = fate
		c.Pods = append(c.Pods, pod)
	}
	if p.StatusChanged {
		c.DaemonSet.Status = p.Status
	}
	c.Backoff = p.Backoff
}

// Advance moves the clock by d; pods whose time has come become Ready or
// fail.
func (c *Cluster) Advance(d time.Duration) {
	c.Now = c.Now.Add(d)
	for i := range c.Pods {
		pod := &c.Pods[i]
		if pod.Phase != api.PodPending || pod.Created.Add(c.ReadyAfter).After(c.Now) {
			continue
		}
		switch c.fates[pod.Name] {
		case Hang:
		case Fail:
			pod.Phase = api.PodFailed
		default:
			pod.Phase = api.PodRunning
			pod.Ready = true
			pod.ReadySince = pod.Created.Add(c.ReadyAfter)
		}
	}
}

// suffix renders n as a five-letter pod-name suffix in the alphabet the API
// server uses for generated names, so names look real and never repeat.
func suffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := []byte("bbbbb")
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		b[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(b)
}
