// Package docscheck checks the numbered rules of docs/*.md against the text
// that cites them: every rule ID is defined on one page only, and every
// citation written as "docs/manage.md, M5" (also "M6–M14", "R3, R8-R9",
// "H9.2 and H12", "7.2" on progressive-delivery.md, a quoted heading)
// names a page that exists and a rule that page defines. Its test runs the
// check on the repository; the package imports only the standard library.
package docscheck

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A Problem is one finding, at a file and line.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

type loc struct {
	page string
	line int
}

// page is what one docs page defines.
type page struct {
	numeric  map[string]bool // "7.2", "7": progressive-delivery.md's numbered rules
	headings []string        // lower-cased heading texts
}

var (
	// A lettered rule is defined in bold at the start of a line or a list
	// item ("**M5. Buckets.**", "- **Q1. Container defaulting**",
	// "- **P1.**") or as a heading ("## T1. The simulated world").
	defLettered = regexp.MustCompile(`(?m)^(?:[-*] +)?\*\*([A-Z]+[0-9]+)[.*]|^#+ +([A-Z]+[0-9]+)\b`)
	// A numbered rule is a section heading ("## 7. Zone-by-zone order") or
	// a paragraph that starts with its number ("7.2. Groups are ranked").
	defNumeric = regexp.MustCompile(`(?m)^#+ +([0-9]+)\. |^([0-9]+\.[0-9]+)\. `)
	heading    = regexp.MustCompile(`(?m)^#+ +(.+)$`)

	// ws is the space inside a citation, which may break across a comment
	// line ("docs/eligibility.md,\n// E3 and E4").
	ws = `[ \t]*(?:\n[ \t]*(?://+|#|>)?[ \t]*)?`
	id = `(?:[A-Z]+[0-9]+(?:\.[0-9]+)?|[0-9]+\.[0-9]+)`
	// citation: the page, then optionally a list of IDs and ranges or a
	// quoted heading.
	citation = regexp.MustCompile(`docs/([a-z0-9-]+)\.md` +
		`(?:,` + ws + `(` + id + `(?:(?:` + ws + `[–-]` + ws + `|,` + ws + `(?:and` + ws + `)?|` + ws + `and` + ws + `)` + id + `)*)\b` +
		`|,` + ws + `"([^"\n]+)")?`)
	item    = regexp.MustCompile(`(` + id + `)(?:` + ws + `[–-]` + ws + `(` + id + `))?`)
	splitID = regexp.MustCompile(`^([A-Z]+)([0-9]+)`)
	bareID  = regexp.MustCompile(`\b([A-Z]{1,2})([0-9]+)\b`)
)

// index is what all pages define.
type index struct {
	lettered map[string][]loc // "M5" → where it is defined
	prefixes map[string]bool  // "M", "Q", …
	pages    map[string]*page // "docs/manage.md" → its numbered rules
}

func lineOf(text string, off int) int { return 1 + strings.Count(text[:off], "\n") }

func newIndex(pages map[string]string) *index {
	ix := &index{lettered: map[string][]loc{}, prefixes: map[string]bool{}, pages: map[string]*page{}}
	for name, text := range pages {
		p := &page{numeric: map[string]bool{}}
		ix.pages[name] = p
		for _, m := range defLettered.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2], m[3]
			if s < 0 {
				s, e = m[4], m[5]
			}
			rule := text[s:e]
			ix.lettered[rule] = append(ix.lettered[rule], loc{name, lineOf(text, m[0])})
			ix.prefixes[splitID.FindStringSubmatch(rule)[1]] = true
		}
		for _, m := range defNumeric.FindAllStringSubmatch(text, -1) {
			p.numeric[m[1]+m[2]] = true
		}
		for _, m := range heading.FindAllStringSubmatch(text, -1) {
			p.headings = append(p.headings, strings.ToLower(m[1]))
		}
	}
	return ix
}

// Check checks the pages (docs/NAME.md → text) and the citations in
// sources (path → text, pages included or not).
func Check(pages, sources map[string]string) []Problem {
	ix := newIndex(pages)
	var out []Problem
	for rule, locs := range ix.lettered {
		if len(locs) > 1 {
			sort.Slice(locs, func(i, j int) bool {
				return locs[i].page < locs[j].page || locs[i].page == locs[j].page && locs[i].line < locs[j].line
			})
			var where []string
			for _, l := range locs {
				where = append(where, fmt.Sprintf("%s:%d", l.page, l.line))
			}
			out = append(out, Problem{locs[0].page, locs[0].line,
				fmt.Sprintf("rule %s is defined %d times: %s", rule, len(locs), strings.Join(where, ", "))})
		}
	}
	for file, text := range sources {
		out = append(out, ix.citations(file, text)...)
	}
	for name, text := range pages {
		out = append(out, ix.bare(name, text)...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Msg < out[j].Msg
	})
	return out
}

// citations checks every "docs/X.md[, IDs]" in one file.
func (ix *index) citations(file, text string) []Problem {
	var out []Problem
	for _, m := range citation.FindAllStringSubmatchIndex(text, -1) {
		name := "docs/" + text[m[2]:m[3]] + ".md"
		line := lineOf(text, m[0])
		p, ok := ix.pages[name]
		if !ok {
			out = append(out, Problem{file, line, fmt.Sprintf("cites %s, which does not exist", name)})
			continue
		}
		if m[6] >= 0 {
			want := strings.ToLower(text[m[6]:m[7]])
			found := false
			for _, h := range p.headings {
				found = found || strings.Contains(h, want)
			}
			if !found {
				out = append(out, Problem{file, line, fmt.Sprintf("cites %s, %q: no such heading", name, text[m[6]:m[7]])})
			}
		}
		if m[4] < 0 {
			continue
		}
		for _, it := range item.FindAllStringSubmatch(text[m[4]:m[5]], -1) {
			for _, rule := range it[1:] {
				if rule == "" {
					continue
				}
				if msg := ix.defines(name, p, rule); msg != "" {
					out = append(out, Problem{file, line, msg})
				}
			}
			if it[2] != "" {
				if msg := badRange(it[1], it[2]); msg != "" {
					out = append(out, Problem{file, line, fmt.Sprintf("cites %s, %s", name, msg)})
				}
			}
		}
	}
	return out
}

// defines says what is wrong with citing rule on page name, or "".
// An item of a rule ("H9.2", "T3.4") resolves when its rule does.
func (ix *index) defines(name string, p *page, rule string) string {
	if rule[0] >= '0' && rule[0] <= '9' {
		if p.numeric[rule] {
			return ""
		}
		return fmt.Sprintf("cites %s, %s: the page has no rule %s", name, rule, rule)
	}
	base := rule
	if i := strings.IndexByte(rule, '.'); i >= 0 {
		base = rule[:i]
	}
	var elsewhere []string
	for _, l := range ix.lettered[base] {
		if l.page == name {
			return ""
		}
		elsewhere = append(elsewhere, l.page)
	}
	if len(elsewhere) > 0 {
		return fmt.Sprintf("cites %s, %s: %s is defined on %s", name, rule, base, strings.Join(elsewhere, ", "))
	}
	return fmt.Sprintf("cites %s, %s: no page defines %s", name, rule, base)
}

// badRange says what is wrong with the range lo–hi of lettered rules, or "".
func badRange(lo, hi string) string {
	a, b := splitID.FindStringSubmatch(lo), splitID.FindStringSubmatch(hi)
	if a == nil || b == nil {
		return ""
	}
	if a[1] != b[1] {
		return fmt.Sprintf("range %s–%s mixes two prefixes", lo, hi)
	}
	if len(a[2]) > len(b[2]) || len(a[2]) == len(b[2]) && a[2] >= b[2] {
		return fmt.Sprintf("range %s–%s does not go up", lo, hi)
	}
	return ""
}

// bare checks the IDs a page names without a page ("(M5)", "E1–E15"):
// one with a rule prefix must be a defined rule.
func (ix *index) bare(file, text string) []Problem {
	var out []Problem
	for _, m := range bareID.FindAllStringSubmatchIndex(text, -1) {
		prefix, rule := text[m[2]:m[3]], text[m[2]:m[5]]
		if ix.prefixes[prefix] && len(ix.lettered[rule]) == 0 {
			out = append(out, Problem{file, lineOf(text, m[0]), fmt.Sprintf("names %s, which no page defines", rule)})
		}
	}
	return out
}
