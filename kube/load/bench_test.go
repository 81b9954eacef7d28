package load_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/benchkit"
	"github.com/daemonplan/daemonplan/kube/internal/bigdump"
	"github.com/daemonplan/daemonplan/kube/load"
)

var dumps sync.Map // nodes → []byte

// dump returns the bigdump dump of n nodes, built once per size.
func dump(b *testing.B, n int) []byte {
	if d, ok := dumps.Load(n); ok {
		return d.([]byte)
	}
	var buf bytes.Buffer
	if err := bigdump.Write(&buf, n); err != nil {
		b.Fatal(err)
	}
	dumps.Store(n, buf.Bytes())
	return buf.Bytes()
}

// BenchmarkDecode reads the dump of a cluster (kube/tools/bigdump: one
// DaemonSet, its revisions, n nodes with one pod each) with Load, and
// with client-go's codecs as a client of the API server decodes a List
// (the List, then each item typed): the yardstick. Besides the wall time
// it reports the process's CPU time per decode (cpu-ns/op), which a
// machine loaded with other work inflates far less. Without -short it
// also runs at 100,000 nodes (about 590 MB of JSON).
func BenchmarkDecode(b *testing.B) {
	sizes := []int{10000}
	if !testing.Short() {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("nodes=%d/decoder=client-go", n), func(b *testing.B) {
			data := dump(b, n)
			b.SetBytes(int64(len(data)))
			benchkit.ReportCPU(b, func(int) {
				objs, err := bigdump.DecodeTyped(data)
				if err != nil || len(objs) != 2*n+3 {
					b.Fatalf("%d objects, %v", len(objs), err)
				}
			})
		})
		b.Run(fmt.Sprintf("nodes=%d/decoder=load", n), func(b *testing.B) {
			data := dump(b, n)
			b.SetBytes(int64(len(data)))
			benchkit.ReportCPU(b, func(int) {
				objs, err := load.Load(load.Options{}, load.Source{R: bytes.NewReader(data)})
				if err != nil || len(objs.Nodes) != n || len(objs.Pods) != n {
					b.Fatalf("%v", err)
				}
			})
		})
	}
}
