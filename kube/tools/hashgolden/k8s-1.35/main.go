// Command k8s-1.35 writes kube/upstream's layout and golden hashes for
// Kubernetes 1.35; see package hashgolden.
package main

import "github.com/daemonplan/daemonplan/kube/tools/hashgolden"

func main() { hashgolden.Main("1.35") }
