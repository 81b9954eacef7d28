package enum

import "testing"

// TestName: a named value prints its name; one out of the table, negative
// or with an empty entry prints as its type and number.
func TestName(t *testing.T) {
	names := []string{"Zero", "", "Two"}
	for _, tc := range []struct {
		v    int
		want string
	}{
		{0, "Zero"}, {2, "Two"}, {1, "Kind(1)"}, {3, "Kind(3)"}, {-1, "Kind(-1)"},
	} {
		if got := Name(names, tc.v, "Kind"); got != tc.want {
			t.Errorf("Name(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
