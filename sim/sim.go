// Package sim is a small, deterministic in-memory cluster that applies
// daemonplan plans: pods are created and bound at once, become Ready after a
// delay (or fail, or hang), deleted pods go after a grace period, and the
// clock only moves when the caller says. Tests, demos and users drive
// rollouts with it; [Cluster.Track] makes each step cost what it changes.
//
// A [Cluster] owns its slices; read them between steps, change them only
// through its methods or between steps with care (node edits are fine).
package sim

import (
	"container/heap"
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
	// CrashLoop: Running ReadyAfter after creation and never Ready, its
	// container exiting and restarted by the kubelet's back-off
	// ([Cluster.CrashBackoff]); [Cluster.Restarts] counts the restarts.
	CrashLoop
)

// The kubelet's default crash-loop back-off: 10 s before the first restart,
// doubled at each restart up to 5 minutes. Feature gates and kubelet
// configuration of recent Kubernetes versions can shorten both: set
// [Cluster.CrashBackoff] and [Cluster.MaxCrashBackoff] to the nodes' own.
const (
	DefaultCrashBackoff    = 10 * time.Second
	DefaultMaxCrashBackoff = 5 * time.Minute
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
	// CrashBackoff and MaxCrashBackoff are a crash-looping pod's back-off:
	// its container first exits ReadyAfter after the pod's creation and is
	// restarted CrashBackoff later, then after twice that, and so on up to
	// MaxCrashBackoff between restarts, as the kubelet restarts it. Zero
	// means DefaultCrashBackoff and DefaultMaxCrashBackoff.
	CrashBackoff, MaxCrashBackoff time.Duration
	// Options are passed to every daemonplan.Sync.
	Options daemonplan.Options
	// GracePeriod is how long a pod the plan deletes takes to go: until
	// then it is being deleted (api.Pod.Deleting), and the controller
	// creates no replacement on its node. 0 means at once. Pods that
	// failed go at once: nothing runs in them.
	GracePeriod time.Duration

	// gone holds when each pod being deleted goes, by name (in the
	// DaemonSet's namespace); a pod being deleted without an entry never
	// goes.
	gone  map[string]time.Time
	track *tracking

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
// generation and template generation go up by one, as the API server
// numbers them ([api.BumpGenerations]), and changeCause (when not empty) is
// recorded as kubernetes.io/change-cause.
func (c *Cluster) Update(t Template, changeCause string) {
	c.DaemonSet = api.BumpGenerations(&c.DaemonSet, api.TemplateChanged)
	if changeCause != "" {
		c.DaemonSet.Annotations[api.AnnotationChangeCause] = changeCause
	}
	c.setTemplate(t)
	c.daemonSetChanged()
}

// daemonSetChanged tells a tracked cluster's planner of a new spec.
func (c *Cluster) daemonSetChanged() {
	if c.track != nil {
		c.track.tr.SetDaemonSet(&c.DaemonSet)
	}
}

// SetStrategy replaces the update strategy (a spec change: the generation
// goes up, the template generation does not; [api.BumpGenerations]).
func (c *Cluster) SetStrategy(s api.UpdateStrategy) {
	c.DaemonSet.UpdateStrategy = s
	c.DaemonSet = api.BumpGenerations(&c.DaemonSet, api.SpecChanged)
	c.daemonSetChanged()
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
	c.DaemonSet = api.BumpGenerations(&c.DaemonSet, api.TemplateChanged)
	c.setTemplate(t)
	c.daemonSetChanged()
	return res, nil
}

var errUnknownTemplate = errors.New("sim: revision holds a template this cluster never set")

// Sync plans one sync at the current time and applies the plan. A
// tracked cluster ([Cluster.Track]) plans with its daemonplan.Tracker, whose
// plan leaves Plan.Nodes and Plan.Keep nil; otherwise the plan is
// daemonplan.Sync's of Input.
func (c *Cluster) Sync() (daemonplan.Plan, error) {
	plan, err := c.Plan()
	if err != nil {
		return plan, err
	}
	c.Apply(plan)
	return plan, nil
}

// Plan plans one sync at the current time, as Sync does, without applying
// it.
func (c *Cluster) Plan() (daemonplan.Plan, error) {
	if c.track != nil {
		return c.track.tr.Plan()
	}
	return daemonplan.Sync(c.Input(), c.Options)
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
	podIndex := c.podIndex()
	for _, r := range p.Relabel {
		if i, ok := podIndex(r.Pod); ok {
			c.Pods[i].Labels = maps.Clone(c.Pods[i].Labels)
			c.Pods[i].Labels[api.LabelRevisionHash] = r.Hash
			c.setPod(i)
		}
	}
	for _, n := range p.Adopt {
		if i, ok := podIndex(n); ok {
			c.Pods[i].Controller = owner
			c.setPod(i)
		}
	}
	for _, n := range p.Release {
		if i, ok := podIndex(n); ok {
			c.Pods[i].Controller = nil
			c.setPod(i)
		}
	}
	revisionsChanged := len(p.Revisions.Adopt)+len(p.Revisions.Release)+len(p.Revisions.Update)+
		len(p.Revisions.Create)+len(p.Revisions.DeleteDuplicates)+len(p.Revisions.Delete) > 0
	for _, n := range slices.Concat(p.Revisions.DeleteDuplicates, p.Revisions.Delete) {
		if i := byName(n); i >= 0 {
			c.Revisions = slices.Delete(c.Revisions, i, i+1)
		}
	}
	if revisionsChanged && c.track != nil {
		c.track.tr.SetRevisions(c.Revisions)
	}
	// A deleted pod goes at once, or is being deleted for the grace
	// period: its node gets no new pod until it is gone.
	gone := map[string]bool{}
	for _, d := range p.Delete {
		i, ok := podIndex(d.Pod)
		if !ok {
			continue
		}
		pod := &c.Pods[i]
		switch {
		case pod.Deleting:
			// Deleted already: it goes when it was due to.
		case c.GracePeriod > 0 && !api.IsTerminal(pod):
			pod.Deleting = true
			if c.gone == nil {
				c.gone = map[string]time.Time{}
			}
			c.gone[pod.Name] = c.Now.Add(c.GracePeriod)
			c.setPod(i)
			c.schedule(pod)
		default:
			gone[d.Pod] = true
		}
	}
	if len(gone) > 0 {
		c.removePods(func(pod *api.Pod) bool {
			return pod.Namespace == c.DaemonSet.Namespace && gone[pod.Name]
		})
		podIndex = c.podIndex()
	}
	for _, cr := range p.Create {
		// A loaded cluster may already hold a pod of the generated name.
		var name string
		for {
			c.seq++
			name = c.DaemonSet.Name + "-" + suffix(c.seq)
			if _, taken := podIndex(name); !taken && !c.loaded[name] {
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
		c.addPod(pod)
	}
	if p.StatusChanged {
		c.DaemonSet.Status = p.Status
	}
	if t := c.track; t != nil {
		if p.StatusChanged || p.Status.CollisionCount != nil {
			t.tr.SetStatus(c.DaemonSet.Status)
		}
		t.tr.SetBackoff(p.Backoff)
	}
	c.Backoff = p.Backoff
}

// podIndex returns a lookup of the pods of the DaemonSet's namespace by
// name: a tracked cluster's index, or one built now.
func (c *Cluster) podIndex() func(name string) (int, bool) {
	if t := c.track; t != nil {
		ns := c.DaemonSet.Namespace
		return func(name string) (int, bool) {
			i, ok := t.at[podKey{ns, name}]
			return i, ok
		}
	}
	index := make(map[string]int, len(c.Pods))
	for i := range c.Pods {
		if c.Pods[i].Namespace == c.DaemonSet.Namespace {
			index[c.Pods[i].Name] = i
		}
	}
	return func(name string) (int, bool) {
		i, ok := index[name]
		return i, ok
	}
}

// Advance moves the clock by d; pods whose time has come become Ready or
// fail, and deleted pods whose grace period is over go.
func (c *Cluster) Advance(d time.Duration) {
	c.Now = c.Now.Add(d)
	if t := c.track; t != nil {
		t.tr.SetNow(c.Now)
		for len(t.due) > 0 && !t.due[0].at.After(c.Now) {
			e := heap.Pop(&t.due).(event)
			if i, ok := t.at[e.pod]; ok {
				c.due(i)
			}
		}
		return
	}
	for i := range c.Pods {
		c.due(i)
	}
	c.removePods(c.goes)
}

// due makes c.Pods[i] what it is by now: Ready or failed once its time
// has come; a tracked cluster also removes it when it is due to go.
func (c *Cluster) due(i int) {
	pod := &c.Pods[i]
	if c.track != nil && c.goes(pod) {
		c.removeAt(i)
		return
	}
	if pod.Phase != api.PodPending || pod.Created.Add(c.ReadyAfter).After(c.Now) {
		return
	}
	switch c.fates[pod.Name] {
	case Hang:
		return
	case Fail:
		pod.Phase = api.PodFailed
	case CrashLoop:
		pod.Phase = api.PodRunning
	default:
		pod.Phase = api.PodRunning
		pod.Ready = true
		pod.ReadySince = pod.Created.Add(c.ReadyAfter)
	}
	c.setPod(i)
	c.schedule(pod)
}

// goes reports a pod being deleted whose grace period is over.
func (c *Cluster) goes(p *api.Pod) bool {
	at, ok := c.gone[p.Name]
	return ok && p.Deleting && p.Namespace == c.DaemonSet.Namespace && !at.After(c.Now)
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

// Restarts is how many times the containers of the DaemonSet's pod named
// name have restarted by now: for a crash-looping pod ([CrashLoop]) the
// restarts its back-off has allowed since its container first exited; 0
// for any other pod, and for a pod the cluster does not know.
func (c *Cluster) Restarts(name string) int32 {
	at, ok := c.crashStart(name)
	if !ok || c.Now.Before(at) {
		return 0
	}
	var n int32
	for backoff := c.crashBackoff(); ; n++ {
		at = at.Add(backoff)
		if at.After(c.Now) {
			return n
		}
		backoff = min(2*backoff, c.maxCrashBackoff())
		if backoff == c.maxCrashBackoff() {
			// From here on one restart per maximum back-off.
			return n + 1 + int32(c.Now.Sub(at)/backoff)
		}
	}
}

// RestartAt is when the crash-looping pod named name restarts for the nth
// time (n ≥ 1); false when it is not a crash-looping pod of the cluster or
// n < 1.
func (c *Cluster) RestartAt(name string, n int32) (time.Time, bool) {
	at, ok := c.crashStart(name)
	if !ok || n < 1 {
		return time.Time{}, false
	}
	backoff := c.crashBackoff()
	for ; n > 0 && backoff < c.maxCrashBackoff(); n-- {
		at = at.Add(backoff)
		backoff = min(2*backoff, c.maxCrashBackoff())
	}
	return at.Add(time.Duration(n) * backoff), true
}

// crashStart is when the crash-looping pod named name first exits.
func (c *Cluster) crashStart(name string) (time.Time, bool) {
	if c.fates[name] != CrashLoop {
		return time.Time{}, false
	}
	i, ok := c.podIndex()(name)
	if !ok {
		return time.Time{}, false
	}
	return c.Pods[i].Created.Add(c.ReadyAfter), true
}

func (c *Cluster) crashBackoff() time.Duration {
	if c.CrashBackoff > 0 {
		return min(c.CrashBackoff, c.maxCrashBackoff())
	}
	return min(DefaultCrashBackoff, c.maxCrashBackoff())
}

func (c *Cluster) maxCrashBackoff() time.Duration {
	if c.MaxCrashBackoff > 0 {
		return c.MaxCrashBackoff
	}
	return DefaultMaxCrashBackoff
}
