package selector

import "github.com/daemonplan/daemonplan/internal/base/decimal"

// parseInt64 parses s exactly like strconv.ParseInt(s, 10, 64) but reports
// failure with a bool instead of an allocated *strconv.NumError, so that
// matching Gt and Lt requirements never allocates:
//
//  1. An optional '+' or '-' sign, then one or more ASCII digits; nothing
//     else (no spaces, no underscores, no "0x").
//  2. The value must fit in an int64.
func parseInt64(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg = true
		s = s[1:]
	}
	return decimal.Magnitude(s, neg)
}
