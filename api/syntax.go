package api

import (
	"strconv"
	"strings"
)

// Length limits of label syntax (docs/validation.md, V7).
const (
	// MaxLabelNameLength is the longest name part of a label key, and the
	// longest label value.
	MaxLabelNameLength = 63
	// MaxDNS1123SubdomainLength is the longest label key prefix.
	MaxDNS1123SubdomainLength = 253
)

// The wording of the problems is apimachinery's as of v0.37 (Kubernetes
// 1.37, the default target): label keys and values in bytes (its content
// package), object names in characters (util/validation), examples
// joined as apimachinery joins them ("'MyName',  or 'my.name'").
// kube/differential compares every message.
const (
	nameCharsMsg = "must consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character " +
		"(e.g. 'MyName',  or 'my.name',  or '123-abc', " +
		"regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	valueCharsMsg = "a valid label must be an empty string or consist of alphanumeric characters, " +
		"'-', '_' or '.', and must start and end with an alphanumeric character " +
		"(e.g. 'MyValue',  or 'my_value',  or '12345', " +
		"regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	subdomainCharsMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " +
		"characters, '-' or '.', and must start and end with an alphanumeric character " +
		"(e.g. 'example.com', regex used for validation is " +
		"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	tooManySlashesMsg = "a valid label key " + nameCharsMsg +
		" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
	emptyMsg = "must be non-empty"
)

// maxLenMsg is the length problem of an object name; maxBytesMsg that of
// a label key or value and of a label key's prefix.
func maxLenMsg(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " characters"
}

func maxBytesMsg(n int) string {
	return "must be no more than " + strconv.Itoa(n) + " bytes"
}

// ValidateLabelKey reports what is wrong with key as a label key (a
// Kubernetes "qualified name"), or nil when it is valid:
//
//  1. A key is [prefix "/"] name; more than one "/" is invalid.
//  2. The name is 1 to 63 characters of [A-Za-z0-9-_.], starting and ending
//     with an alphanumeric character.
//  3. The prefix, when the "/" is present, is a non-empty DNS-1123 subdomain
//     (see [IsDNS1123Subdomain]).
//
// The same rules apply to node selector requirement keys.
func ValidateLabelKey(key string) []string {
	var probs []string
	name := key
	switch strings.Count(key, "/") {
	case 0:
	case 1:
		var prefix string
		prefix, name, _ = strings.Cut(key, "/")
		if prefix == "" {
			probs = append(probs, "prefix part "+emptyMsg)
		} else {
			for _, p := range subdomainProblems(prefix, maxBytesMsg) {
				probs = append(probs, "prefix part "+p)
			}
		}
	default:
		return []string{tooManySlashesMsg}
	}
	if name == "" {
		probs = append(probs, "name part "+emptyMsg)
	} else if len(name) > MaxLabelNameLength {
		probs = append(probs, "name part "+maxBytesMsg(MaxLabelNameLength))
	}
	if !isNamePart(name) {
		probs = append(probs, "name part "+nameCharsMsg)
	}
	return probs
}

// ValidateLabelValue reports what is wrong with value as a label value, or
// nil when it is valid:
//
//  1. The empty string is a valid value.
//  2. Otherwise a value has at most 63 characters of [A-Za-z0-9-_.] and starts
//     and ends with an alphanumeric character.
func ValidateLabelValue(value string) []string {
	var probs []string
	if len(value) > MaxLabelNameLength {
		probs = append(probs, maxBytesMsg(MaxLabelNameLength))
	}
	if value != "" && !isNamePart(value) {
		probs = append(probs, valueCharsMsg)
	}
	return probs
}

// IsDNS1123Subdomain reports what is wrong with s as a DNS-1123 subdomain (a
// label key prefix, an object or node name), or nil when it is valid:
//
//  1. At most 253 characters.
//  2. One or more dot-separated labels, each of lowercase alphanumerics and
//     '-', starting and ending with an alphanumeric character.
func IsDNS1123Subdomain(s string) []string { return subdomainProblems(s, maxLenMsg) }

// subdomainProblems is IsDNS1123Subdomain with the length problem worded
// by tooLong: in characters for object names, in bytes for label key
// prefixes, as apimachinery words them.
func subdomainProblems(s string, tooLong func(int) string) []string {
	var probs []string
	if len(s) > MaxDNS1123SubdomainLength {
		probs = append(probs, tooLong(MaxDNS1123SubdomainLength))
	}
	if !isSubdomain(s) {
		probs = append(probs, subdomainCharsMsg)
	}
	return probs
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isNamePart says whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// (any length; the caller checks the limit).
func isNamePart(s string) bool {
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

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// isSubdomain says whether s is one or more dot-separated DNS-1123 labels
// (any length; the caller checks the limit).
func isSubdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}
