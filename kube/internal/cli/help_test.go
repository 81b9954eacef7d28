package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// runAs runs the command as name ("daemonplan" or "kubectl daemonplan").
func runAs(name string, args ...string) result {
	var out, errOut bytes.Buffer
	c := &cli{name: name, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		now: func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }}
	code := c.run(args)
	return result{code, out.String(), errOut.String()}
}

// commandPaths lists the path of every command under root, root itself as
// nil, the hidden help command left out.
func commandPaths(root *cobra.Command) [][]string {
	paths := [][]string{nil}
	var walk func(cmd *cobra.Command, path []string)
	walk = func(cmd *cobra.Command, path []string) {
		for _, sub := range cmd.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			p := append(append([]string(nil), path...), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(root, nil)
	return paths
}

// TestHelpNamesTheCommand checks every help page under both names the
// command is installed as: the kubectl plugin is "kubectl daemonplan", as
// kubectl's plugin convention has it, never "kubectl plan" (cobra takes a
// command's name from the first word of its Use), which would name a
// kubectl command that does not exist or a different one (kubectl explain).
func TestHelpNamesTheCommand(t *testing.T) {
	root := (&cli{name: "daemonplan"}).root()
	paths := commandPaths(root)
	if len(paths) < 10 {
		t.Fatalf("found %d commands, want every command and rollout's subcommands: %q", len(paths), paths)
	}
	for _, name := range []string{"daemonplan", "kubectl daemonplan"} {
		for _, path := range paths {
			full := strings.TrimSpace(name + " " + strings.Join(path, " "))
			t.Run(full, func(t *testing.T) {
				got := runAs(name, append(append([]string(nil), path...), "--help")...)
				if got.code != exitOK || got.stderr != "" {
					t.Fatalf("exit %d, stderr %q; want 0 and nothing", got.code, got.stderr)
				}
				usage := section(got.stdout, "Usage:")
				if len(usage) == 0 {
					t.Fatalf("no Usage: section:\n%s", got.stdout)
				}
				for _, l := range usage {
					if !strings.HasPrefix(strings.TrimSpace(l), full) {
						t.Errorf("usage line %q does not start with %q", l, full)
					}
				}
				for _, l := range strings.Split(got.stdout, "\n") {
					if strings.HasPrefix(l, "Use \"") && !strings.HasPrefix(l, "Use \""+name+" ") {
						t.Errorf("%q does not name %q", l, name)
					}
				}
				if len(path) > 0 {
					// A usage that names the command again without its
					// prefix ("| explain NODE -f FILE") reads as a
					// command of its own: kubectl explain is a real one.
					bare := regexp.MustCompile(`[|(]\s*` + regexp.QuoteMeta(path[len(path)-1]) + ` `)
					for _, l := range usage {
						if bare.MatchString(strings.TrimPrefix(strings.TrimSpace(l), full)) {
							t.Errorf("usage line %q names %q without %q", l, path[len(path)-1], name)
						}
					}
				}
				if strings.Contains(got.stdout, "help for kubectl\n") {
					t.Errorf("-h's help says \"help for kubectl\":\n%s", got.stdout)
				}
			})
		}
	}
}

// section returns the indented lines under the heading line title, up to
// the first blank line.
func section(text, title string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != title {
			continue
		}
		var out []string
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) == "" {
				break
			}
			out = append(out, l)
		}
		return out
	}
	return nil
}

// TestHelpShowsOwnFlags checks that a command's help lists its own flags
// and leaves kubectl's connection flags, the same for every command, to
// "daemonplan options", as kubectl leaves its own to "kubectl options":
// twenty lines of --as-uid and --tls-server-name buried each page's flags.
func TestHelpShowsOwnFlags(t *testing.T) {
	root := (&cli{name: "daemonplan"}).root()
	for _, name := range []string{"daemonplan", "kubectl daemonplan"} {
		for _, path := range commandPaths(root) {
			full := strings.TrimSpace(name + " " + strings.Join(path, " "))
			t.Run(full, func(t *testing.T) {
				got := runAs(name, append(append([]string(nil), path...), "--help")...)
				for _, global := range []string{"--kubeconfig string", "--as-uid string", "--tls-server-name string", "Global Flags:"} {
					if strings.Contains(got.stdout, global) {
						t.Errorf("help lists %q:\n%s", global, got.stdout)
					}
				}
				if want := `Use "` + name + ` options" for a list of global command-line options (applies to all commands).`; !strings.Contains(got.stdout, want) {
					t.Errorf("help lacks %q:\n%s", want, got.stdout)
				}
				if !strings.Contains(got.stdout, "-h, --help") {
					t.Errorf("help lacks the command's own -h:\n%s", got.stdout)
				}
			})
		}
	}
	// Each command's own flags are still there.
	for cmd, flag := range map[string]string{"plan": "-o, --output", "explain": "-f, --filename", "overhead": "--node-file", "diff": "--taint", "simulate": "--html"} {
		if got := runAs("daemonplan", cmd, "--help"); !strings.Contains(got.stdout, flag) {
			t.Errorf("%s --help lacks %q:\n%s", cmd, flag, got.stdout)
		}
	}
	got := runAs("kubectl daemonplan", "options")
	if got.code != exitOK {
		t.Fatalf("options: exit %d, stderr %q", got.code, got.stderr)
	}
	for _, want := range []string{"The following options can be passed to any command:", "--kubeconfig string", "-n, --namespace string", "--context string"} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("options lacks %q:\n%s", want, got.stdout)
		}
	}
	// The global flags still work on every command.
	if got := runAs("daemonplan", "plan", "-f", "testdata/diff-node-agent.yaml", "-n", "kube-system", "--kubeconfig", "/nonexistent", "-o", "name"); got.code != exitOK {
		t.Errorf("plan with -n and --kubeconfig: exit %d, stderr %q", got.code, got.stderr)
	}
}
