package taints

import (
	"strings"

	"github.com/daemonplan/daemonplan/internal/field"
)

// ValidateTolerations checks tols as the API server checks a pod's
// tolerations (upstream core validation ValidateTolerations) and returns every
// problem found. Paths are relative to the list ("[0].key", "[1].effect");
// callers place them with ErrorList.Prefix, e.g. below
// "spec.template.spec.tolerations". For each toleration, in this order:
//
//  1. A non-empty Key must be a qualified name (a label key): Invalid at
//     ".key", one error per problem.
//  2. An empty Key requires operator Exists: Invalid at ".operator", bad
//     value the operator.
//  3. TolerationSeconds requires effect NoExecute: Invalid at ".effect", bad
//     value the effect.
//  4. With operator "" or Equal the Value must be a valid label value:
//     Invalid at ".operator", bad value the value.
//     With operator Exists the Value must be empty: Invalid at ".operator",
//     bad value the whole toleration.
//     Any other operator, Lt and Gt included (as in v1.34), is NotSupported
//     at ".operator", supported values Equal and Exists.
//  5. A non-empty Effect must be NoSchedule, PreferNoSchedule or NoExecute:
//     NotSupported at ".effect".
//
// Validation does not change or default tols.
func ValidateTolerations(tols []Toleration) field.ErrorList {
	var errs field.ErrorList
	var root *field.Path // nil: paths start at the index
	for i, t := range tols {
		p := root.Index(i)
		if t.Key != "" {
			for _, msg := range qualifiedNameErrors(t.Key) {
				errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
			}
		}
		if t.Key == "" && t.Operator != Exists {
			errs = append(errs, field.Invalid(p.Child("operator"), string(t.Operator),
				"an empty key matches every taint key and requires operator Exists"))
		}
		if t.TolerationSeconds != nil && t.Effect != NoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), string(t.Effect),
				"tolerationSeconds may only be set with effect NoExecute"))
		}
		switch t.Operator {
		case "", Equal:
			if msgs := labelValueErrors(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, "; ")))
			}
		case Exists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), cloneToleration(t),
					"operator Exists matches any value, so value must be empty"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), string(t.Operator),
				string(Equal), string(Exists)))
		}
		if t.Effect != "" && effectBit(t.Effect) == bitOther {
			errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect),
				string(NoSchedule), string(PreferNoSchedule), string(NoExecute)))
		}
	}
	return errs
}

// Limits of label keys and values (apimachinery validation).
const (
	maxNameLen   = 63
	maxPrefixLen = 253
)

const nameRule = "must consist of alphanumeric characters, '-', '_' or '.', " +
	"and must start and end with an alphanumeric character"

// qualifiedNameErrors returns the problems of key as a qualified name
// ([prefix/]name), nil when it is valid. Like upstream, an empty name part
// gets both the "empty" and the "syntax" message.
func qualifiedNameErrors(key string) []string {
	var errs []string
	name := key
	if prefix, rest, found := strings.Cut(key, "/"); found {
		if strings.Contains(rest, "/") {
			return []string{"a qualified name must be a name with an optional DNS subdomain " +
				"prefix and a single '/' (e.g. 'example.com/MyName'); name " + nameRule}
		}
		name = rest
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, msg := range subdomainErrors(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > maxNameLen {
		errs = append(errs, "name part must be no more than 63 bytes")
	}
	if !isNameSyntax(name) {
		errs = append(errs, "name part "+nameRule)
	}
	return errs
}

// labelValueErrors returns the problems of v as a label value: empty, or a
// name of at most 63 bytes.
func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > maxNameLen {
		errs = append(errs, "must be no more than 63 bytes")
	}
	if v != "" && !isNameSyntax(v) {
		errs = append(errs, "a label value must be empty or "+strings.TrimPrefix(nameRule, "must "))
	}
	return errs
}

// isNameSyntax reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func isNameSyntax(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// subdomainErrors returns the problems of s as a lowercase RFC 1123 subdomain:
// at most 253 bytes of dot-separated labels of lowercase alphanumerics and
// '-', each starting and ending with an alphanumeric.
func subdomainErrors(s string) []string {
	var errs []string
	if len(s) > maxPrefixLen {
		errs = append(errs, "must be no more than 253 bytes")
	}
	ok := true
	for _, label := range strings.Split(s, ".") {
		if !isDNSLabelSyntax(label) {
			ok = false
			break
		}
	}
	if !ok {
		errs = append(errs, "must be a lowercase RFC 1123 subdomain: lowercase alphanumeric "+
			"characters, '-' or '.', starting and ending with an alphanumeric character (e.g. 'example.com')")
	}
	return errs
}

// isDNSLabelSyntax reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])?.
func isDNSLabelSyntax(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLowerAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
