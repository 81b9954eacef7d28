package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileNeverLive: -f is the cluster, read from files, and contacts no
// cluster, as the root help says. diff and simulate given -f FILE holding
// one DaemonSet and nothing else said "-f FILE is required" without a
// kubeconfig, and with one silently read the current context's cluster,
// taking the file as the new spec; both now say what the file lacks and
// how to compare it with the live cluster, and dial nothing.
func TestFileNeverLive(t *testing.T) {
	c := readCase(t, "seed-01")
	objs := objectsOf(t, clusterFile(c))
	dsOnly := filepath.Join(t.TempDir(), "new.yaml")
	if err := os.WriteFile(dsOnly, []byte(ds("ds-x")), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		reason   string
		args     []string
		stdin    string
		kubeconf bool // a cluster is configured
		src      string
	}{
		{"diff, no cluster configured", "the file was given: never '-f FILE is required'", []string{"diff", "-f", dsOnly}, "", false, dsOnly},
		{"diff, a cluster configured", "-f never contacts the cluster of the kubeconfig", []string{"diff", "-f", dsOnly}, "", true, dsOnly},
		{"simulate, a cluster configured", "simulate reads -f as diff does", []string{"simulate", "-f", dsOnly}, "", true, dsOnly},
		{"simulate -f -, a cluster configured", "standard input is a file too", []string{"simulate", "-f", "-"}, ds("ds-x"), true, "standard input"},
		{"diff with --image", "an edit of a DaemonSet without its cluster predicts nothing", []string{"diff", "-f", dsOnly, "--image", "*=x"}, "", true, dsOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r result
			fc := newFakeCluster(t, "37", objs...)
			if tt.kubeconf {
				r = runLive(fc, tt.stdin, tt.args...)
			} else {
				r = runCLI(t, tt.stdin, tt.args...)
			}
			if fc.dials != 0 {
				t.Errorf("%d connections to the cluster (%s)", fc.dials, tt.reason)
			}
			if r.code != exitUsage || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q; want %d and nothing (%s)", r.code, r.stdout, exitUsage, tt.reason)
			}
			for _, want := range []string{"-f " + tt.src + " holds one DaemonSet and no node, pod or ControllerRevision", "--ds-file"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q lacks %q (%s)", r.stderr, want, tt.reason)
				}
			}
			if strings.Contains(r.stderr, "is required") {
				t.Errorf("stderr %q asks for what was given (%s)", r.stderr, tt.reason)
			}
		})
	}
}
