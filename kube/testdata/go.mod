// This go.mod only keeps kube/testdata (the conformance cases, about 25 MB)
// out of the kube module's zip: a directory with its own go.mod is not part
// of the enclosing module. It holds no Go packages and is never published
// or required; the kube tests read the files from the checkout.
module github.com/daemonplan/daemonplan/kube/testdata

go 1.25.0
