package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The loader reads a JSON value in one pass: it walks the structure of
// Lists and the few header fields of each object with the small scanner
// below, which copies nothing, and hands each object's bytes once to the
// typed decoder, which validates them. Values the scanner only skips (a
// List's metadata) are checked with json.Valid, so that malformed input is
// never accepted.

// errTruncated reports a value that ends before it is complete.
var errTruncated = errors.New("unexpected end of JSON input")

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just after the string starting at d[i]
// (a '"').
func skipString(d []byte, i int) (int, error) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errTruncated
}

// skipValue returns the index just after the value starting at d[i], which
// is not whitespace. Objects and arrays are skipped by counting brackets
// outside strings; whoever decodes the value validates it.
func skipValue(d []byte, i int) (int, error) {
	if i >= len(d) {
		return 0, errTruncated
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				end, err := skipString(d, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errTruncated
	case '}', ']', ',', ':':
		return 0, fmt.Errorf("invalid character %q looking for beginning of value", d[i])
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(d) {
		switch d[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n', '{', '[', '"', ':':
			return j, nil
		}
		j++
	}
	return j, nil
}

// member is one member of a JSON object: its key, unquoted, and its value's
// bytes.
type member struct {
	key   string
	value []byte
}

// fields returns the members of the object d (trimmed, starting with '{'),
// in order, without decoding their values; a key given twice is listed
// twice.
func fields(d []byte) ([]member, error) {
	var out []member
	i := skipSpace(d, 1)
	if i < len(d) && d[i] == '}' {
		return out, trailing(d, i+1)
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return nil, syntaxError(d)
		}
		end, err := skipString(d, i)
		if err != nil {
			return nil, syntaxError(d)
		}
		key, err := unquote(d[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return nil, syntaxError(d)
		}
		i = skipSpace(d, i+1)
		vend, err := skipValue(d, i)
		if err != nil {
			return nil, syntaxError(d)
		}
		out = append(out, member{key: key, value: d[i:vend]})
		i = skipSpace(d, vend)
		if i >= len(d) {
			return nil, syntaxError(d)
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case '}':
			return out, trailing(d, i+1)
		default:
			return nil, syntaxError(d)
		}
	}
}

// elements calls fn with each element of the array d (trimmed, starting
// with '['), in order.
func elements(d []byte, fn func(i int, v []byte) error) error {
	i := skipSpace(d, 1)
	if i < len(d) && d[i] == ']' {
		return trailing(d, i+1)
	}
	for n := 0; ; n++ {
		end, err := skipValue(d, i)
		if err != nil {
			return syntaxError(d)
		}
		if err := fn(n, d[i:end]); err != nil {
			return err
		}
		i = skipSpace(d, end)
		if i >= len(d) {
			return syntaxError(d)
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case ']':
			return trailing(d, i+1)
		default:
			return syntaxError(d)
		}
	}
}

// trailing refuses anything but whitespace after index i of d.
func trailing(d []byte, i int) error {
	if skipSpace(d, i) != len(d) {
		return syntaxError(d)
	}
	return nil
}

// unquote decodes the JSON string s (with its quotes).
func unquote(s []byte) (string, error) {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s[1 : len(s)-1]), nil
	}
	var out string
	err := json.Unmarshal(s, &out)
	return out, err
}

// syntaxError is the standard library's description of what is wrong with
// the JSON value d, for a value the scanner could not walk.
func syntaxError(d []byte) error {
	var v json.RawMessage
	if err := json.Unmarshal(d, &v); err != nil {
		return err
	}
	return errors.New("malformed JSON value")
}
