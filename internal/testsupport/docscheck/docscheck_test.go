package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository: this package is internal/testsupport/docscheck.
const root = "../../.."

// TestRepository runs the check on docs/*.md and on every .go and .md file
// of both modules: every rule ID is defined once, every citation resolves.
func TestRepository(t *testing.T) {
	pages := map[string]string{}
	sources := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, ".md") ||
			strings.HasPrefix(rel, "internal/testsupport/docscheck/") { // its examples cite pages that do not exist
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sources[rel] = string(b)
		if strings.HasPrefix(rel, "docs/") && strings.Count(rel, "/") == 1 && strings.HasSuffix(rel, ".md") {
			pages[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d pages under %s/docs, want the rule pages", len(pages), root)
	}
	for _, p := range Check(pages, sources) {
		t.Error(p)
	}
}

// TestCheck: what the check accepts, and each kind of finding.
func TestCheck(t *testing.T) {
	pages := map[string]string{
		"docs/a.md": "# A\n\n**A1. One.** text\n\n- **A2. Two.** text\n\n## A3. Three\n\n" +
			"See A1–A3 and A4.\n\n## Worked examples\n",
		"docs/b.md": "# B\n\n**B1. One.**\n\n**A2. Again.**\n\n## 7. Zones\n\n7.2. Groups.\n",
	}
	sources := map[string]string{
		"ok.go": "// (docs/a.md, A1) (docs/a.md, A1–A3) (docs/a.md, A1, A2-A3)\n" +
			"// (docs/a.md, A3.4 and A1) (docs/b.md, 7.2) (docs/b.md, B1)\n" +
			"// (docs/a.md,\n// A2 and A3) (docs/a.md, \"Worked examples\") docs/b.md states it\n",
		"bad.go": "// (docs/a.md, A9)\n// (docs/a.md, B1)\n// (docs/c.md, C1)\n" +
			"// (docs/a.md, A3–A1)\n// (docs/b.md, 7.3)\n// (docs/a.md, \"Nothing\")\n" +
			"// (docs/a.md,\n// A1 and A5)\n",
	}
	var got []string
	for _, p := range Check(pages, sources) {
		got = append(got, p.String())
	}
	want := []string{
		"bad.go:1: cites docs/a.md, A9: no page defines A9",
		"bad.go:2: cites docs/a.md, B1: B1 is defined on docs/b.md",
		"bad.go:3: cites docs/c.md, which does not exist",
		"bad.go:4: cites docs/a.md, range A3–A1 does not go up",
		"bad.go:5: cites docs/b.md, 7.3: the page has no rule 7.3",
		`bad.go:6: cites docs/a.md, "Nothing": no such heading`,
		"bad.go:7: cites docs/a.md, A5: no page defines A5",
		"docs/a.md:5: rule A2 is defined 2 times: docs/a.md:5, docs/b.md:5",
		"docs/a.md:9: names A4, which no page defines",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFindsCitations: the repository's citations are seen, so that a pass
// of TestRepository means something.
func TestFindsCitations(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "whatif", "whatif.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(citation.FindAllString(string(b), -1))
	if n == 0 {
		t.Fatal("no citation found in whatif/whatif.go")
	}
}

// TestIndexRanges: the index page gives each page the rule ranges it
// defines, and lists every page.
func TestIndexRanges(t *testing.T) {
	pages := map[string]string{}
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		pages["docs/"+filepath.Base(n)] = string(b)
	}
	for _, p := range CheckIndex(pages["docs/README.md"], pages) {
		t.Error(p)
	}
}

// TestCheckIndex: a range that stops short of the page's last rule, a
// page without a row, and a row for a page that does not exist.
func TestCheckIndex(t *testing.T) {
	pages := map[string]string{
		"docs/a.md":      "**A1. One.**\n\n**A2. Two.**\n\n## B1. Three\n",
		"docs/b.md":      "no rules\n",
		"docs/README.md": "",
	}
	readme := "| [a.md](a.md) | A1–A1, B1 | x |\n| [c.md](c.md) | — | y |\n"
	got := CheckIndex(readme, pages)
	want := []string{
		`docs/README.md:1: gives docs/a.md the rules "A1–A1, B1"; it defines "A1–A2, B1"`,
		`docs/README.md:1: has no row for docs/b.md`,
		`docs/README.md:2: lists docs/c.md, which does not exist`,
	}
	var msgs []string
	for _, p := range got {
		msgs = append(msgs, p.String())
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckIndex:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}
