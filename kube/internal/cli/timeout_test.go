package cli

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRequestTimeoutDefault: live reads give up on a request after
// --request-timeout, one minute unless the user says otherwise; 0, asked
// for, waits forever, as kubectl's default does.
func TestRequestTimeoutDefault(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		flags  []string
		want   time.Duration
	}{
		{"no flag", "a read-only planner a pipeline runs must not hang on a server that never answers", nil, time.Minute},
		{"a timeout of the user's", "kubectl's flag sets it", []string{"--request-timeout", "5s"}, 5 * time.Second},
		{"zero asked for", "no timeout, only when the user asks for it", []string{"--request-timeout", "0"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			c := &cli{name: "daemonplan", stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
			if code := c.run(append([]string{"plan", "--server", "https://127.0.0.1:1", "--help"}, tt.flags...)); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			cfg, err := c.kube.ToRESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Timeout != tt.want {
				t.Errorf("request timeout %v, want %v (%s)", cfg.Timeout, tt.want, tt.reason)
			}
		})
	}
}

// blackHole is a server that accepts connections and never answers.
func blackHole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestRequestTimeoutBlackHole: against a server that accepts the
// connection and never answers, plan and overhead -A fail after
// --request-timeout, saying that the server did not answer within it and
// which flag changes it; they waited forever.
func TestRequestTimeoutBlackHole(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		args   []string
	}{
		{"plan", "the server's version is the first request", []string{"plan", "ds/agent", "-n", "ns"}},
		{"plan --kubernetes-version", "then the DaemonSet's get", []string{"plan", "ds/agent", "-n", "ns", "--kubernetes-version", "1.37"}},
		{"overhead -A", "every DaemonSet, node and pod listed", []string{"overhead", "-A"}},
	}
	addr := blackHole(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "--server", "http://"+addr, "--request-timeout", "300ms")
			done := make(chan result, 1)
			go func() { done <- runCLIAny(args...) }()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: still waiting after 30 s (%s)", strings.Join(args, " "), tt.reason)
			}
			if r.code != exitError {
				t.Fatalf("exit %d, want %d: %s", r.code, exitError, r.stderr)
			}
			for _, want := range []string{addr, "no answer within --request-timeout 300ms"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q does not say %q (%s)", r.stderr, want, tt.reason)
				}
			}
		})
	}
}
