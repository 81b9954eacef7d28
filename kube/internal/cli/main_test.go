package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/daemonplan/daemonplan/internal/testsupport/rapidrun"
)

// TestMain keeps the tests off any cluster of the machine's kubeconfig:
// KUBECONFIG names a file that does not exist, so a command without -f
// finds no cluster, as on a machine without one. rapid's fail files are
// off unless asked for (docs/development.md, "Property tests").
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	os.Unsetenv("KUBERNETES_SERVICE_HOST")
	flag.Parse()
	if err := rapidrun.Configure(flag.CommandLine, os.LookupEnv); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
