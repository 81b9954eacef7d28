package yamlcost_test

import (
	"errors"
	"testing"

	"github.com/daemonplan/daemonplan/kube/internal/yamlcost"
)

// TestAliasBytes: what aliases add, counted as documented (a scalar is its
// length plus one, a collection one plus what it holds), with nested
// aliases expanded and each anchored value measured once.
func TestAliasBytes(t *testing.T) {
	tests := []struct {
		name, reason, doc string
		limit             int64
		want              int64
		err               error
	}{
		{"no alias", "nothing to add", "a: b\nc: [d, e]\n", 100, 0, nil},
		{"no alias, not YAML", "a document that cannot hold an alias is not parsed: the decoder reports it", "a: [\n", 100, 0, nil},
		{"an ampersand in a URL", "not an anchor: no tree is built", "u: http://h/?a=1&b=2\nv: x*y\n", 100, 0, nil},
		{"one alias of a scalar", "abc is 3 bytes plus one", "a: &x abc\nb: *x\n", 100, 4, nil},
		{"a sequence aliased twice", "[a, bb] is 1 + 2 + 3 bytes, twice", "a: &x [a, bb]\nb: *x\nc: *x\n", 100, 12, nil},
		{"nested aliases", "y holds x twice: 1 + 2*(3+1) = 9 bytes", "a: &x abc\nb: &y [*x, *x]\nc: *y\n", 100, 8 + 9, nil},
		{"a merge key", "the merged mapping counts as an alias: 1 + (1+1) + (1+1) bytes", "a: &m {k: v}\nb:\n  <<: *m\n", 100, 5, nil},
		{"beyond the limit", "the walk stops just above the limit", "a: &x abcdefghij\nb: [*x, *x, *x]\n", 20, 21, nil},
		{"an alias to itself", "no decoder can expand it", "a: &x [b, *x]\n", 100, 0, yamlcost.ErrSelfAlias},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := yamlcost.AliasBytes([]byte(tt.doc), tt.limit)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Fatalf("AliasBytes = %d, %v; want %d, %v (%s)", got, err, tt.want, tt.err, tt.reason)
			}
		})
	}
}
