// Package namecheck checks that an exported type name means one thing
// across the public packages of both modules: a reader who meets `Planner`
// or `Template` should not have to look at the package to know what it is.
// Its test runs the check on the repository; the package imports only the
// standard library.
package namecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Shared are the type names that more than one package may export, each
// with why it means one thing wherever it appears.
var Shared = map[string]string{
	"Options":    "the switches of the package's entry point, as in the standard library",
	"ParseError": "a syntax error in the text the package parses (a quantity, a selector)",
	"Container":  "a container; resource.Container is the part of one that decides its requests",
	"Pod":        "a pod; timeline.Pod is one as the timeline records it (name, revision, state)",
	"Revision":   "a ControllerRevision; timeline.Revision is one as the timeline records it",
	"Snapshot":   "the objects one sync reads: generated (plantest) or decoded (kube/load)",
	"Planner":    "plans whole snapshots, one sync after another, reusing memory: of the core's types (daemonplan) or of Kubernetes objects (kube/kubesync)",
	"Tracker":    "takes changes one at a time and plans after any of them: the core's types (daemonplan) or informer events (kube/kubetrack)",
}

// mirror is the package whose types are the JSON form of the core's types
// of the same name.
const mirror = "kube/schema"

// skipped are directories whose packages are not public API: internal
// packages, commands and examples, modules of their own, test data.
func skipped(rel string) bool {
	base := filepath.Base(rel)
	return base == "internal" || base == "testdata" || base == "cmd" || base == "examples" ||
		rel == "kube/tools" || rel == "kube/testbed" || strings.HasPrefix(base, ".")
}

// Exported returns, for each exported type name of the public packages
// under root, the packages (directories relative to root) that declare it.
func Exported(root string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skipped(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				if name := spec.(*ast.TypeSpec).Name.Name; ast.IsExported(name) && !slices.Contains(out[name], dir) {
					out[name] = append(out[name], dir)
				}
			}
		}
		return nil
	})
	return out, err
}

// Check returns a finding for every type name exported by two packages or
// more, unless Shared explains it or the second is kube/schema's JSON form
// of the core type.
func Check(exported map[string][]string) []string {
	var out []string
	for name, pkgs := range exported {
		var own []string
		for _, p := range pkgs {
			if p != mirror {
				own = append(own, p)
			}
		}
		if len(own) < 2 || Shared[name] != "" {
			continue
		}
		slices.Sort(own)
		out = append(out, fmt.Sprintf("%s is exported by %s: one name, one meaning (rename one, or say in namecheck.Shared why it means one thing)", name, strings.Join(own, ", ")))
	}
	slices.Sort(out)
	return out
}
