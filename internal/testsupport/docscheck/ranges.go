package docscheck

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// indexRow is a row of the docs index table: "| [manage.md](manage.md) |
// M1–M16 | …".
var indexRow = regexp.MustCompile(`(?m)^\| \[([a-z0-9-]+\.md)\]\([a-z0-9-]+\.md\) \| ([^|]*) \|`)

// CheckIndex checks the rule ranges the index page (docs/README.md, text
// readme) gives for each page against the rules the pages define: for a
// page of lettered rules, one range "M1–M16" per prefix, from its lowest to
// its highest number ("M3" alone when one rule); "—" for a page without
// rules. Pages numbered by section (progressive-delivery.md) are not
// checked. Every page must have a row, or a link from the index's text.
func CheckIndex(readme string, pages map[string]string) []Problem {
	const file = "docs/README.md"
	ix := newIndex(pages)
	var out []Problem
	listed := map[string]bool{}
	for _, m := range indexRow.FindAllStringSubmatchIndex(readme, -1) {
		name := "docs/" + readme[m[2]:m[3]]
		given := strings.TrimSpace(readme[m[4]:m[5]])
		line := lineOf(readme, m[0])
		listed[name] = true
		if _, ok := pages[name]; !ok {
			out = append(out, Problem{file, line, fmt.Sprintf("lists %s, which does not exist", name)})
			continue
		}
		if len(ix.pages[name].numeric) > 0 {
			continue
		}
		if want := ix.ranges(name); given != want {
			out = append(out, Problem{file, line, fmt.Sprintf("gives %s the rules %q; it defines %q", name, given, want)})
		}
	}
	for name := range pages {
		if !listed[name] && name != file && !strings.Contains(readme, "]("+strings.TrimPrefix(name, "docs/")+")") {
			out = append(out, Problem{file, 1, fmt.Sprintf("has no row for %s", name)})
		}
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ranges is what page defines, as the index writes it: a range per
// prefix, in the order the prefixes first appear on the page, or "—".
func (ix *index) ranges(page string) string {
	type span struct {
		first  int // line of the first definition
		lo, hi int
	}
	spans := map[string]*span{}
	var order []string
	for rule, locs := range ix.lettered {
		for _, l := range locs {
			if l.page != page {
				continue
			}
			m := splitID.FindStringSubmatch(rule)
			n, _ := strconv.Atoi(rule[len(m[1]):])
			s := spans[m[1]]
			if s == nil {
				s = &span{first: l.line, lo: n, hi: n}
				spans[m[1]] = s
				order = append(order, m[1])
			}
			s.first, s.lo, s.hi = min(s.first, l.line), min(s.lo, n), max(s.hi, n)
		}
	}
	if len(order) == 0 {
		return "—"
	}
	slices.SortFunc(order, func(a, b string) int { return spans[a].first - spans[b].first })
	parts := make([]string, len(order))
	for i, p := range order {
		s := spans[p]
		parts[i] = fmt.Sprintf("%s%d–%s%d", p, s.lo, p, s.hi)
		if s.lo == s.hi {
			parts[i] = fmt.Sprintf("%s%d", p, s.lo)
		}
	}
	return strings.Join(parts, ", ")
}
