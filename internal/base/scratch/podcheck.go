package scratch

import (
	"hash/maphash"

	"github.com/daemonplan/daemonplan/api"
)

// PodCheck tells, without allocating once it has grown to the cluster, whether
// [api.ValidatePods] finds nothing in a pod list: every pod well formed
// ([api.PodWellFormed]: named, its namespace, name, UID and node name valid
// UTF-8), no (namespace, name) and no non-empty UID twice. Only when it does not is api.ValidatePods called, for
// the findings. A [github.com/daemonplan/daemonplan/placement.Index] keeps its
// table across Reset. The zero PodCheck is ready.
type PodCheck struct {
	slotTable
	sorted    bool // see Sorted
	bad       bool // a pod added so far fails the check
	order     []int32
	orderSort []Keyed[int32]
}

// Sorted reports, after Done returned true, that the pods came in
// (namespace, name) order, as a list from the API server does.
func (x *PodCheck) Sorted() bool { return x.sorted }

// Order is, after Done returned true for pods not Sorted, every pod's
// position, sorted by name (pods of one name next to each other):
// placement's Index.Keep lists the bucketed pods in this order. It is
// the [PodCheck]'s, overwritten by the next check.
func (x *PodCheck) Order() []int32 { return x.order }

// Valid reports whether pods are valid as [api.ValidatePods] judges them.
func (x *PodCheck) Valid(pods []api.Pod) bool {
	x.Start(len(pods))
	for i := range pods {
		x.Add(pods, i)
	}
	return x.Done(pods)
}

// Start begins the check of a list of n pods, which Add then checks one
// by one, in order, so that a pass over the pods that does other work
// checks them too.
func (x *PodCheck) Start(n int) {
	x.reset(n)
	x.sorted, x.bad = true, false
}

// Add checks pods[i]; pods[:i] were added before.
func (x *PodCheck) Add(pods []api.Pod, i int) {
	if x.bad {
		return
	}
	p := &pods[i]
	if !api.PodWellFormed(p) {
		x.bad = true
		return
	}
	sameNS := i > 0 && pods[i-1].Namespace == p.Namespace
	// The API server lists pods in (namespace, name) order: then no name
	// repeats, and only the UIDs need a table.
	if i > 0 && x.sorted {
		x.sorted = sameNS && pods[i-1].Name < p.Name || !sameNS && pods[i-1].Namespace < p.Namespace
	}
	if p.UID == "" {
		return
	}
	h := maphash.String(x.seed, p.UID)
	tag := x.tag(h)
	for s := h & x.mask; x.slots[s] != 0; s = (s + 1) & x.mask {
		if v := x.slots[s]; v&^x.posMask == tag && pods[x.pos(v)].UID == p.UID {
			x.bad = true
			return
		}
	}
	x.put(h, i)
}

// Done reports whether the pods added are valid as [api.ValidatePods] judges
// them.
func (x *PodCheck) Done(pods []api.Pod) bool {
	if x.bad {
		x.sorted = false
		return false
	}
	if x.sorted {
		return true
	}
	// Pods in lister order: sort their positions by name. Only a name
	// that occurs twice can be a (namespace, name) that does.
	x.order = Resize(x.order, len(pods))
	for i := range x.order {
		x.order[i] = int32(i)
	}
	var repeats bool
	x.orderSort, repeats = SortByName(x.order, func(i int32) string { return pods[i].Name }, x.orderSort)
	return !repeats || x.distinctNames(pods)
}

// distinctNames reports whether no two pods share a namespace and name.
func (x *PodCheck) distinctNames(pods []api.Pod) bool {
	x.reset(len(pods))
	var hh maphash.Hash
	hh.SetSeed(x.seed)
	for i := range pods {
		p := &pods[i]
		hh.Reset()
		hh.WriteString(p.Namespace)
		hh.WriteByte(0)
		hh.WriteString(p.Name)
		h := hh.Sum64()
		tag := x.tag(h)
		for s := h & x.mask; x.slots[s] != 0; s = (s + 1) & x.mask {
			if v := x.slots[s]; v&^x.posMask == tag {
				if q := &pods[x.pos(v)]; q.Namespace == p.Namespace && q.Name == p.Name {
					return false
				}
			}
		}
		x.put(h, i)
	}
	return true
}
