package scratch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSortByNameSortsAsCompare: SortByName orders any names as sorting
// with strings.Compare does, names that share a long prefix, that agree
// on the eight bytes its keys hold, that end in zero bytes or that are
// empty included; it leaves no item in its scratch.
func TestSortByNameSortsAsCompare(t *testing.T) {
	// Few letters and a shared stem make ties in the keys common.
	alphabet := rapid.OneOf(rapid.SampledFrom([]byte{0, 'a', 'b', '-', 0xff}), rapid.Byte())
	part := rapid.StringOfN(rapid.Map(alphabet, func(b byte) rune { return rune(b) }), 0, 12, -1)
	rapid.Check(t, func(t *rapid.T) {
		stem := rapid.SampledFrom([]string{"", "agent-", "ip-10-0-12-34.ec2.internal-"}).Draw(t, "stem")
		raw := rapid.SliceOfNDistinct(part, 0, 2000, func(s string) string { return s }).Draw(t, "names")
		names := make([]*string, len(raw))
		for i, s := range raw {
			// Bytes, not runes: rapid's runes above 0x7f are two bytes.
			b := []byte(stem)
			for _, r := range s {
				b = append(b, byte(r))
			}
			name := string(b)
			names[i] = &name
		}
		want := slices.Clone(names)
		slices.SortFunc(want, func(a, b *string) int { return strings.Compare(*a, *b) })
		got := slices.Clone(names)
		buf, repeats := SortByName(got, func(s *string) string { return *s }, nil)
		if repeats {
			t.Fatalf("distinct names reported as repeating")
		}
		for i := range got {
			if *got[i] != *want[i] {
				t.Fatalf("position %d: got %q, want %q\ngot  %q\nwant %q", i, *got[i], *want[i], deref(got), deref(want))
			}
		}
		for _, k := range buf[:cap(buf)] {
			if k.item != nil {
				t.Fatalf("the scratch still holds %q", *k.item)
			}
		}
	})
}

func deref(ss []*string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = *s
	}
	return out
}

// TestSortByNameLarge: 50,000 names of random bytes and lengths after a
// shared stem, many of them alike in the first six or all eight bytes of
// their keys, sort as strings.Compare sorts them; rapid's lists are mostly
// short.
func TestSortByNameLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	seen := map[string]bool{}
	var names []*string
	for len(names) < 50000 {
		b := []byte("daemon-")
		n := r.IntN(14)
		switch r.IntN(4) {
		case 0:
			b = append(b, "abcdefgh"...) // keys tie
		case 1:
			b, n = append(b, "abcdef"...), r.IntN(4) // keys differ in their last bytes only
		}
		for range n {
			b = append(b, byte(r.Uint32()))
		}
		if name := string(b); !seen[name] {
			seen[name] = true
			names = append(names, &name)
		}
	}
	want := slices.Clone(names)
	slices.SortFunc(want, func(a, b *string) int { return strings.Compare(*a, *b) })
	if _, repeats := SortByName(names, func(s *string) string { return *s }, nil); repeats {
		t.Fatal("distinct names reported as repeating")
	}
	for i := range names {
		if *names[i] != *want[i] {
			t.Fatalf("position %d: got %q, want %q", i, *names[i], *want[i])
		}
	}
}

// TestSortByNameRepeats: with names that repeat, SortByName says so, and
// orders the items as strings.Compare orders their names.
func TestSortByNameRepeats(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stem := rapid.SampledFrom([]string{"", "pod-", "a-very-long-shared-stem-"}).Draw(t, "stem")
		raw := rapid.SliceOfN(rapid.StringMatching(`[ab]{0,10}`), 2, 300).Draw(t, "names")
		seen, want := map[string]bool{}, false
		names := make([]string, len(raw))
		for i, s := range raw {
			names[i] = stem + s
			want = want || seen[names[i]]
			seen[names[i]] = true
		}
		pos := make([]int, len(names))
		for i := range pos {
			pos[i] = i
		}
		_, repeats := SortByName(pos, func(i int) string { return names[i] }, nil)
		if repeats != want {
			t.Fatalf("repeats = %v, want %v", repeats, want)
		}
		for i := 1; i < len(pos); i++ {
			if names[pos[i-1]] > names[pos[i]] {
				t.Fatalf("position %d: %q after %q", i, names[pos[i]], names[pos[i-1]])
			}
		}
	})
}
