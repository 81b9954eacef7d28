// A program outside the daemonplan repository: it imports the kube module
// as a user would after `go get github.com/daemonplan/daemonplan/kube@VERSION`.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/daemonplan/daemonplan/kube/kubesync"
	"github.com/daemonplan/daemonplan/kube/load"
)

func main() {
	f, err := os.Open("cluster.yaml")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	c, err := load.Read(f)
	if err != nil {
		panic(err)
	}
	p, err := kubesync.Sync(c, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), kubesync.State{}, kubesync.Options{})
	if err != nil {
		panic(err)
	}
	for _, cr := range p.Create {
		fmt.Println("create on", cr.Node)
	}
	fmt.Println("desired", p.Status.DesiredNumberScheduled)
}
