package kubesync

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// objects are the converted nodes, or pods, of the last sync, in the
// order compare gives, and what is known of each.
//
// An object is found by its pointer first: an informer's cache hands out
// the same object until a write replaces it with a new one, and the
// look-up then reads nothing of the object. Another object is found by its
// UID, namespace and name together, and is the same as the known one when
// its resourceVersion is (a copy, or the same object decoded again);
// otherwise it is converted. The name is part of the key because the
// conversion holds it: an object listed under another name with a known
// UID and resourceVersion (never from an API server, which cannot rename,
// but from a snapshot assembled by hand) would otherwise keep the
// conversion of its old name.
type objects[K, V any] struct {
	meta    func(*K) *metav1.ObjectMeta
	convert func(*K) (V, held)
	compare func(a, b *V) int
	release func(held)

	// list is what the core plans; ids[i] is list[i]'s slot.
	list []V
	ids  []int32
	// slots are by id; free are the ids of dropped slots, for new objects.
	slots []slot[K]
	free  []int32
	// seen[id] is the epoch of the last update that listed the object,
	// pos[id] its position in the lists: apart from the slots, so that the
	// passes over every object read small arrays.
	seen  []uint32
	pos   []int32
	epoch uint32
	// byPtr and byKey find the slots of the objects with a UID and a
	// resourceVersion: the others are converted at every sync.
	byPtr map[*K]int32
	byKey map[key]int32
	// spare lists are the next lists, when the objects changed.
	spareList []V
	spareIDs  []int32
	// fresh are the objects the update converted that were not in the
	// lists, with their slots.
	fresh    []V
	freshIDs []int32
	// listed counts the objects of the lists the update listed.
	listed int
}

// key is what identifies an object across syncs, apart from its pointer.
type key struct{ uid, namespace, name string }

// slot is what is known of one object.
type slot[K any] struct {
	obj *K
	key key
	rv  string
	// cached: the object is in byPtr and byKey.
	cached bool
	held   held
}

// update returns the conversions of objs in the lists' order, converting
// only the objects that are new or changed since the last update. It
// reports false, and leaves the lists to be forgotten, when objs lists an
// object (a key, or a pointer) twice.
func (o *objects[K, V]) update(objs []*K) ([]V, bool) {
	if o.byKey == nil {
		o.byKey, o.byPtr = map[key]int32{}, map[*K]int32{}
	}
	o.epoch++
	if o.epoch == 0 {
		// The epochs wrapped around: an old mark could pass for this one.
		clear(o.seen)
		o.epoch = 1
	}
	o.fresh, o.freshIDs, o.listed = o.fresh[:0], o.freshIDs[:0], 0
	for _, obj := range objs {
		if id, ok := o.byPtr[obj]; ok {
			// The very object of an earlier sync: unchanged, since
			// objects are not changed in place.
			if o.seen[id] == o.epoch {
				return nil, false
			}
			o.seen[id] = o.epoch
			o.listed++
			continue
		}
		m := o.meta(obj)
		k, rv := key{uid: string(m.UID), namespace: m.Namespace, name: m.Name}, m.ResourceVersion
		if k.uid == "" || rv == "" {
			o.add(obj, key{}, "")
			continue
		}
		id, ok := o.byKey[k]
		if !ok {
			o.add(obj, k, rv)
			continue
		}
		if o.seen[id] == o.epoch {
			return nil, false
		}
		o.seen[id] = o.epoch
		s := &o.slots[id]
		delete(o.byPtr, s.obj)
		o.byPtr[obj], s.obj = id, obj
		if s.rv != rv {
			o.rewrite(id, obj, rv)
		}
		o.listed++
	}
	if len(o.fresh) > 0 || o.listed < len(o.list) {
		o.merge()
	}
	return o.list, true
}

// rewrite converts obj, the new state of slot id's object, in place. The
// conversion sorts where the old one did: the key holds the name (and the
// namespace) that the order compares.
func (o *objects[K, V]) rewrite(id int32, obj *K, rv string) {
	s := &o.slots[id]
	v, h := o.convert(obj)
	o.release(s.held)
	s.held, s.rv = h, rv
	o.list[o.pos[id]] = v
}

// add converts obj, an object not in the lists, into the fresh ones; with
// a UID and resourceVersion, it is found at the next update.
func (o *objects[K, V]) add(obj *K, k key, rv string) {
	v, h := o.convert(obj)
	var id int32
	if n := len(o.free); n > 0 {
		id, o.free = o.free[n-1], o.free[:n-1]
	} else {
		id = int32(len(o.slots))
		o.slots = append(o.slots, slot[K]{})
		o.seen, o.pos = append(o.seen, 0), append(o.pos, 0)
	}
	o.slots[id] = slot[K]{obj: obj, key: k, rv: rv, held: h}
	o.seen[id] = o.epoch
	if k.uid != "" && rv != "" {
		o.slots[id].cached = true
		o.byKey[k], o.byPtr[obj] = id, id
	}
	o.fresh, o.freshIDs = append(o.fresh, v), append(o.freshIDs, id)
}

// uncache takes slot id out of the maps.
func (o *objects[K, V]) uncache(id int32) {
	s := &o.slots[id]
	if !s.cached {
		return
	}
	if o.byKey[s.key] == id {
		delete(o.byKey, s.key)
	}
	if o.byPtr[s.obj] == id {
		delete(o.byPtr, s.obj)
	}
	s.cached = false
}

// merge makes the next lists: the objects of the lists that the update
// listed, and the fresh ones sorted into them.
func (o *objects[K, V]) merge() {
	order := make([]int, len(o.fresh))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return o.compare(&o.fresh[a], &o.fresh[b]) })
	list, ids := o.spareList[:0], o.spareIDs[:0]
	keep := func(v V, id int32) {
		o.pos[id] = int32(len(list))
		list, ids = append(list, v), append(ids, id)
	}
	f := 0
	for i, id := range o.ids {
		// Objects converted at every sync, and objects the update did not
		// list, are dropped.
		if o.seen[id] != o.epoch {
			o.drop(id)
			continue
		}
		for ; f < len(order) && o.compare(&o.fresh[order[f]], &o.list[i]) < 0; f++ {
			keep(o.fresh[order[f]], o.freshIDs[order[f]])
		}
		keep(o.list[i], id)
	}
	for ; f < len(order); f++ {
		keep(o.fresh[order[f]], o.freshIDs[order[f]])
	}
	clear(o.list)
	o.spareList, o.spareIDs = o.list[:0], o.ids[:0]
	o.list, o.ids = list, ids
	clear(o.fresh)
}

// drop forgets slot id, an object the lists lose, and frees its id.
func (o *objects[K, V]) drop(id int32) {
	o.uncache(id)
	o.release(o.slots[id].held)
	o.slots[id] = slot[K]{}
	o.seen[id] = 0
	o.free = append(o.free, id)
}

// forget drops every object.
func (o *objects[K, V]) forget() {
	*o = objects[K, V]{meta: o.meta, convert: o.convert, compare: o.compare, release: o.release}
}
