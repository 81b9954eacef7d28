package load_test

import (
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/kube/load"
)

// Budgets per input of FuzzAliasBudget: far above what a document within
// load.MaxAliasExpansion costs (a few MiB and tens of milliseconds), far
// below what an unbounded expansion costs (the 112 KB file: 27 s
// and 1.2 GB).
const (
	aliasTimeBudget = 5 * time.Second
	// aliasMemoryBudget is in bytes allocated, plus 64 bytes per byte of
	// input.
	aliasMemoryBudget = 256 << 20
)

// FuzzAliasBudget reads YAML documents whose aliases nest levels deep, each
// level a list of fanout aliases of the level below, on a scalar of n bytes,
// with tail appended, and checks:
//
//  1. each input is read within aliasTimeBudget and aliasMemoryBudget,
//     whatever its aliases expand to;
//  2. without tail, the document is refused with ErrAliasExpansion exactly
//     when what its aliases add, computed here with big integers, is above
//     load.MaxAliasExpansion, and otherwise read (or refused by the YAML
//     decoder's own guard, which counts nodes);
//  3. every error is a *load.DecodeError naming the source and document.
func FuzzAliasBudget(f *testing.F) {
	f.Add(uint32(100_000), uint16(3000), uint8(1), "")
	f.Add(uint32(3), uint16(10), uint8(6), "")
	f.Add(uint32(load.MaxAliasExpansion/2-1), uint16(2), uint8(1), "")
	f.Add(uint32(0), uint16(0), uint8(0), "x: &y [*y]\n")
	f.Add(uint32(10), uint16(5), uint8(2), "m:\n  <<: *l1\n")
	f.Fuzz(func(t *testing.T, n uint32, fanout uint16, levels uint8, tail string) {
		n %= 1 << 21
		fanout %= 4096
		levels %= 8
		doc := aliasDoc(int(n), int(fanout), int(levels)) + tail
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := load.Load(load.Options{}, load.Source{Name: "a", R: strings.NewReader(doc)})
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if took > aliasTimeBudget {
			t.Errorf("read in %v, over the budget of %v", took, aliasTimeBudget)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > aliasMemoryBudget+64*uint64(len(doc)) {
			t.Errorf("%d bytes allocated, over the budget of %d", alloc, aliasMemoryBudget+64*len(doc))
		}
		if err != nil {
			var de *load.DecodeError
			if !errors.As(err, &de) || de.At.Source != "a" || de.At.Doc < 1 {
				t.Fatalf("error %v is not a *load.DecodeError naming source and document", err)
			}
		}
		if tail != "" {
			return
		}
		over := aliasAdded(int64(n), int64(fanout), int(levels)).Cmp(big.NewInt(load.MaxAliasExpansion)) > 0
		// The YAML decoder's own guard, which counts aliases against
		// nodes, may refuse a document within the limit too, as kubectl
		// refuses it.
		guarded := err != nil && strings.Contains(err.Error(), "excessive aliasing")
		if over != errors.Is(err, load.ErrAliasExpansion) || (!over && err != nil && !guarded) {
			t.Fatalf("aliases add %v bytes (limit %d): error %v", aliasAdded(int64(n), int64(fanout), int(levels)), load.MaxAliasExpansion, err)
		}
	})
}

// aliasDoc is a ConfigMap whose key l0 anchors a scalar of n bytes and
// each key li (i from 1 to levels) anchors a list of fanout aliases of
// l(i-1).
func aliasDoc(n, fanout, levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nl0: &l0 x" + strings.Repeat("x", n) + "\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range fanout {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// aliasAdded is what the aliases of aliasDoc(n, fanout, levels) add, as
// load.MaxAliasExpansion counts it: a scalar is its length plus one, a
// list one plus its items, and each alias adds its value expanded.
func aliasAdded(n, fanout int64, levels int) *big.Int {
	size := big.NewInt(n + 2) // "x" and n more, plus one
	added := new(big.Int)
	k := big.NewInt(fanout)
	for range levels {
		added.Add(added, new(big.Int).Mul(k, size))
		size = new(big.Int).Add(big.NewInt(1), new(big.Int).Mul(k, size))
	}
	return added
}
