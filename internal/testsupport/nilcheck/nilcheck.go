// Package nilcheck checks that exported functions do not panic on nil
// arguments their documentation does not forbid. It is a test helper shared
// by the modules of this repository; it imports only the standard library.
package nilcheck

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Run checks the exported functions and methods of the packages in dirs
// (directories relative to the test's working directory) against calls,
// which maps "pkg.Func" or "pkg.Type.Method" to a call of it with nil for
// every nilable argument (pointer, slice, map, func, interface; a pointer
// receiver included):
//
//  1. every exported function or method of dirs that takes a nilable
//     argument has an entry in calls;
//  2. each call either returns, or panics while the function's
//     documentation, or for a method its receiver type's, says "must not be
//     nil" or "nil *Type"; the panic message then starts with "pkg.Func: "
//     ("pkg.Type.Method: " for a method), unless the type's documentation
//     says that a nil *Type's methods panic.
func Run(t *testing.T, dirs []string, calls map[string]func()) {
	t.Helper()
	funcs, docs := exportedNilable(t, dirs)
	for _, name := range funcs {
		if _, ok := calls[name]; !ok {
			t.Errorf("%s takes a nilable argument and is not in the table of nil calls", name)
		}
	}
	names := make([]string, 0, len(calls))
	for name := range calls {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			msg, panicked := callRecover(calls[name])
			if !panicked {
				return
			}
			d := strings.Join(strings.Fields(docs[name]), " ")
			if !strings.Contains(d, "must not be nil") && !strings.Contains(d, "nil *") {
				t.Fatalf("panics on nil (%s) but its documentation does not forbid nil", msg)
			}
			parts := strings.Split(name, ".")
			prefix := parts[0] + "." + parts[len(parts)-1] + ": "
			if len(parts) == 3 {
				prefix = name + ": "
			}
			if !strings.HasPrefix(msg, prefix) && !strings.Contains(d, "nil *"+parts[1]) {
				t.Errorf("panics with %q, want a message starting %q", msg, prefix)
			}
		})
	}
}

func callRecover(f func()) (msg string, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			msg, panicked = fmt.Sprint(r), true
		}
	}()
	f()
	return "", false
}

// exportedNilable lists, from the source, the exported functions and
// methods of dirs that take a pointer, slice, map, func or interface
// (receivers included), and returns the documentation of every exported
// function and method, with the receiver type's documentation appended for
// methods.
func exportedNilable(t *testing.T, dirs []string) ([]string, map[string]string) {
	var out []string
	docs := map[string]string{}
	for _, dir := range dirs {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			files := make([]*ast.File, 0, len(p.Files))
			for _, f := range p.Files {
				files = append(files, f)
			}
			dp, err := doc.NewFromFiles(fset, files, "x/"+filepath.Base(dir), doc.PreserveAST|doc.AllDecls)
			if err != nil {
				t.Fatal(err)
			}
			pkg := p.Name
			add := func(name string, fd *ast.FuncDecl, d string) {
				docs[name] = d
				if nilableFunc(fd) {
					out = append(out, name)
				}
			}
			for _, f := range dp.Funcs {
				if ast.IsExported(f.Name) {
					add(pkg+"."+f.Name, f.Decl, f.Doc)
				}
			}
			for _, typ := range dp.Types {
				if !ast.IsExported(typ.Name) {
					continue
				}
				for _, f := range typ.Funcs {
					if ast.IsExported(f.Name) {
						add(pkg+"."+f.Name, f.Decl, f.Doc)
					}
				}
				for _, m := range typ.Methods {
					if ast.IsExported(m.Name) {
						add(pkg+"."+typ.Name+"."+m.Name, m.Decl, m.Doc+"\n"+typ.Doc)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out, docs
}

func nilableFunc(fd *ast.FuncDecl) bool {
	if fd.Recv != nil {
		if _, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			return true
		}
	}
	for _, f := range fd.Type.Params.List {
		switch t := f.Type.(type) {
		case *ast.StarExpr, *ast.MapType, *ast.FuncType, *ast.InterfaceType, *ast.ChanType, *ast.Ellipsis:
			return true
		case *ast.ArrayType:
			if t.Len == nil {
				return true
			}
		case *ast.Ident:
			if t.Name == "error" || t.Name == "any" {
				return true
			}
		}
	}
	return false
}
