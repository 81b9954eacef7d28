// Command bigdump writes the dump daemonplan's decoding is measured on: one
// DaemonSet, its revisions, and -nodes nodes with one pod each, as
// `kubectl get ds,nodes,pods,controllerrevisions -o json` prints them.
// With -decode FILE it instead decodes FILE with client-go's codecs and
// exits: the yardstick `daemonplan plan -f FILE` is measured against.
//
//	go run ./tools/bigdump -nodes 100000 > /tmp/dump.json
//	go build -o /tmp/bigdump ./tools/bigdump && /usr/bin/time -v /tmp/bigdump -decode /tmp/dump.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/daemonplan/daemonplan/kube/internal/bigdump"
)

func main() {
	nodes := flag.Int("nodes", 100000, "how many nodes (and pods)")
	decode := flag.String("decode", "", "decode this file with client-go's codecs instead, and print how many objects it holds")
	flag.Parse()
	if *decode != "" {
		data, err := os.ReadFile(*decode)
		if err != nil {
			fail(err)
		}
		objs, err := bigdump.DecodeTyped(data)
		if err != nil {
			fail(err)
		}
		fmt.Println(len(objs), "objects")
		return
	}
	if err := bigdump.Write(os.Stdout, *nodes); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bigdump:", err)
	os.Exit(1)
}
