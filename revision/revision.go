package revision

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// Revision is one ControllerRevision: a DaemonSet pod template stored as
// data, with a number. [Construct] and [Rollback] never change the revisions
// they are given, and every Revision they return is a deep copy.
type Revision struct {
	Namespace string
	Name      string
	// Labels carry api.LabelRevisionHash, the hash new pods of this
	// revision are labelled with. A revision without that label is a legacy
	// revision; Construct labels it with its own name.
	Labels map[string]string
	// Annotations are copied from the DaemonSet when the revision is created
	// (api.AnnotationChangeCause is shown by HistoryTable).
	Annotations map[string]string
	// Controller is the controller owner reference; nil for an orphan.
	Controller *api.OwnerRef
	// Revision is the revision number; the current revision has the highest.
	Revision int64
	// Data is the stored template, compared byte for byte with
	// TemplateData (docs/history.md, H3).
	Data []byte
	// Deleting reports that metadata.deletionTimestamp is set.
	Deleting bool
}

// Options are the switches of [Construct]. The zero value is upstream's
// behaviour with [DefaultHash].
type Options struct {
	// Hash names new revisions; nil means DefaultHash.
	Hash HashFunc
}

// PodRelabel asks the caller to set the [api.LabelRevisionHash] label of
// pod Pod to Hash (a merge patch upstream).
type PodRelabel struct {
	Pod  string
	Hash string
}

// History is the revision plan of one sync, what upstream's constructHistory
// writes and returns (docs/history.md, H6–H12). Every slice is sorted by
// name (RelabelPods by pod name); nil means none. A name may appear in both Update and Delete
// (a legacy duplicate is labelled, then deleted); apply updates first.
type History struct {
	// Current is the revision that holds the DaemonSet's template, as it is
	// once the plan is applied (created, renumbered or relabelled). It is
	// the zero Revision when Construct returns an error.
	Current Revision
	// Old are the claimed revisions that do not hold the template, as they
	// are once the plan is applied (adopted ones carry the DaemonSet as
	// controller, legacy ones their name as hash label). Pass them to
	// Cleanup.
	Old []Revision
	// Hash is Current's hash label: the value new pods get in their
	// api.LabelRevisionHash label. It may be a legacy revision's name.
	Hash string
	// Create holds the revision to create (at most one).
	Create []Revision
	// Update holds the full new state of each claimed revision whose
	// labels or number change: legacy revisions get their name as hash
	// label; the current revision is renumbered above every old one.
	Update []Revision
	// DeleteDuplicates names duplicate current revisions to delete
	// (Plan.Revisions.DeleteDuplicates; history cleanup is Cleanup).
	DeleteDuplicates []string
	// Adopt names orphan revisions to adopt (set the DaemonSet as their
	// controller owner reference).
	Adopt []string
	// Release names revisions the DaemonSet owns but no longer selects
	// (remove the owner reference).
	Release []string
	// RelabelPods are the pods whose hash label must change to the
	// surviving current revision's hash when duplicates are removed.
	RelabelPods []PodRelabel
	// CollisionCount is the status.collisionCount to write: the input one,
	// or one more (nil counts as 0) after a name collision. It is a fresh
	// pointer, nil when the input is nil and no collision happened.
	CollisionCount *int32
}

// AlreadyExistsError is the error [Construct] returns when the name of the
// revision it must create is taken by a revision holding another template.
// Its text mirrors the API server's; [History.CollisionCount] is then bumped
// so that the next sync computes another name.
type AlreadyExistsError struct {
	Name string
}

func (e *AlreadyExistsError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("controllerrevisions.apps %q already exists", e.Name)
}

// Construct plans the revision history of one sync of ds (upstream:
// constructHistory; docs/history.md, H6–H12).
//
// revisions are the ControllerRevisions the caller knows of (any namespace,
// any owner); pods are the DaemonSet's claimed pods, read only to relabel
// them when duplicate current revisions are removed. ds must not be nil.
//
// The rules, in order:
//
//  1. Claim (docs/history.md, H6): only revisions in ds.Namespace are
//     considered. Owned by ds.UID and selected by ds.Selector → claimed.
//     Owned and not selected → released, unless ds.Deleting. Orphan,
//     selected, not itself Deleting, ds not Deleting and with a UID →
//     adopted (and claimed). Owned by another controller → ignored. An
//     owner reference with an empty UID is nobody's: a DaemonSet without
//     a UID claims nothing.
//  2. Every claimed revision without a hash label gets its own name as hash
//     label (an Update).
//  3. Claimed revisions whose Data equals TemplateData(ds) are current, the
//     others old. next = the highest old revision number + 1 (1 when there
//     is no old revision; numbers below 0 count as 0).
//  4. No current revision: the name is ds.Name + "-" +
//     Hash(ds, ds.Status.CollisionCount). If no revision of that name exists
//     in ds.Namespace, a revision is created (labels = template labels +
//     hash label, annotations = the DaemonSet's, controller = ds, Data =
//     [TemplateData], number = next). If one exists with the same Data, it is
//     used as is (not renumbered, not claimed). If one exists with other
//     Data, the result is an [*AlreadyExistsError] and CollisionCount is
//     bumped; nothing is created.
//  5. Several current revisions: the one with the highest number is kept;
//     on equal numbers the one whose name sorts last (upstream keeps the
//     later one in its list order, which is not deterministic). Every pod
//     whose hash label differs from the keeper's is relabelled to it; the
//     other current revisions are deleted.
//  6. If the current revision's number is below next, it is renumbered to
//     next (this is how a rollback shows: the old revision becomes the
//     newest).
//
// The result does not depend on the order of revisions or pods. Two
// revisions with the same name in ds.Namespace are an error (a
// [field.ErrorList] of Duplicate), as is an invalid selector. On an error the
// returned [History] still holds the writes upstream makes before failing
// (adoptions, releases, legacy labels and, on a collision, the bumped
// CollisionCount); Current and Hash are then empty.
func Construct(ds *api.DaemonSet, revisions []Revision, pods []*api.Pod, opts Options) (History, error) {
	if ds == nil {
		panic("revision.Construct: nil DaemonSet")
	}
	hashFn := opts.Hash
	if hashFn == nil {
		hashFn = DefaultHash
	}
	h := History{CollisionCount: copyCount(ds.Status.CollisionCount)}
	if err := checkNames(ds.Namespace, revisions); err != nil {
		return h, err
	}
	matches, err := compileSelector(ds.Selector)
	if err != nil {
		return h, err
	}

	claimed, adopt, release := claim(ds, revisions, matches)
	h.Adopt, h.Release = adopt, release

	updated := map[string]bool{}
	for i := range claimed {
		c := &claimed[i]
		if _, ok := c.Labels[api.LabelRevisionHash]; !ok {
			c.Labels = withLabel(c.Labels, api.LabelRevisionHash, c.Name)
			updated[c.Name] = true
		}
	}

	data := TemplateData(ds)
	var current []int // indexes into claimed
	var next int64
	for i := range claimed {
		if bytes.Equal(claimed[i].Data, data) {
			current = append(current, i)
			continue
		}
		h.Old = append(h.Old, claimed[i])
		next = max(next, claimed[i].Revision)
	}
	next++

	var cur Revision
	switch len(current) {
	case 0:
		hash := hashFn(ds, ds.Status.CollisionCount)
		name := ds.Name + "-" + hash
		existing := find(revisions, ds.Namespace, name)
		switch {
		case existing == nil:
			cur = snapshot(ds, hash, data, next)
			h.Create = []Revision{cur.DeepCopy()}
		case bytes.Equal(existing.Data, data):
			cur = existing.DeepCopy()
			if contains(release, name) {
				cur.Controller = nil
			}
		default:
			var n int32
			if ds.Status.CollisionCount != nil {
				n = *ds.Status.CollisionCount
			}
			n++
			h.CollisionCount = &n
			h.Update = collectUpdates(claimed, updated)
			return h, &AlreadyExistsError{Name: name}
		}
	default:
		keep := current[0]
		for _, i := range current[1:] {
			// claimed is sorted by name: ">=" keeps the last name on a tie.
			if claimed[i].Revision >= claimed[keep].Revision {
				keep = i
			}
		}
		keeper := &claimed[keep]
		if len(current) > 1 {
			hash := keeper.Labels[api.LabelRevisionHash]
			h.RelabelPods = relabel(pods, hash)
			for _, i := range current {
				if i != keep {
					h.DeleteDuplicates = append(h.DeleteDuplicates, claimed[i].Name)
				}
			}
		}
		if keeper.Revision < next {
			keeper.Revision = next
			updated[keeper.Name] = true
		}
		cur = keeper.DeepCopy()
	}

	h.Current = cur
	h.Hash = cur.Labels[api.LabelRevisionHash]
	h.Update = collectUpdates(claimed, updated)
	return h, nil
}

// checkNames reports revisions of namespace ns that share a name.
func checkNames(ns string, revisions []Revision) error {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i := range revisions {
		r := &revisions[i]
		if r.Namespace != ns {
			continue
		}
		if seen[r.Name] {
			errs = append(errs, field.Duplicate(field.NewPath("revisions").Index(i).Child("name"), r.Name))
		}
		seen[r.Name] = true
	}
	return errs.ToError()
}

// claim applies the claim rules (docs/history.md, H6) to the revisions of
// ds's namespace. It returns deep
// copies of the claimed revisions sorted by name, with adopted ones already
// pointing at ds, and the sorted names to adopt and to release.
func claim(ds *api.DaemonSet, revisions []Revision, matches func(map[string]string) bool) (claimed []Revision, adopt, release []string) {
	for i := range revisions {
		r := &revisions[i]
		if r.Namespace != ds.Namespace {
			continue
		}
		selected := matches(r.Labels)
		switch {
		case r.Controller != nil && (r.Controller.UID == "" || r.Controller.UID != ds.UID):
			// Another controller's; an empty UID is nobody's.
		case r.Controller != nil:
			if selected {
				claimed = append(claimed, r.DeepCopy())
			} else if !ds.Deleting {
				release = append(release, r.Name)
			}
		case selected && !r.Deleting && !ds.Deleting && ds.UID != "":
			c := r.DeepCopy()
			c.Controller = controllerRef(ds)
			claimed = append(claimed, c)
			adopt = append(adopt, r.Name)
		}
	}
	sort.Slice(claimed, func(i, j int) bool { return claimed[i].Name < claimed[j].Name })
	sort.Strings(adopt)
	sort.Strings(release)
	return claimed, adopt, release
}

// snapshot builds the revision to create for ds (upstream's snapshot).
func snapshot(ds *api.DaemonSet, hash string, data []byte, number int64) Revision {
	labels := make(map[string]string, len(ds.Template.Labels)+1)
	for k, v := range ds.Template.Labels {
		labels[k] = v
	}
	labels[api.LabelRevisionHash] = hash
	return Revision{
		Namespace:   ds.Namespace,
		Name:        ds.Name + "-" + hash,
		Labels:      labels,
		Annotations: maps.Clone(ds.Annotations),
		Controller:  controllerRef(ds),
		Revision:    number,
		Data:        data,
	}
}

// relabel lists, sorted by pod name, the pods whose hash label is not hash.
func relabel(pods []*api.Pod, hash string) []PodRelabel {
	var out []PodRelabel
	for _, p := range pods {
		if p.Labels[api.LabelRevisionHash] != hash {
			out = append(out, PodRelabel{Pod: p.Name, Hash: hash})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}

// collectUpdates returns copies of the claimed revisions named in updated,
// sorted by name (claimed is).
func collectUpdates(claimed []Revision, updated map[string]bool) []Revision {
	var out []Revision
	for i := range claimed {
		if updated[claimed[i].Name] {
			out = append(out, claimed[i].DeepCopy())
		}
	}
	return out
}

func find(revisions []Revision, ns, name string) *Revision {
	for i := range revisions {
		if revisions[i].Namespace == ns && revisions[i].Name == name {
			return &revisions[i]
		}
	}
	return nil
}

func contains(sorted []string, s string) bool {
	i := sort.SearchStrings(sorted, s)
	return i < len(sorted) && sorted[i] == s
}

func controllerRef(ds *api.DaemonSet) *api.OwnerRef {
	return &api.OwnerRef{Kind: "DaemonSet", Name: ds.Name, UID: ds.UID}
}

func copyCount(c *int32) *int32 {
	if c == nil {
		return nil
	}
	n := *c
	return &n
}

// withLabel returns a copy of labels with k set to v.
func withLabel(labels map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	maps.Copy(out, labels)
	out[k] = v
	return out
}

// DeepCopy returns a copy of r that shares no memory with it.
func (r Revision) DeepCopy() Revision {
	r.Labels = maps.Clone(r.Labels)
	r.Annotations = maps.Clone(r.Annotations)
	if r.Controller != nil {
		c := *r.Controller
		r.Controller = &c
	}
	r.Data = slices.Clone(r.Data)
	return r
}

// ValidateRevisions checks that a revision list is a snapshot of distinct
// ControllerRevisions and returns every problem, or nil. Paths are rooted
// at "revisions" ("revisions[3].name"); revisions is not changed.
//
//  1. An empty name is Required.
//  2. A namespace or name that is not valid UTF-8 is Invalid.
//  3. A namespace and name already used by an earlier revision is
//     Duplicate, with the index of the first one in the detail ("also
//     revisions[1]").
//
// [Construct] reports duplicates too, but only in the DaemonSet's namespace
// and as upstream's sync error; a caller that checks its input first gets
// every problem with the index of its own list.
func ValidateRevisions(revisions []Revision) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("revisions")
	type key struct{ namespace, name string }
	seen := make(map[key]int, len(revisions))
	for i := range revisions {
		r := &revisions[i]
		rp := p.Index(i)
		if r.Name == "" {
			errs = append(errs, field.Required(rp.Child("name"), "every object of a snapshot needs a name"))
			continue
		}
		for _, f := range [...]struct{ name, value string }{{"namespace", r.Namespace}, {"name", r.Name}} {
			if !utf8.ValidString(f.value) {
				errs = append(errs, field.Invalid(rp.Child(f.name), f.value, "must be valid UTF-8"))
			}
		}
		k := key{r.Namespace, r.Name}
		if j, ok := seen[k]; ok {
			e := field.Duplicate(rp.Child("name"), r.Name)
			e.Detail = "also " + p.Index(j).String()
			errs = append(errs, e)
			continue
		}
		seen[k] = i
	}
	return errs
}
