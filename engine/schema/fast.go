package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"unicode/utf8"
)

// Most tool schemas are a flat object of typed scalar properties. For those, Prepare
// takes a fast path that checks the input directly, without the general validator,
// which allocates as it walks. The fast path only ever says "valid": an input it
// does not accept, for any reason, goes through the general path, which gives the
// same answer the suite-checked validator gives and words the errors. A schema with
// any keyword outside the fast path's (nesting, $ref, patterns, formats, ...) has no
// fast plan at all.

// typeSet is a set of JSON types, as bits.
type typeSet uint8

const (
	typeString typeSet = 1 << iota
	typeNumber
	typeInteger
	typeBoolean
	typeNull
	anyScalar = typeString | typeNumber | typeInteger | typeBoolean | typeNull
)

var typeNames = map[string]typeSet{
	"string": typeString, "number": typeNumber, "integer": typeInteger, "boolean": typeBoolean, "null": typeNull,
}

// scalarPlan checks one property: a scalar of the allowed types, in the bounds.
type scalarPlan struct {
	name     string
	types    typeSet
	coerce   []string // the type names, for coerceString; nil when a string is allowed
	hasEnum  bool     // an enum, possibly empty (which nothing satisfies)
	enum     []any
	min, max *float64
	xmin     *float64 // exclusiveMinimum
	xmax     *float64 // exclusiveMaximum
	minLen   int
	maxLen   int // -1: none
	dflt     any // a scalar default, or nil
	hasDflt  bool
	required bool
}

// objectPlan is the fast plan of a root object schema.
type objectPlan struct {
	props       []scalarPlan // in name order
	closed      bool         // additionalProperties: false
	nRequired   int
	requiredSet map[string]bool
}

var (
	rootKeywords     = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true, "description": true, "title": true, "$schema": true, "$comment": true}
	propertyKeywords = map[string]bool{"type": true, "description": true, "title": true, "default": true, "enum": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true, "maxLength": true,
		"examples": true, "$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true}
	fastDrafts = map[string]bool{
		"": true,
		"https://json-schema.org/draft/2020-12/schema": true,
		"https://json-schema.org/draft/2019-09/schema": true,
		"http://json-schema.org/draft-07/schema#":      true,
		"http://json-schema.org/draft-07/schema":       true,
	}
)

// newObjectPlan returns the fast plan of a root schema (as decoded from its JSON), or
// nil when it has none.
func newObjectPlan(doc any) *objectPlan {
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil
	}
	for k := range root {
		if !rootKeywords[k] {
			return nil
		}
	}
	if s, ok := root["$schema"]; ok {
		if str, _ := s.(string); !fastDrafts[str] {
			return nil
		}
	}
	p := &objectPlan{requiredSet: map[string]bool{}}
	switch ap := root["additionalProperties"].(type) {
	case nil:
	case bool:
		p.closed = !ap
	default:
		return nil
	}
	props, _ := root["properties"].(map[string]any)
	if root["properties"] != nil && props == nil {
		return nil
	}
	if req, ok := root["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			return nil
		}
		for _, r := range list {
			name, ok := r.(string)
			if !ok {
				return nil
			}
			if _, declared := props[name]; !declared {
				return nil // required but undeclared: leave it to the general path
			}
			p.requiredSet[name] = true
		}
	}
	p.nRequired = len(p.requiredSet)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sp, ok := newScalarPlan(name, props[name])
		if !ok {
			return nil
		}
		sp.required = p.requiredSet[name]
		p.props = append(p.props, sp)
	}
	return p
}

func newScalarPlan(name string, v any) (scalarPlan, bool) {
	sp := scalarPlan{name: name, types: anyScalar, maxLen: -1}
	s, ok := v.(map[string]any)
	if !ok {
		return sp, false
	}
	for k := range s {
		if !propertyKeywords[k] {
			return sp, false
		}
	}
	switch t := s["type"].(type) {
	case nil:
		// Untyped: any value, of which the plan accepts scalars (objects and arrays
		// take the general path).
	case string:
		if typeNames[t] == 0 {
			return sp, false
		}
		sp.types = typeNames[t]
		sp.coerce = []string{t}
	case []any:
		sp.types = 0
		for _, x := range t {
			name, _ := x.(string)
			if typeNames[name] == 0 {
				return sp, false
			}
			sp.types |= typeNames[name]
			sp.coerce = append(sp.coerce, name)
		}
	default:
		return sp, false
	}
	if sp.types&typeString != 0 {
		sp.coerce = nil
	}
	number := func(k string) (*float64, bool) {
		x, ok := s[k]
		if !ok {
			return nil, true
		}
		f, ok := jsonNumber(x)
		return &f, ok
	}
	var ok1, ok2, ok3, ok4 bool
	sp.min, ok1 = number("minimum")
	sp.max, ok2 = number("maximum")
	sp.xmin, ok3 = number("exclusiveMinimum")
	sp.xmax, ok4 = number("exclusiveMaximum")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return sp, false
	}
	for k, dst := range map[string]*int{"minLength": &sp.minLen, "maxLength": &sp.maxLen} {
		x, ok := s[k]
		if !ok {
			continue
		}
		f, ok := jsonNumber(x)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return sp, false
		}
		*dst = int(f)
	}
	if e, ok := s["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return sp, false
		}
		sp.hasEnum = true
		for _, x := range list {
			x, ok := scalarValue(x)
			if !ok {
				return sp, false
			}
			sp.enum = append(sp.enum, x)
		}
	}
	if d, ok := s["default"]; ok {
		d, ok := scalarValue(d)
		// The general path fills a default and then validates it: a default the
		// property refuses leaves that to it.
		if !ok || !sp.accepts(d) {
			return sp, false
		}
		sp.dflt, sp.hasDflt = d, true
	}
	return sp, true
}

// jsonNumber reads a number of a decoded schema. A number float64 cannot hold
// exactly is refused: the validator compares exact decimals, and the fast path must
// never disagree with it.
func jsonNumber(x any) (float64, bool) {
	switch n := x.(type) {
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return 0, false
		}
		exact, ok := new(big.Rat).SetString(string(n))
		if !ok || exact.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			return 0, false
		}
		return f, true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

// scalarValue converts a scalar of a decoded schema to the value model; objects and
// arrays are not scalars.
func scalarValue(x any) (any, bool) {
	switch v := x.(type) {
	case nil, bool, string:
		return v, true
	case json.Number, float64:
		f, ok := jsonNumber(v)
		return f, ok
	}
	return nil, false
}

// prepare coerces and fills defaults as the general path does, and reports whether
// the result is certainly valid. When it is not, the input may already hold
// coercions and defaults; the general path applies them again to the same effect.
func (p *objectPlan) prepare(input map[string]any) bool {
	known := 0 // keys of input that are declared properties, given or filled
	for i := range p.props {
		sp := &p.props[i]
		v, ok := input[sp.name]
		if !ok {
			if sp.required {
				return false
			}
			if sp.hasDflt {
				input[sp.name] = sp.dflt
				known++
			}
			continue
		}
		known++
		if s, isString := v.(string); isString && sp.coerce != nil {
			v = coerceString(sp.coerce, s)
			input[sp.name] = v
		}
		if !sp.accepts(v) {
			return false
		}
	}
	if p.closed && known != len(input) {
		return false
	}
	return true
}

// accepts reports whether v satisfies the property's type, enum and bounds.
func (sp *scalarPlan) accepts(v any) bool {
	switch x := v.(type) {
	case string:
		if sp.types&typeString == 0 {
			return false
		}
		if sp.minLen > 0 || sp.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if n < sp.minLen || (sp.maxLen >= 0 && n > sp.maxLen) {
				return false
			}
		}
	case float64:
		isInt := x == math.Trunc(x)
		if sp.types&typeNumber == 0 && !(isInt && sp.types&typeInteger != 0) {
			return false
		}
		if (sp.min != nil && x < *sp.min) || (sp.max != nil && x > *sp.max) ||
			(sp.xmin != nil && x <= *sp.xmin) || (sp.xmax != nil && x >= *sp.xmax) {
			return false
		}
	case bool:
		if sp.types&typeBoolean == 0 {
			return false
		}
	case nil:
		if sp.types&typeNull == 0 {
			return false
		}
	default:
		return false
	}
	if sp.hasEnum {
		for _, e := range sp.enum {
			if e == v {
				return true
			}
		}
		return false
	}
	return true
}
