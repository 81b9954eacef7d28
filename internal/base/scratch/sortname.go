package scratch

import (
	"slices"
	"strings"
)

// Keyed is an item to sort by name, with the eight bytes of its name that
// follow the prefix every name shares, big-endian: the items are sorted by
// these integers, without reading the names.
type Keyed[T any] struct {
	key  uint64
	item T
}

// SortByName sorts s by name (byte order, as strings.Compare), using buf
// as scratch, and returns buf for reuse and whether some name occurs
// twice. It gives the order slices.SortFunc with strings.Compare gives, for
// distinct names; items of the same name end up next to each other, in no
// particular order.
//
// Lists from an informer's lister come in map order; sorting 100k of them
// by comparing names reads two names at random places per comparison,
// which costs more than all the rest of a sync. Here each name is read
// twice, in one pass for the shared prefix and one for the keys, the keys
// are radix-sorted, and only names whose keys tie are compared in full.
func SortByName[T any](s []T, name func(T) string, buf []Keyed[T]) (_ []Keyed[T], repeats bool) {
	if len(s) < 2 {
		return buf, false
	}
	first := name(s[0])
	shared := len(first)
	for _, x := range s[1:] {
		shared = commonPrefix(first[:shared], name(x))
	}
	// buf holds the items and, past them, room for the radix sort's
	// second copy.
	buf = Resize(buf, 2*len(s))
	a, tmp := buf[:len(s)], buf[len(s):]
	for i, x := range s {
		a[i] = Keyed[T]{key: nameKey(name(x)[shared:]), item: x}
	}
	a = radixSort(a, tmp)
	// Names whose keys tie are ordered by the rest of the name; only they
	// can be the same name.
	for lo := 0; lo < len(a); {
		hi := lo + 1
		for hi < len(a) && a[hi].key == a[lo].key {
			hi++
		}
		if hi-lo > 1 {
			run := a[lo:hi]
			slices.SortFunc(run, func(x, y Keyed[T]) int {
				return strings.Compare(name(x.item)[shared:], name(y.item)[shared:])
			})
			for i := 1; i < len(run) && !repeats; i++ {
				repeats = name(run[i].item) == name(run[i-1].item)
			}
		}
		lo = hi
	}
	for i := range a {
		s[i] = a[i].item
	}
	// The scratch would otherwise hold the snapshot's objects alive.
	clear(buf)
	return buf[:0], repeats
}

// radixBits is the width of a digit of radixSort: 2,048 counters fit in
// the first-level cache, and six passes cover 64 bits.
const radixBits = 11

// radixSort sorts a by key, least significant digit first, using tmp (as
// long as a) for the passes, and returns the sorted slice, which is a or
// tmp. A pass whose digit is the same in every key is skipped: the bytes
// of a name are mostly letters and digits, and its high bits agree.
func radixSort[T any](a, tmp []Keyed[T]) []Keyed[T] {
	var count [1 << radixBits]int
	for shift := uint(0); shift < 64; shift += radixBits {
		clear(count[:])
		for i := range a {
			count[(a[i].key>>shift)&(1<<radixBits-1)]++
		}
		if count[(a[0].key>>shift)&(1<<radixBits-1)] == len(a) {
			continue
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range a {
			d := (a[i].key >> shift) & (1<<radixBits - 1)
			tmp[count[d]] = a[i]
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// nameKey returns the first eight bytes of s, big-endian, padded with
// zeros: keys order as the strings do, except that strings that agree on
// their first eight bytes, or of which one is the other followed by zero
// bytes, tie.
func nameKey(s string) uint64 {
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

// Resize returns s with length n, reusing its array when large enough. The
// elements are not cleared. The result is never nil.
func Resize[T any](s []T, n int) []T {
	if s == nil || cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
