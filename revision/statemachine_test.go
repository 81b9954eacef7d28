package revision

import (
	"bytes"
	"errors"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/daemonplan/daemonplan/api"
)

// templates is the pool the machine edits the DaemonSet's template from, so
// that templates come back (rollbacks by edit, duplicate current revisions).
var templates = []string{"t0", "t1", "t2", "t3", "t4", "t5"}

// weakHash collides on purpose: three names per collision count, so that
// syncs hit AlreadyExists with our own and with foreign revisions.
func weakHash(ds *api.DaemonSet, cc *int32) string {
	h := fnv.New32a()
	h.Write(TemplateData(ds))
	n := h.Sum32() % 3
	if cc != nil {
		n += 3 * uint32(*cc)
	}
	return SafeEncode(n)
}

// machine is a DaemonSet, the ControllerRevision store and the DaemonSet's
// pods, driven by random template edits, rollbacks, pod churn, foreign and
// orphan revisions, and syncs that apply Construct's and Cleanup's plans.
type machine struct {
	ds        *api.DaemonSet
	opts      Options
	revisions []Revision
	pods      []api.Pod
	seq       int

	// current is the current revision after the last successful sync.
	current    Revision
	hasCurrent bool
	// synced reports that nothing changed since the last successful sync.
	synced bool
}

func newMachine(t *rapid.T) *machine {
	ds := &api.DaemonSet{
		Namespace:    "ns",
		Name:         "ds",
		UID:          "uid-ds",
		Selector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "ds"}},
		Template:     api.PodTemplate{Labels: map[string]string{"app": "ds"}},
		TemplateData: []byte(rapid.SampledFrom(templates).Draw(t, "template")),
	}
	if l := rapid.IntRange(-1, 3).Draw(t, "limit"); l >= 0 {
		n := int32(l)
		ds.RevisionHistoryLimit = &n
	}
	m := &machine{ds: ds}
	if rapid.Bool().Draw(t, "weakHash") {
		m.opts.Hash = weakHash
	}
	return m
}

func (m *machine) limit() int {
	if m.ds.RevisionHistoryLimit == nil {
		return api.DefaultRevisionHistoryLimit
	}
	return int(*m.ds.RevisionHistoryLimit)
}

func (m *machine) ours(r *Revision) bool {
	return r.Namespace == m.ds.Namespace && r.Controller != nil && r.Controller.UID == m.ds.UID &&
		r.Labels["app"] == "ds"
}

func (m *machine) find(name string) int {
	for i := range m.revisions {
		if m.revisions[i].Name == name {
			return i
		}
	}
	return -1
}

func (m *machine) maxRevision() int64 {
	var n int64
	for i := range m.revisions {
		if m.ours(&m.revisions[i]) {
			n = max(n, m.revisions[i].Revision)
		}
	}
	return n
}

// liveHashes are the non-empty hash labels pods carry.
func liveHashes(pods []api.Pod) map[string]bool {
	live := map[string]bool{}
	for _, p := range pods {
		if h := p.Labels[api.LabelRevisionHash]; h != "" {
			live[h] = true
		}
	}
	return live
}

func checkSorted(t *rapid.T, what string, names []string) {
	t.Helper()
	if !sort.StringsAreSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("%s not sorted and unique: %q", what, names)
	}
}

func revisionNames(rs []Revision) []string {
	out := make([]string, len(rs))
	for i := range rs {
		out[i] = rs[i].Name
	}
	return out
}

// sync runs one sync: Construct, apply its plan, Cleanup, apply it. It
// checks the plan against the state and, on success, the invariants.
func (m *machine) sync(t *rapid.T) error {
	t.Helper()
	revsBefore, podsBefore := cloneAll(m.revisions), clonePods(m.pods)
	countBefore := copyCount(m.ds.Status.CollisionCount)

	h, err := Construct(m.ds, m.revisions, podPtrs(m.pods), m.opts)
	if diff := cmp.Diff(revsBefore, m.revisions); diff != "" {
		t.Fatalf("Construct() changed its revisions (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(podsBefore, m.pods); diff != "" {
		t.Fatalf("Construct() changed its pods (-before +after):\n%s", diff)
	}
	for what, names := range map[string][]string{
		"Old": revisionNames(h.Old), "Create": revisionNames(h.Create), "Update": revisionNames(h.Update),
		"Delete": h.DeleteDuplicates, "Adopt": h.Adopt, "Release": h.Release,
	} {
		checkSorted(t, what, names)
	}

	// Apply the plan in the documented order.
	for _, name := range h.Adopt {
		m.revisions[m.find(name)].Controller = controllerRef(m.ds)
	}
	for _, name := range h.Release {
		m.revisions[m.find(name)].Controller = nil
	}
	for _, u := range h.Update {
		i := m.find(u.Name)
		if i < 0 {
			t.Fatalf("Update names a missing revision %q", u.Name)
		}
		m.revisions[i] = u.DeepCopy()
	}
	for _, c := range h.Create {
		if m.find(c.Name) >= 0 {
			t.Fatalf("Create names an existing revision %q", c.Name)
		}
		m.revisions = append(m.revisions, c.DeepCopy())
	}
	deleted := map[string]Revision{}
	for _, name := range h.DeleteDuplicates {
		i := m.find(name)
		deleted[name] = m.revisions[i]
		m.revisions = slices.Delete(m.revisions, i, i+1)
	}
	for _, rl := range h.RelabelPods {
		for i := range m.pods {
			if m.pods[i].Name == rl.Pod {
				m.pods[i].Labels = withLabel(m.pods[i].Labels, api.LabelRevisionHash, rl.Hash)
			}
		}
	}
	m.ds.Status.CollisionCount = copyCount(h.CollisionCount)

	if err != nil {
		var ae *AlreadyExistsError
		if !errors.As(err, &ae) {
			t.Fatalf("Construct() error = %v", err)
		}
		var n int32
		if countBefore != nil {
			n = *countBefore
		}
		if h.CollisionCount == nil || *h.CollisionCount != n+1 || h.Create != nil {
			t.Fatalf("collision: CollisionCount = %s (was %s), want %d; Create = %v",
				fmtCount(h.CollisionCount), fmtCount(countBefore), n+1, h.Create)
		}
		m.synced = false
		return err
	}
	if !cmp.Equal(countBefore, h.CollisionCount) {
		t.Fatalf("CollisionCount changed without a collision: %v -> %v", countBefore, h.CollisionCount)
	}

	// Cleanup sees the pods as they were listed (before the relabel).
	gc := Cleanup(m.ds, h.Old, podPtrs(podsBefore))
	checkSorted(t, "Cleanup", gc)
	liveBefore := liveHashes(podsBefore)
	for _, name := range gc {
		i := m.find(name)
		if i < 0 || !slices.Contains(revisionNames(h.Old), name) {
			t.Fatalf("Cleanup deletes %q, which is not an old revision", name)
		}
		if hash, ok := m.revisions[i].Labels[api.LabelRevisionHash]; ok && liveBefore[hash] {
			t.Fatalf("Cleanup deletes %q whose hash %q a live pod carries", name, hash)
		}
		deleted[name] = m.revisions[i]
		m.revisions = slices.Delete(m.revisions, i, i+1)
	}

	m.checkAfterSync(t, h, gc, deleted, liveBefore)
	m.current, m.hasCurrent, m.synced = h.Current.DeepCopy(), true, true
	return nil
}

func (m *machine) checkAfterSync(t *rapid.T, h History, gc []string, deleted map[string]Revision, liveBefore map[string]bool) {
	t.Helper()
	data := TemplateData(m.ds)

	// Exactly one revision of ours holds the template: History.Current.
	var current []Revision
	var ours []Revision
	for i := range m.revisions {
		r := m.revisions[i]
		if !m.ours(&r) {
			continue
		}
		ours = append(ours, r)
		if bytes.Equal(r.Data, data) {
			current = append(current, r)
		}
	}
	if len(current) != 1 {
		t.Fatalf("%d current revisions after sync: %q", len(current), revisionNames(current))
	}
	cur := current[0]
	if diff := cmp.Diff(h.Current, cur); diff != "" {
		t.Fatalf("History.Current differs from the stored current revision (-history +store):\n%s", diff)
	}
	if h.Hash != cur.Labels[api.LabelRevisionHash] {
		t.Fatalf("Hash = %q, current revision's label = %q", h.Hash, cur.Labels[api.LabelRevisionHash])
	}

	// The current revision has the highest number, and a newly current
	// revision a higher number than the previous current one.
	for _, r := range ours {
		if r.Name != cur.Name && r.Revision >= cur.Revision {
			t.Fatalf("old revision %q has number %d >= current %q's %d", r.Name, r.Revision, cur.Name, cur.Revision)
		}
	}
	// (A duplicate of the same template may replace the current revision
	// with an equal number.)
	if m.hasCurrent {
		newTemplate := !bytes.Equal(m.current.Data, cur.Data)
		if newTemplate && cur.Revision <= m.current.Revision || cur.Revision < m.current.Revision {
			t.Fatalf("newly current %q has number %d, previous current %q had %d",
				cur.Name, cur.Revision, m.current.Name, m.current.Revision)
		}
	}

	// The stored revisions of ours are Current plus Old minus what Cleanup
	// deleted, exactly as History describes them.
	want := []Revision{h.Current.DeepCopy()}
	for _, o := range h.Old {
		if !slices.Contains(gc, o.Name) {
			want = append(want, o)
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	sort.Slice(ours, func(i, j int) bool { return ours[i].Name < ours[j].Name })
	if diff := cmp.Diff(want, ours); diff != "" {
		t.Fatalf("stored revisions differ from Current+Old-Cleanup (-history +store):\n%s", diff)
	}

	// No deleted revision is still referenced by a pod (unless a surviving
	// revision carries the same hash label).
	surviving := map[string]bool{}
	for _, r := range m.revisions {
		surviving[r.Labels[api.LabelRevisionHash]] = true
	}
	liveAfter := liveHashes(m.pods)
	for name, r := range deleted {
		hash, ok := r.Labels[api.LabelRevisionHash]
		if ok && liveAfter[hash] && !surviving[hash] {
			t.Fatalf("deleted revision %q whose hash %q a pod still carries", name, hash)
		}
	}

	// At most limit old revisions remain, beyond those kept because live.
	old, liveOld := 0, 0
	for _, r := range ours {
		if r.Name == cur.Name {
			continue
		}
		old++
		if h, ok := r.Labels[api.LabelRevisionHash]; ok && liveBefore[h] {
			liveOld++
		}
	}
	if old > max(m.limit(), liveOld) {
		t.Fatalf("%d old revisions remain, limit %d, %d of them live", old, m.limit(), liveOld)
	}
}

// syncOK syncs until no collision is left.
func (m *machine) syncOK(t *rapid.T) {
	t.Helper()
	for i := 0; i < 50; i++ {
		if m.sync(t) == nil {
			return
		}
	}
	t.Fatalf("50 syncs in a row collided")
}

func (m *machine) edit(t *rapid.T) {
	m.ds.TemplateData = []byte(rapid.SampledFrom(templates).Draw(t, "edit"))
	m.synced = false
}

// rollback rolls back to a drawn revision from a synced state, syncs, and
// checks that the rolled-back revision became current with the highest
// number, and that undoing restores the template of before.
func (m *machine) rollback(t *rapid.T) {
	m.syncOK(t)
	before := m.current.DeepCopy()
	to := rapid.Int64Range(-1, m.maxRevision()+1).Draw(t, "toRevision")
	res, err := Rollback(m.ds, m.revisions, to)
	if err != nil {
		t.Fatalf("Rollback() error = %v", err)
	}
	switch res.Outcome {
	case RolledBack:
		if bytes.Equal(res.Template, TemplateData(m.ds)) {
			t.Fatalf("RolledBack to the current template")
		}
	case Skipped:
		if res.Name != before.Name {
			t.Fatalf("Skipped for %q, current is %q", res.Name, before.Name)
		}
		return
	case NotFound:
		for i := range m.revisions {
			if m.ours(&m.revisions[i]) && m.revisions[i].Revision == to && to > 0 {
				t.Fatalf("NotFound for %d, but %q has that number", to, m.revisions[i].Name)
			}
		}
		return
	case NoPreviousRevision:
		n := 0
		for i := range m.revisions {
			if m.ours(&m.revisions[i]) {
				n++
			}
		}
		if to != 0 || n > 1 {
			t.Fatalf("NoPreviousRevision for %d with %d revisions", to, n)
		}
		return
	default:
		t.Fatalf("unexpected outcome %v", res.Outcome)
	}
	prevMax := m.maxRevision()
	m.ds.TemplateData = res.Template
	m.syncOK(t)
	// The rolled-back revision (or a duplicate of it with a later name and
	// the same number) is current, renumbered above every other.
	if !bytes.Equal(m.current.Data, res.Template) || m.current.Revision != prevMax+1 {
		t.Fatalf("after rollback to %q the current revision is %q number %d, want number %d",
			res.Name, m.current.Name, m.current.Revision, prevMax+1)
	}
	if m.find(before.Name) < 0 {
		return // garbage-collected: nothing to go back to
	}
	back, err := Rollback(m.ds, m.revisions, 0)
	if err != nil {
		t.Fatalf("Rollback() error = %v", err)
	}
	if back.Outcome != RolledBack || back.Name != before.Name || !bytes.Equal(back.Template, before.Data) {
		t.Fatalf("undo after rolling back from %q: %+v", before.Name, back)
	}
	m.ds.TemplateData = back.Template
	m.syncOK(t)
	if !bytes.Equal(m.current.Data, before.Data) || m.current.Name != before.Name {
		t.Fatalf("undo did not restore %q: current is %q", before.Name, m.current.Name)
	}
}

func (m *machine) addPod(t *rapid.T) {
	if !m.hasCurrent {
		t.Skip("no revision yet")
	}
	hash := m.current.Labels[api.LabelRevisionHash]
	if rapid.Bool().Draw(t, "oldPod") && len(m.revisions) > 0 {
		r := rapid.SampledFrom(m.revisions).Draw(t, "podRevision")
		hash = r.Labels[api.LabelRevisionHash]
	}
	m.seq++
	m.pods = append(m.pods, api.Pod{
		Namespace:  m.ds.Namespace,
		Name:       "p" + strconv.Itoa(m.seq),
		Labels:     map[string]string{"app": "ds", api.LabelRevisionHash: hash},
		Controller: controllerRef(m.ds),
		Phase:      api.PodRunning,
	})
}

func (m *machine) removePod(t *rapid.T) {
	if len(m.pods) == 0 {
		t.Skip("no pod")
	}
	i := rapid.IntRange(0, len(m.pods)-1).Draw(t, "pod")
	m.pods = slices.Delete(m.pods, i, i+1)
}

func (m *machine) terminatePod(t *rapid.T) {
	if len(m.pods) == 0 {
		t.Skip("no pod")
	}
	i := rapid.IntRange(0, len(m.pods)-1).Draw(t, "pod")
	m.pods[i].Phase, m.pods[i].Deleting = api.PodFailed, true
}

// orphan adds an orphan revision the DaemonSet selects; the next sync
// adopts it (a duplicate current one when its data is the template).
func (m *machine) orphan(t *rapid.T) {
	m.seq++
	name := "ds-o" + strconv.Itoa(m.seq)
	m.revisions = append(m.revisions, Revision{
		Namespace: m.ds.Namespace,
		Name:      name,
		Labels:    map[string]string{"app": "ds", api.LabelRevisionHash: "o" + strconv.Itoa(m.seq)},
		Revision:  rapid.Int64Range(1, 20).Draw(t, "orphanRevision"),
		Data:      []byte(rapid.SampledFrom(templates).Draw(t, "orphanData")),
	})
	m.synced = false
}

// foreign adds another controller's revision under a name the DaemonSet
// may want, with data no template has: a collision waiting to happen.
func (m *machine) foreign(t *rapid.T) {
	ds := *m.ds
	ds.TemplateData = []byte(rapid.SampledFrom(templates).Draw(t, "foreignFor"))
	var cc *int32
	if c := rapid.IntRange(-1, 2).Draw(t, "foreignCount"); c >= 0 {
		cc = int32p(int32(c))
	}
	hash := DefaultHash
	if m.opts.Hash != nil {
		hash = m.opts.Hash
	}
	name := ds.Name + "-" + hash(&ds, cc)
	if m.find(name) >= 0 {
		t.Skip("name taken")
	}
	m.revisions = append(m.revisions, Revision{
		Namespace:  m.ds.Namespace,
		Name:       name,
		Labels:     map[string]string{"app": "ds", api.LabelRevisionHash: "foreign"},
		Controller: &api.OwnerRef{Kind: "DaemonSet", Name: "other", UID: "uid-other"},
		Revision:   1,
		Data:       []byte("foreign"),
	})
	m.synced = false
}

// legacy strips the hash label from one of our revisions, as revisions
// written by old controllers lack it.
func (m *machine) legacy(t *rapid.T) {
	var idx []int
	for i := range m.revisions {
		if m.ours(&m.revisions[i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		t.Skip("no revision of ours")
	}
	i := rapid.SampledFrom(idx).Draw(t, "legacy")
	labels := maps.Clone(m.revisions[i].Labels)
	delete(labels, api.LabelRevisionHash)
	m.revisions[i].Labels = labels
	m.synced = false
}

func TestHistoryStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"sync":         func(t *rapid.T) { _ = m.sync(t) },
			"edit":         m.edit,
			"rollback":     m.rollback,
			"addPod":       m.addPod,
			"removePod":    m.removePod,
			"terminatePod": m.terminatePod,
			"orphan":       m.orphan,
			"foreign":      m.foreign,
			"legacy":       m.legacy,
		})
	})
}

func fmtCount(c *int32) string {
	if c == nil {
		return "nil"
	}
	return strconv.Itoa(int(*c))
}
