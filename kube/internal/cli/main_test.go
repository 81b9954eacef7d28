package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests off any cluster of the machine's kubeconfig:
// KUBECONFIG names a file that does not exist, so a command without -f
// finds no cluster, as on a machine without one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	os.Unsetenv("KUBERNETES_SERVICE_HOST")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
