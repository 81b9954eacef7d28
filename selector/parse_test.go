package selector

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/field"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		want   string // canonical String of the result
	}{
		{"empty", "the empty string selects everything", "", ""},
		{"blanks", "blanks alone are empty", " \t\r\n", ""},
		{"equals", "k=v", "a=b", "a=b"},
		{"double equals", "k==v keeps its operator", "a==b", "a==b"},
		{"not equals", "k!=v", "a!=b", "a!=b"},
		{"in", "set membership", "a in (x,y)", "a in (x,y)"},
		{"notin", "set exclusion", "a notin (x)", "a notin (x)"},
		{"exists", "a bare key is Exists", "a", "a"},
		{"does not exist", "!key is DoesNotExist", "!a", "!a"},
		{"gt", "k>n is Gt", "a>5", "a>5"},
		{"lt", "k<n is Lt", "a<5", "a<5"},
		{"gt leading zeros", "the value is kept as written", "a>007", "a>007"},
		{"spaces around operators", "blanks separate tokens anywhere", " a = b , c != d ", "a=b,c!=d"},
		{"tabs and newlines", "tab, CR and LF are blanks too", "a\tin\r\n(x)", "a in (x)"},
		{"no space before paren", "'(' ends the word 'in'", "a in(x)", "a in (x)"},
		{"values sorted and deduplicated", "values form a set", "a in (y,x,y)", "a in (x,y)"},
		{"requirements sorted", "requirements are sorted by key", "b=1,a=2", "a=2,b=1"},
		{"same key sorted by operator", "ties on key are broken by operator", "a notin (x),a", "a,a notin (x)"},
		{"upstream example", "the example of labels.Parse's doc", "x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"},
		{"empty set", "() is the set of the empty value", "a in ()", "a in ()"},
		{"lone comma", "(,) is the set of the empty value", "a in (,)", "a in ()"},
		{"trailing comma", "(b,) adds the empty value", "a in (b,)", "a in (,b)"},
		{"leading comma", "(,b) adds the empty value", "a notin (,b)", "a notin (,b)"},
		{"many commas", "(b,,,c) adds the empty value once", "a in (b,,,c)", "a in (,b,c)"},
		{"only commas", "(,,) is the empty value, as parsed since Kubernetes v1.35 (v1.34 refused it)", "a in (,,)", "a in ()"},
		{"missing exact value", "k= requires the empty value", "a=", "a="},
		{"missing exact value then more", "a missing value before ','", "a!=,b", "a!=,b"},
		{"in as key and value", "'in' and 'notin' are words outside operator position", "in in (in,notin)", "in in (in,notin)"},
		{"notin as key", "'notin' as a key", "notin=in", "notin=in"},
		{"negated keyword", "!in is DoesNotExist on key 'in'", "!in", "!in"},
		{"prefixed key", "keys may have a DNS prefix", "example.com/app=web", "example.com/app=web"},
		{"NUL ends input at token start", "upstream's lexer stops at a NUL where a token would start", "a=b \x00c", "a=b"},
		{"NUL after symbol", "a NUL right after a token is swallowed", "a=\x00b", "a=b"},
		{"max length value", "63-character values are fine", "a=" + strings.Repeat("v", 63), "a=" + strings.Repeat("v", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error = %v, want none (%s)", tt.in, err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, s.String()); diff != "" {
				t.Errorf("Parse(%q).String() mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
			back, err := Parse(s.String())
			if err != nil || !back.Equal(s) {
				t.Errorf("Parse(%q) = %v, %v; want a selector equal to %v", s.String(), back, err, s)
			}
		})
	}
}

func TestParseMatches(t *testing.T) {
	s, err := Parse("app in (web,api), tier!=db, !legacy, cores>4, gen<10, env")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, reason string
		labels       labels
		want         bool
	}{
		{"all hold", "every requirement holds", labels{"app": "web", "cores": "8", "gen": "3", "env": ""}, true},
		{"tier absent ok", "!= holds when the key is absent", labels{"app": "api", "cores": "5", "gen": "9", "env": "x"}, true},
		{"tier db", "!= fails on the value", labels{"app": "api", "tier": "db", "cores": "5", "gen": "9", "env": "x"}, false},
		{"legacy present", "!legacy fails even with an empty value", labels{"app": "web", "cores": "8", "gen": "3", "env": "", "legacy": ""}, false},
		{"cores equal", "Gt is strict", labels{"app": "web", "cores": "4", "gen": "3", "env": ""}, false},
		{"gen not a number", "Lt needs an integer label", labels{"app": "web", "cores": "8", "gen": "v3", "env": ""}, false},
		{"env absent", "a bare key needs the key", labels{"app": "web", "cores": "8", "gen": "3"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Matches(tt.labels); got != tt.want {
				t.Errorf("%v.Matches(%v) = %v, want %v (%s)", s, tt.labels, got, tt.want, tt.reason)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		offset int
		// errs are the requirement problems, nil for syntax errors.
		errs []errRow
	}{
		{"in without paren", "a set needs '('", "a in x", 5, nil},
		{"unclosed set", "a set needs ')'", "a in (x", 7, nil},
		{"set without comma", "values are separated by ','", "a in (x y)", 8, nil},
		{"nested parens", "'(' is not a value", "a in ((x))", 6, nil},
		{"two words", "a key is followed by an operator, ',' or the end", "a b", 2, nil},
		{"key with space", "spaces split words", "bad key=x", 4, nil},
		{"chained equals", "one value per requirement", "a=b=c", 3, nil},
		{"trailing comma", "a ',' needs a requirement after it", "a=b,", 4, nil},
		{"double comma", "empty requirements are not allowed", "a,,b", 2, nil},
		{"leading comma", "the input cannot start with ','", ",a", 0, nil},
		{"negated with operator", "!key takes no operator", "!a=b", 2, nil},
		{"lone bang", "'!' needs a key", "!", 1, nil},
		{"bang bang", "'!!' is two tokens", "!!a", 1, nil},
		{"bang after key", "'!' alone is not a binary operator", "a!", 1, nil},
		{"notin without set", "notin needs a set", "a notin", 7, nil},
		{"triple equals", "'===' is '==' then '='", "a===b", 3, nil},
		{"less or equal", "'<=' is '<' then '='", "a<=5", 2, nil},
		{"paren first", "a selector starts with a key or '!'", "(a)", 0, nil},
		{"nothing marker", "String of the zero Selector does not parse", NothingString, 0, nil},
		{"NUL inside word", "a NUL ends a word, the rest is another word", "a=b\x00c", 4, nil},
		{"bad key", "keys are validated", "-a=b", 0, []errRow{{field.TypeInvalid, "key", "-a"}}},
		{"bad negated key", "keys of !key are validated", "!a/b/c", 0, []errRow{{field.TypeInvalid, "key", "a/b/c"}}},
		{"bad value", "values are validated", "a=-b", 0, []errRow{{field.TypeInvalid, "values[0]", "-b"}}},
		{"bad set value", "set values are validated, indexed in input order", "a in (ok,b@d)", 0, []errRow{{field.TypeInvalid, "values[1]", "b@d"}}},
		{"too long value", "values have at most 63 characters", "a=" + strings.Repeat("v", 64), 0, []errRow{{field.TypeInvalid, "values[0]", strings.Repeat("v", 64)}}},
		{"gt without value", "Gt needs an integer; the missing value is ''", "a>", 0, []errRow{{field.TypeInvalid, "values[0]", ""}}},
		{"gt word", "Gt needs an integer", "a>b", 0, []errRow{{field.TypeInvalid, "values[0]", "b"}}},
		{"gt negative", "-1 parses but is not a label value", "a>-1", 0, []errRow{{field.TypeInvalid, "values[0]", "-1"}}},
		{"lt float", "1.5 is not an integer", " a<1.5", 1, []errRow{{field.TypeInvalid, "values[0]", "1.5"}}},
		{"lt plus", "+5 parses but is not a label value", "a<+5", 0, []errRow{{field.TypeInvalid, "values[0]", "+5"}}},
		{"gt overflow", "beyond int64", "a>9223372036854775808", 0, []errRow{{field.TypeInvalid, "values[0]", "9223372036854775808"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.in)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, %v; want a *ParseError (%s)", tt.in, s, err, tt.reason)
			}
			if !s.MatchesNothing() {
				t.Errorf("Parse(%q) returned %v with its error, want the zero Selector", tt.in, s)
			}
			if diff := cmp.Diff(tt.errs, rows(pe.Errs)); diff != "" {
				t.Errorf("Parse(%q) requirement errors mismatch (-want +got):\n%s", tt.in, diff)
			}
			if pe.Offset != tt.offset {
				t.Errorf("Parse(%q) offset = %d, want %d (error %v)", tt.in, pe.Offset, tt.offset, err)
			}
			if !strings.Contains(err.Error(), "offset") || pe.Input != tt.in {
				t.Errorf("error %q does not say where", err)
			}
		})
	}
}
