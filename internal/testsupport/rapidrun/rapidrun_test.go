package rapidrun

import (
	"flag"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestConfigure(t *testing.T) {
	tests := []struct {
		name, reason string
		args         []string
		env          map[string]string
		want         string
	}{
		{name: "default", reason: "no fail file unless asked for", want: "true"},
		{name: "asked on the command line", reason: "-rapid.nofailfile=false writes fail files",
			args: []string{"-" + Flag + "=false"}, want: "false"},
		{name: "asked in the environment", reason: "rapid read RAPID_NOFAILFILE already: the flag keeps its value",
			env: map[string]string{Env: "false"}, want: "false"},
		{name: "refused explicitly", reason: "-rapid.nofailfile stays true",
			args: []string{"-" + Flag}, want: "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			v := fs.Bool(Flag, false, "")
			if b, ok := tt.env[Env]; ok { // as rapid's init does
				*v, _ = strconv.ParseBool(b)
			}
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			lookup := func(k string) (string, bool) { s, ok := tt.env[k]; return s, ok }
			if err := Configure(fs, lookup); err != nil {
				t.Fatalf("Configure: %v", err)
			}
			if got := fs.Lookup(Flag).Value.String(); got != tt.want {
				t.Errorf("%s = %s, want %s (%s)", Flag, got, tt.want, tt.reason)
			}
		})
	}
	if err := Configure(flag.NewFlagSet("none", flag.ContinueOnError), os.LookupEnv); err == nil {
		t.Error("Configure without rapid's flag: no error")
	}
}

// TestEveryRapidPackage: every directory of both modules whose Go files
// import pgregory.net/rapid has a TestMain that calls rapidrun.Main (or
// Configure), so that
// no property failure leaves a fail file behind.
func TestEveryRapidPackage(t *testing.T) {
	// The repository: this package is internal/testsupport/rapidrun.
	root := filepath.Join("..", "..", "..")
	uses := map[string]bool{}  // directory → imports rapid
	mains := map[string]bool{} // directory → TestMain calls rapidrun.Main
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		for _, im := range f.Imports {
			if im.Path.Value == `"pgregory.net/rapid"` {
				uses[dir] = true
			}
		}
		if strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), "func TestMain(") && (strings.Contains(string(src), "rapidrun.Main(") || strings.Contains(string(src), "rapidrun.Configure(")) {
				mains[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) < 10 {
		t.Fatalf("found %d directories that use rapid; is the walk rooted at the repository?", len(uses))
	}
	for dir := range uses {
		if !mains[dir] {
			t.Errorf("%s uses pgregory.net/rapid without a TestMain that calls rapidrun.Main or Configure", dir)
		}
	}
}
