package resource

import (
	"errors"
	"testing"
)

// FuzzParse checks, for arbitrary texts, that Parse never panics and
// fails only with a *ParseError naming the text; that an accepted text's
// printed forms (String and Canonical) parse back to the same value and
// print the same again; that Canonical is a fixed point whatever the
// spelling; and, for a second text with a nearby exponent, that Cmp, Sub
// and Add agree with each other.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"100m", "1.5Gi", "1e3", "1E", "+1", "0001", "1.500", "5.", ".", "-", "Mi",
		"8Ei", "0.0001Ki", "1000E", "1e4294967296", "10e2147483647", "1.5e-2147483648",
		".e-10", ".Pi", "1ki", "1 ", "99999999999999999999", "-1.5n",
	} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		q, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Text != s ||
				!(errors.Is(err, ErrSyntax) || errors.Is(err, ErrNumber) || errors.Is(err, ErrSuffix)) {
				t.Fatalf("Parse(%q) failed with %#v", s, err)
			}
			return
		}
		for _, printed := range []string{q.String(), q.Canonical().String()} {
			back, err := Parse(printed)
			if err != nil {
				t.Fatalf("Parse(%q) prints %q, which does not parse: %v", s, printed, err)
			}
			if back.Cmp(q) != 0 {
				t.Fatalf("Parse(%q) prints %q, which parses to another value", s, printed)
			}
			if back.String() != printed {
				t.Fatalf("Parse(%q) prints %q, which prints as %q", s, printed, back.String())
			}
			if c := back.Canonical().String(); c != q.Canonical().String() {
				t.Fatalf("Parse(%q): canonical %q, but its printed form %q has canonical %q", s, q.Canonical().String(), printed, c)
			}
		}
		y, err := Parse(other)
		if err != nil || abs64(q.exp-y.exp) > 1000 {
			// A sum across a large exponent gap builds a number with that
			// many digits; Cmp alone stays cheap.
			if err == nil {
				_ = q.Cmp(y)
			}
			return
		}
		c := q.Cmp(y)
		if d := q.Sub(y).Sign(); d != c {
			t.Fatalf("Cmp(%q, %q) = %d, but the difference has sign %d", s, other, c, d)
		}
		if back := q.Add(y).Sub(y); back.Cmp(q) != 0 {
			t.Fatalf("%q + %q - %q != %q", s, other, other, s)
		}
		if y.Cmp(q) != -c {
			t.Fatalf("Cmp(%q, %q) = %d but Cmp(%q, %q) = %d", s, other, c, other, s, y.Cmp(q))
		}
	})
}
