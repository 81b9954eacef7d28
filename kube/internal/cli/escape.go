package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// printable returns s unchanged when it is valid UTF-8, every rune is
// printable (strconv.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space) and it does not begin with a double quote;
// otherwise s as a Go string literal, quotes included (strconv.Quote).
//
// Names come from the snapshot, and the API server is not the only
// writer of snapshots: a node named "a\nb" would end a table row and
// forge the next, and ESC or CR would move the terminal's cursor. The
// quotes say the cell is escaped, so "\n" cannot be read as the two
// characters of a name, and strconv.Unquote gives the name back exactly;
// a name that itself begins with a double quote is quoted too, so that a
// cell beginning with one is always a Go string.
func printable(s string) string {
	if s == "" || s[0] != '"' && utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	return strconv.Quote(s)
}

func notPrint(r rune) bool { return !strconv.IsPrint(r) }

// escapeRunes escapes, in place and without quotes, each rune of s that
// printable would not leave as it is (each invalid byte as \xNN): for
// messages, where a quoted whole would be harder to read than a name
// escaped within them.
func escapeRunes(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// table writes aligned columns through a tabwriter. Everything it writes
// goes through printable, a cell at a time or a line at a time: a name
// can neither end a row nor a cell, nor reach the terminal as a control
// sequence, whatever column it is printed in.
type table struct {
	tw *tabwriter.Writer
}

// newTable aligns columns padding spaces apart, as kubectl's tables.
func newTable(w io.Writer, padding int) *table {
	return &table{tabwriter.NewWriter(w, 0, 4, padding, ' ', 0)}
}

// row writes one row: each cell, formatted as fmt.Sprint does, is escaped
// by printable.
func (t *table) row(cells ...any) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(t.tw, "\t")
		}
		io.WriteString(t.tw, printable(fmt.Sprint(c)))
	}
	io.WriteString(t.tw, "\n")
}

// line writes s, escaped by printable, as a line of its own; a line
// without cells ends a block of aligned rows.
func (t *table) line(s string) {
	io.WriteString(t.tw, printable(s)+"\n")
}

// blank writes an empty line, which separates sections.
func (t *table) blank() { io.WriteString(t.tw, "\n") }

func (t *table) flush() error { return t.tw.Flush() }
