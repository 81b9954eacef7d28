// Package field holds the validation error type shared by every daemonplan
// package: a list of problems, each tied to a Kubernetes-style field path
// (spec.selector.matchExpressions[0].values) and a machine-readable type.
//
// Callers inspect paths, types and bad values with errors.As on an
// [ErrorList] instead of parsing messages. Messages render as Kubernetes
// renders them: "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value:
// "abc%": ...".
package field

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is a field path under construction. The zero value is the empty path.
// Paths are immutable: Child and Index return new paths.
type Path struct {
	parent *Path
	name   string // field name; empty for an index or key step
	index  string // rendered "[i]" or "[key]"
}

// NewPath returns the path rooted at name, e.g. NewPath("spec").
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name}
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child returns the path to a named field below p.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{parent: p, name: name}
	for _, m := range more {
		c = c.Child(m)
	}
	return c
}

// Index returns the path to element i of the list at p.
func (p *Path) Index(i int) *Path {
	return &Path{parent: p, index: "[" + strconv.Itoa(i) + "]"}
}

// Key returns the path to the map entry k of the map at p.
func (p *Path) Key(k string) *Path {
	return &Path{parent: p, index: "[" + k + "]"}
}

// String renders the path as Kubernetes does: dots between names, brackets
// for indexes and keys. A nil path renders as "".
func (p *Path) String() string {
	if p == nil {
		return ""
	}
	var steps []*Path
	for q := p; q != nil; q = q.parent {
		steps = append(steps, q)
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if s.index != "" {
			b.WriteString(s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// ErrorType says what kind of problem an [Error] reports. The names and
// rendered strings follow k8s.io/apimachinery/pkg/util/validation/field.
type ErrorType int

// The error types. The zero value is not a valid type.
const (
	TypeRequired     ErrorType = iota + 1 // a required value is missing
	TypeInvalid                           // the value is malformed or out of range
	TypeNotSupported                      // the value is not one of the supported ones
	TypeForbidden                         // the field may not be set here
	TypeDuplicate                         // the value appears twice where it must be unique
	TypeTooLong                           // the value is longer than allowed
)

// String returns the type's name as used in JSON plans ("Invalid", ...).
func (t ErrorType) String() string {
	switch t {
	case TypeRequired:
		return "Required"
	case TypeInvalid:
		return "Invalid"
	case TypeNotSupported:
		return "NotSupported"
	case TypeForbidden:
		return "Forbidden"
	case TypeDuplicate:
		return "Duplicate"
	case TypeTooLong:
		return "TooLong"
	}
	return "ErrorType(" + strconv.Itoa(int(t)) + ")"
}

// phrase is the wording Kubernetes uses when it renders an error.
func (t ErrorType) phrase() string {
	switch t {
	case TypeRequired:
		return "Required value"
	case TypeInvalid:
		return "Invalid value"
	case TypeNotSupported:
		return "Unsupported value"
	case TypeForbidden:
		return "Forbidden"
	case TypeDuplicate:
		return "Duplicate value"
	case TypeTooLong:
		return "Too long"
	}
	return t.String()
}

// Error is one problem with one field.
type Error struct {
	Type     ErrorType
	Field    string // rendered path, e.g. "spec.selector.matchLabels"
	BadValue any    // the offending value; nil for Required and Forbidden
	Detail   string // human-readable explanation
}

// Error renders the problem as apimachinery does:
// `field: Invalid value: "x": detail`. [Required], [Forbidden] and [TooLong]
// leave the value out; a string is quoted, a number or bool printed as
// is, a nil value printed as null, and any other value as its JSON (or,
// if it has none, its String method or Go syntax).
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Type.phrase())
	if e.Type != TypeRequired && e.Type != TypeForbidden && e.Type != TypeTooLong {
		b.WriteString(": ")
		writeValue(&b, e.BadValue)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// writeValue writes a bad value as apimachinery's ErrorBody renders it.
func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case int64, int32, float64, float32, bool:
		fmt.Fprintf(b, "%v", v)
	case string:
		b.WriteString(strconv.Quote(v))
	default:
		if j, err := json.Marshal(v); err == nil {
			b.Write(j)
		} else if s, ok := v.(fmt.Stringer); ok {
			b.WriteString(s.String())
		} else {
			fmt.Fprintf(b, "%#v", v)
		}
	}
}

// Required reports a missing value at p.
func Required(p *Path, detail string) *Error {
	return &Error{Type: TypeRequired, Field: p.String(), Detail: detail}
}

// Invalid reports a malformed value at p.
func Invalid(p *Path, value any, detail string) *Error {
	return &Error{Type: TypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// InvalidEach reports value as [Invalid] at p once for each detail, in
// order: the form of validators that return every problem as a string
// ([github.com/daemonplan/daemonplan/api.ValidateLabelKey],
// [github.com/daemonplan/daemonplan/api.IsDNS1123Subdomain]). No details, no
// errors.
func InvalidEach(p *Path, value any, details []string) ErrorList {
	var errs ErrorList
	for _, d := range details {
		errs = append(errs, Invalid(p, value, d))
	}
	return errs
}

// NotSupported reports a value at p that is not among supported.
func NotSupported(p *Path, value any, supported ...string) *Error {
	detail := ""
	if len(supported) > 0 {
		q := make([]string, len(supported))
		for i, s := range supported {
			q[i] = strconv.Quote(s)
		}
		detail = "supported values: " + strings.Join(q, ", ")
	}
	return &Error{Type: TypeNotSupported, Field: p.String(), BadValue: value, Detail: detail}
}

// Forbidden reports a field at p that may not be set.
func Forbidden(p *Path, detail string) *Error {
	return &Error{Type: TypeForbidden, Field: p.String(), Detail: detail}
}

// Duplicate reports a repeated value at p.
func Duplicate(p *Path, value any) *Error {
	return &Error{Type: TypeDuplicate, Field: p.String(), BadValue: value}
}

// TooLong reports a value at p longer than max bytes. As in Kubernetes,
// the value is kept in BadValue but not rendered (it may be large).
func TooLong(p *Path, value any, max int) *Error {
	unit := " bytes"
	if max == 1 {
		unit = " byte"
	}
	return &Error{Type: TypeTooLong, Field: p.String(), BadValue: value,
		Detail: "may not be more than " + strconv.Itoa(max) + unit}
}

// ErrorList is every problem found in one input. A nil or empty list means
// no problem; use ToError to turn a list into an error value only when it
// holds something.
type ErrorList []*Error

// Error joins the messages of all problems.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// ToError returns l as an error, or nil when l is empty, so that callers never
// hold a non-nil error that reports nothing.
func (l ErrorList) ToError() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Prefix returns l with every field path placed below prefix (a new list,
// but l itself when prefix is empty or l has no errors), so
// that a package can report paths relative to what it validates and the
// caller can root them ("matchLabels" below "spec.selector" gives
// "spec.selector.matchLabels"; "[0].key" below "spec.template.spec.tolerations"
// gives "spec.template.spec.tolerations[0].key"). l is not changed.
func (l ErrorList) Prefix(prefix string) ErrorList {
	if len(l) == 0 || prefix == "" {
		return l
	}
	out := make(ErrorList, len(l))
	for i, e := range l {
		c := *e
		switch {
		case c.Field == "":
			c.Field = prefix
		case strings.HasPrefix(c.Field, "["):
			c.Field = prefix + c.Field
		default:
			c.Field = prefix + "." + c.Field
		}
		out[i] = &c
	}
	return out
}
