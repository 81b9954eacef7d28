package selector

import (
	"fmt"
	"strconv"

	"github.com/daemonplan/daemonplan/api"
	"github.com/daemonplan/daemonplan/field"
)

// ParseError is why [Parse] rejected its input: either a syntax error at a
// byte offset (an unknown operator is one), or a well-formed requirement
// whose key or values are invalid (then Errs lists every problem, with
// paths relative to the requirement: "key", "values[1]").
type ParseError struct {
	Input  string          // the whole input
	Offset int             // byte offset of the offending token
	Msg    string          // what was found and what was expected
	Errs   field.ErrorList // problems of an invalid requirement; nil for syntax errors
}

// Error renders the problem with its position, e.g.
// `selector "a in x": offset 5: found "x", expected "("`.
func (e *ParseError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("selector %q: offset %d: %s", e.Input, e.Offset, e.Msg)
}

// Unwrap returns Errs (as an error) when there are any.
func (e *ParseError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Errs.ToError()
}

// Parse reads a selector in the kubectl -l syntax, accepting exactly what
// apimachinery's labels.Parse accepts:
//
//	selector    = [ requirement { "," requirement } ]
//	requirement = [ "!" ] KEY
//	            | KEY ( "=" | "==" | "!=" | ">" | "<" ) [ VALUE ]
//	            | KEY ( "in" | "notin" ) "(" [ VALUE ] { "," [ VALUE ] } ")"
//
// Rules:
//
//  1. "" (or only blanks) is the selector that matches everything.
//  2. Tokens may be separated by blanks (space, tab, CR, LF), which are
//     otherwise ignored. A NUL byte ends the input where a token would
//     start and ends a token inside it (upstream's lexer does the same).
//  3. "k" means Exists, "!k" DoesNotExist, "k=v" and "k==v" equality, "k!=v"
//     inequality (true when k is absent), "k in (a,b)" and "k notin (a,b)"
//     set membership, "k>5" and "k<5" Gt and Lt.
//  4. A missing VALUE is the empty string: "k=" requires k to be "", and
//     "k in ()" or "k in (a,)" include "". "in" and "notin" are ordinary
//     words where a key or value is expected ("in in (notin)").
//  5. KEY must be a valid label key and each VALUE a valid label value;
//     the value of ">" and "<" must also be a base-10 int64 (so "-1" is
//     rejected: label values start with an alphanumeric character).
//  6. Values are sorted and deduplicated; requirements are sorted (see
//     [Selector.Requirements]).
//
// Errors are [*ParseError] values; Parse never panics.
func Parse(s string) (Selector, error) {
	p := parser{in: s, toks: lex(s)}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, err
	}
	return newSelector(reqs), nil
}

type tokenKind int

const (
	tokEnd tokenKind = iota + 1
	tokIdent
	tokIn    // the word "in"
	tokNotIn // the word "notin"
	tokNot   // "!"
	tokEq    // "="
	tokDEq   // "=="
	tokNEq   // "!="
	tokGt    // ">"
	tokLt    // "<"
	tokOpen  // "("
	tokClose // ")"
	tokComma // ","
)

type token struct {
	kind tokenKind
	text string
	off  int
}

// describe renders a token for an error message.
func (t token) describe() string {
	if t.kind == tokEnd {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

var symbolKinds = map[string]tokenKind{
	"!": tokNot, "=": tokEq, "==": tokDEq, "!=": tokNEq, ">": tokGt, "<": tokLt,
	"(": tokOpen, ")": tokClose, ",": tokComma,
}

// lex splits s into tokens, ending with a tokEnd token.
func lex(s string) []token {
	var toks []token
	i := 0
	for {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		if i == len(s) || s[i] == 0 {
			return append(toks, token{kind: tokEnd, off: i})
		}
		start := i
		var kind tokenKind
		if isSymbol(s[i]) {
			// The only two-byte symbols are "==" and "!=".
			if (s[i] == '=' || s[i] == '!') && i+1 < len(s) && s[i+1] == '=' {
				i += 2
			} else {
				i++
			}
			kind = symbolKinds[s[start:i]]
		} else {
			for i < len(s) && s[i] != 0 && !isBlank(s[i]) && !isSymbol(s[i]) {
				i++
			}
			switch s[start:i] {
			case "in":
				kind = tokIn
			case "notin":
				kind = tokNotIn
			default:
				kind = tokIdent
			}
		}
		toks = append(toks, token{kind: kind, text: s[start:i], off: start})
		if i < len(s) && s[i] == 0 {
			i++ // a NUL right after a token is swallowed with it
		}
	}
}

type parser struct {
	in   string
	toks []token
	pos  int
}

// word turns the keywords "in" and "notin" into identifiers, which they are
// everywhere but in operator position.
func word(t token) token {
	if t.kind == tokIn || t.kind == tokNotIn {
		t.kind = tokIdent
	}
	return t
}

// peek returns the next token, keywords read as identifiers.
func (p *parser) peek() token { return word(p.toks[p.pos]) }

// next consumes the next token, keywords read as identifiers.
func (p *parser) next() token { return word(p.nextRaw()) }

// nextRaw consumes the next token as lexed. It never moves past tokEnd.
func (p *parser) nextRaw() token {
	t := p.toks[p.pos]
	if t.kind != tokEnd {
		p.pos++
	}
	return t
}

func (p *parser) fail(t token, expected string) error {
	return &ParseError{Input: p.in, Offset: t.off, Msg: "found " + t.describe() + ", expected " + expected}
}

func (p *parser) parse() ([]requirement, error) {
	var reqs []requirement
	for {
		t := p.peek()
		switch t.kind {
		case tokEnd:
			return reqs, nil
		case tokIdent, tokNot:
		default:
			return nil, p.fail(t, `"!", a key or the end of input`)
		}
		r, err := p.requirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		switch t := p.next(); t.kind {
		case tokEnd:
			return reqs, nil
		case tokComma:
			if t2 := p.peek(); t2.kind != tokIdent && t2.kind != tokNot {
				return nil, p.fail(t2, `"!" or a key after ","`)
			}
		default:
			return nil, p.fail(t, `"," or the end of input`)
		}
	}
}

// requirement parses one requirement and validates it.
func (p *parser) requirement() (requirement, error) {
	start := p.peek()
	t := p.next()
	negated := t.kind == tokNot
	if negated {
		t = p.next()
	}
	if t.kind != tokIdent {
		return requirement{}, p.fail(t, "a key")
	}
	key := t.text
	if errs := field.InvalidEach(field.NewPath("key"), key, api.ValidateLabelKey(key)); len(errs) > 0 {
		return requirement{}, p.invalid(start, key, errs)
	}
	if negated {
		return newRequirement(key, api.SelectorOpDoesNotExist, nil), nil
	}
	if k := p.peek().kind; k == tokEnd || k == tokComma {
		return newRequirement(key, api.SelectorOpExists, nil), nil
	}
	var op api.SelectorOperator
	switch t := p.nextRaw(); t.kind {
	case tokIn:
		op = api.SelectorOpIn
	case tokNotIn:
		op = api.SelectorOpNotIn
	case tokEq:
		op = Equals
	case tokDEq:
		op = DoubleEquals
	case tokNEq:
		op = NotEquals
	case tokGt:
		op = api.SelectorOpGt
	case tokLt:
		op = api.SelectorOpLt
	default:
		return requirement{}, p.fail(t, `one of "in", "notin", "=", "==", "!=", ">", "<"`)
	}
	var values []string
	var err error
	if op == api.SelectorOpIn || op == api.SelectorOpNotIn {
		values, err = p.valueSet()
	} else {
		values, err = p.exactValue()
	}
	if err != nil {
		return requirement{}, err
	}
	if errs := validateParsedValues(op, values); len(errs) > 0 {
		return requirement{}, p.invalid(start, key, errs)
	}
	return newRequirement(key, op, values), nil
}

func (p *parser) invalid(at token, key string, errs field.ErrorList) error {
	return &ParseError{Input: p.in, Offset: at.off, Msg: "invalid requirement on key " +
		strconv.Quote(key) + ": " + errs.Error(), Errs: errs}
}

// validateParsedValues checks the values of a parsed requirement: each must
// be a label value, and the value of Gt and Lt an int64. (The parser always
// yields at least one value, and exactly one for the single-value
// operators.)
func validateParsedValues(op api.SelectorOperator, values []string) field.ErrorList {
	vp := field.NewPath("values")
	var errs field.ErrorList
	if op == api.SelectorOpGt || op == api.SelectorOpLt {
		for i, v := range values {
			if _, ok := parseInt64(v); !ok {
				errs = append(errs, field.Invalid(vp.Index(i), v,
					"for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	}
	return append(errs, api.ValidateLabelValues(vp, values)...)
}

// exactValue parses the value after "=", "==", "!=", ">" or "<"; a missing
// one is "".
func (p *parser) exactValue() ([]string, error) {
	if k := p.peek().kind; k == tokEnd || k == tokComma {
		return []string{""}, nil
	}
	t := p.next()
	if t.kind != tokIdent {
		return nil, p.fail(t, "a value")
	}
	return []string{t.text}, nil
}

// valueSet parses "(" values ")". Empty places in the list ("()", "(,a)",
// "(a,,b)", "(a,)") stand for the empty value, exactly as upstream reads
// them.
func (p *parser) valueSet() ([]string, error) {
	if t := p.next(); t.kind != tokOpen {
		return nil, p.fail(t, `"("`)
	}
	switch t := p.peek(); t.kind {
	case tokClose:
		p.next()
		return []string{""}, nil
	case tokIdent, tokComma:
	default:
		return nil, p.fail(t, `",", ")" or a value`)
	}
	var values []string
	for {
		switch t := p.next(); t.kind {
		case tokIdent:
			values = append(values, t.text)
			switch t2 := p.peek(); t2.kind {
			case tokComma:
			case tokClose:
				p.next()
				return values, nil
			default:
				return nil, p.fail(t2, `"," or ")"`)
			}
		case tokComma:
			if len(values) == 0 {
				values = append(values, "") // "(,"
			}
			switch p.peek().kind {
			case tokClose:
				p.next()
				return append(values, ""), nil // ",)"
			case tokComma:
				// ",,": the empty value. The second comma is left for the
				// next turn, so "(,,)" parses as it does since Kubernetes
				// v1.35 (v1.34's parser consumed it and then rejected ")").
				values = append(values, "")
			}
		default:
			return nil, p.fail(t, `"," or a value`)
		}
	}
}

// The operators that exist only in the string syntax ("key=value",
// "key==value", "key!=value"): Equals and DoubleEquals mean In with one
// value, NotEquals NotIn with one value. [Compile] and [FromSet] use Equals for
// matchLabels pairs.
const (
	Equals       api.SelectorOperator = "="
	DoubleEquals api.SelectorOperator = "=="
	NotEquals    api.SelectorOperator = "!="
)
