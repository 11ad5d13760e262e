package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// schemaURL is the base URL of every schema compiled here. References can reach only
// the schema itself and the drafts' metaschemas: the compiler has no file or network
// loader.
const schemaURL = "luatool:///schema.json"

// printer renders the validator's messages.
var printer = message.NewPrinter(language.English)

// A Schema is a compiled JSON Schema. It is immutable and safe for concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	// fast is the plan of Prepare's fast path (fast.go); nil for schemas that
	// have none.
	fast *objectPlan
	// keys are the names of the root's properties, each mapping to itself: the keys
	// a decoded input reuses (jsonvalue.DecodeKeys).
	keys map[string]string
}

// CompileObject compiles a tool's input schema: any JSON Schema (draft 2020-12 unless
// $schema names another) whose root declares type "object".
func CompileObject(schema map[string]any) (*Schema, error) {
	if t, ok := schema["type"]; !ok || t != "object" {
		return nil, errors.New(`the root must be an object schema: add type = "object"`)
	}
	return Compile(schema)
}

// refusingLoader loads nothing: a schema may not reach files or the network.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not available: a schema may refer only to itself and to the JSON Schema drafts", url)
}

// maxSchemaBytes bounds a schema's JSON: compiling takes time and memory in
// proportion, and every model request carries the schema.
const maxSchemaBytes = 1 << 20

// Compile compiles any JSON Schema document (an object or a boolean), with the same
// rules as CompileObject but no constraint on the root: a tool's output schema, a
// schema of the JSON Schema Test Suite.
func Compile(schema any) (*Schema, error) {
	// Compile a copy made through JSON: the validator keeps the document, and must
	// see exactly the JSON the model will see.
	src, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("not a JSON value: %w", err)
	}
	if len(src) > maxSchemaBytes {
		return nil, fmt.Errorf("the schema is %d bytes of JSON, over the limit of %d", len(src), maxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(src)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, errors.New(cleanSchemaError(err))
	}
	return &Schema{compiled: s, fast: newObjectPlan(doc), keys: propertyNames(doc)}, nil
}

// propertyNames returns the names of the properties of a root object schema, each
// mapping to itself; nil for a schema without them.
func propertyNames(doc any) map[string]string {
	root, _ := doc.(map[string]any)
	props, _ := root["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	keys := make(map[string]string, len(props))
	for k := range props {
		keys[k] = k
	}
	return keys
}

// cleanSchemaError words a compile error without the internal URL.
func cleanSchemaError(err error) string {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			var lines []string
			for _, p := range leafErrors(ve, true) {
				lines = append(lines, fmt.Sprintf("at %s: %s", pointerOrRoot(p.InstanceLocation), p.ErrorKind.LocalizedString(printer)))
			}
			return "invalid schema: " + strings.Join(lines, "; ")
		}
	}
	var le *jsonschema.LoadURLError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	msg := strings.ReplaceAll(err.Error(), schemaURL, "schema")
	return strings.TrimPrefix(msg, "jsonschema: ")
}

func pointerOrRoot(loc []string) string {
	if len(loc) == 0 {
		return "the root"
	}
	return "/" + strings.Join(loc, "/")
}

// Keys returns the names of the root's properties, each mapping to itself: the
// keys a decoded input reuses (jsonvalue.DecodeKeys) rather than copying. The map
// must not be modified.
func (s *Schema) Keys() map[string]string { return s.keys }

// Validate reports whether v (a JSON value) conforms. The error, if any, is a
// *ValidationError.
func (s *Schema) Validate(v any) error {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		out, unexpected := problems(s.compiled, ve)
		return &ValidationError{Problems: out, unexpected: unexpected}
	}
	return &ValidationError{Problems: []string{err.Error()}}
}

// DataProblems checks v, a tool's output, and words each problem by its location in
// the data. An empty object where the schema wants an array gets a hint: it is what
// an empty Lua table becomes, and json.array() is the fix.
func (s *Schema) DataProblems(v any) []string {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range leafErrors(ve, false) {
		where := "the data"
		if len(e.InstanceLocation) > 0 {
			where = "`" + displayPath(e.InstanceLocation) + "`"
		}
		msg := fmt.Sprintf("%s: %s", where, e.ErrorKind.LocalizedString(printer))
		if k, ok := e.ErrorKind.(*kind.Type); ok && k.Got == "object" && slices.Contains(k.Want, "array") {
			if m, ok := valueAt(v, e.InstanceLocation).(map[string]any); ok && len(m) == 0 {
				msg += " (an empty Lua table is a JSON object: return json.array() for an empty list)"
			}
		}
		out = append(out, msg)
	}
	return out
}

// valueAt returns the value at an instance location of a JSON value, or nil.
func valueAt(v any, loc []string) any {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// A ValidationError lists what is wrong with an input, one problem a line, in the
// wording of the original system: "The required parameter `x` is missing".
type ValidationError struct {
	Problems []string
	// unexpected names, in the order of Problems, the undeclared top-level
	// properties its "unexpected parameter" problems are about (see OrderUnexpected).
	unexpected []unexpectedProblem
}

// unexpectedProblem is a problem about an undeclared top-level property: its index
// in Problems and the property's name.
type unexpectedProblem struct {
	index int
	name  string
}

func (e *ValidationError) Error() string { return strings.Join(e.Problems, "\n") }

// OrderUnexpected lists the problems about undeclared top-level properties in the
// order of keys, the input's keys as they were sent (jsonvalue.Keys), as the
// original lists them; the validator knows no order, so they come sorted by name
// until then. The other problems keep their places.
func (e *ValidationError) OrderUnexpected(keys []string) {
	if len(e.unexpected) < 2 {
		return
	}
	rank := func(name string) int {
		if i := slices.Index(keys, name); i >= 0 {
			return i
		}
		return len(keys)
	}
	ordered := slices.Clone(e.unexpected)
	slices.SortStableFunc(ordered, func(a, b unexpectedProblem) int { return rank(a.name) - rank(b.name) })
	texts := make([]string, len(ordered))
	for i, u := range ordered {
		texts[i] = e.Problems[u.index]
	}
	for i, u := range e.unexpected {
		e.Problems[u.index] = texts[i]
		e.unexpected[i].name = ordered[i].name
	}
}

// Prepare makes a model's input ready for a call, as the original's schema parse
// does: numeric and boolean strings are coerced where the schema asks for a number,
// an integer or a boolean; absent properties with a default get it; then the result is
// validated. input is modified in place and returned.
func (s *Schema) Prepare(input map[string]any) (map[string]any, error) {
	if s.fast != nil && s.fast.prepare(input) {
		return input, nil
	}
	coerce(s.compiled, input, 0)
	if err := s.Validate(input); err != nil {
		return nil, err
	}
	return input, nil
}

const maxCoerceDepth = 64

// coerce walks v along schema s and returns v with coercions and defaults applied.
func coerce(s *jsonschema.Schema, v any, depth int) any {
	if s == nil || depth > maxCoerceDepth {
		return v
	}
	if s.Ref != nil {
		v = coerce(s.Ref, v, depth+1)
	}
	for _, sub := range s.AllOf {
		v = coerce(sub, v, depth+1)
	}
	switch x := v.(type) {
	case string:
		if s.Types == nil {
			return x
		}
		return coerceString(s.Types.ToStrings(), x)
	case map[string]any:
		for _, name := range sortedSchemaKeys(s.Properties) {
			prop := s.Properties[name]
			if cur, ok := x[name]; ok {
				x[name] = coerce(prop, cur, depth+1)
			} else if d, ok := defaultOf(prop); ok {
				x[name] = d
			}
		}
	case []any:
		for i := range x {
			var item *jsonschema.Schema
			switch {
			case i < len(s.PrefixItems):
				item = s.PrefixItems[i]
			case s.Items2020 != nil:
				item = s.Items2020
			default:
				if is, ok := s.Items.(*jsonschema.Schema); ok {
					item = is
				}
			}
			x[i] = coerce(item, x[i], depth+1)
		}
	}
	return v
}

// coerceString turns "12" into 12 and "true" into true where the schema wants a number,
// an integer or a boolean and does not also accept a string.
func coerceString(types []string, s string) any {
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	if len(types) == 0 || has("string") {
		return s
	}
	if has("number") || has("integer") {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if has("number") || f == math.Trunc(f) {
				return f
			}
		}
	}
	if has("boolean") {
		switch s {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return s
}

func defaultOf(s *jsonschema.Schema) (any, bool) {
	for s != nil && s.Default == nil && s.Ref != nil {
		s = s.Ref
	}
	if s == nil || s.Default == nil {
		return nil, false
	}
	// Copy through JSON so that a call cannot change the schema's own value.
	b, err := json.Marshal(*s.Default)
	if err != nil {
		return nil, false
	}
	d, err := jsonvalue.Decode(b)
	if err != nil {
		return nil, false
	}
	return d, true
}

func sortedSchemaKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// leafErrors flattens a validation error tree to the errors worth reporting: the
// leaves, except that a failed anyOf or oneOf is reported as itself unless
// expandAlternatives is set: for a model's input, listing every branch's complaint
// would mislead; for a schema checked against its metaschema, the branches say what
// was expected. The result is sorted by location, so one input always gets one text.
func leafErrors(ve *jsonschema.ValidationError, expandAlternatives bool) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		alternative := false
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			alternative = true
		}
		if len(e.Causes) == 0 || (alternative && !expandAlternatives) {
			out = append(out, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := strings.Join(out[i].InstanceLocation, "/"), strings.Join(out[j].InstanceLocation, "/")
		if a != b {
			return a < b
		}
		return strings.Join(out[i].ErrorKind.KeywordPath(), "/") < strings.Join(out[j].ErrorKind.KeywordPath(), "/")
	})
	return out
}

// The kinds of problem, in the order the original lists them: missing parameters
// first, then unexpected ones, then wrong types, then everything else.
const (
	problemMissing = iota
	problemUnexpected
	problemType
	problemOther
	problemKinds
)

// problems words each leaf error of an input validated against root the way models
// know from the original system, and lists them in its order (by kind, and by
// location within a kind).
func problems(root *jsonschema.Schema, ve *jsonschema.ValidationError) ([]string, []unexpectedProblem) {
	var byKind [problemKinds][]string
	topUnexpected := map[string]string{} // problem text -> the top-level property it names
	seen := map[string]bool{}
	add := func(k int, s string) {
		if !seen[s] {
			seen[s] = true
			byKind[k] = append(byKind[k], s)
		}
	}
	for _, e := range leafErrors(ve, false) {
		loc := displayPath(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			// in the order of the schema's required list, as the original lists them;
			// its validator finds a missing enum a value outside it, not a missing one
			for _, name := range k.Missing {
				if want := enumOf(schemaAt(root, slices.Concat(e.InstanceLocation, []string{name}))); want != nil {
					add(problemOther, wordGeneric(joinDisplay(loc, name), enumText(want)))
					continue
				}
				add(problemMissing, fmt.Sprintf("The required parameter `%s` is missing", joinDisplay(loc, name)))
			}
		case *kind.AdditionalProperties:
			for _, name := range sorted(k.Properties) {
				text := fmt.Sprintf("An unexpected parameter `%s` was provided", joinDisplay(loc, name))
				if loc == "" {
					topUnexpected[text] = name
				}
				add(problemUnexpected, text)
			}
		case *kind.Type:
			if loc == "" {
				add(problemOther, wordGeneric(loc, k.LocalizedString(printer)))
				continue
			}
			// The original's validator checks an enum by value alone: a value of
			// another type (null included) is an option outside the list.
			if want := enumOf(schemaAt(root, e.InstanceLocation)); want != nil {
				add(problemOther, wordGeneric(loc, enumText(want)))
				continue
			}
			want := expectedTypes(k)
			if isRecord(schemaAt(root, e.InstanceLocation)) {
				want = recordTypes(want)
			}
			add(problemType, fmt.Sprintf("The parameter `%s` type is expected as `%s` but provided as `%s`", loc, strings.Join(want, " | "), k.Got))
		default:
			add(problemOther, wordGeneric(loc, constraintText(e.ErrorKind)))
		}
	}
	out := slices.Concat(byKind[:]...)
	if len(out) == 0 {
		out = append(out, ve.Error())
	}
	var unexpected []unexpectedProblem
	for i, text := range out {
		if name, ok := topUnexpected[text]; ok {
			unexpected = append(unexpected, unexpectedProblem{i, name})
		}
	}
	return out, unexpected
}

// schemaAt returns the schema of the value at an instance location, following
// properties and items from root (and $ref); nil where the location leaves them.
func schemaAt(root *jsonschema.Schema, loc []string) *jsonschema.Schema {
	s := root
	for _, tok := range loc {
		for s != nil && s.Ref != nil {
			s = s.Ref
		}
		switch {
		case s == nil:
			return nil
		case s.Properties[tok] != nil:
			s = s.Properties[tok]
		case s.Items2020 != nil:
			s = s.Items2020
		default:
			return nil
		}
	}
	for s != nil && s.Ref != nil {
		s = s.Ref
	}
	return s
}

// enumOf returns the values of s's enum; nil when it has none, or an empty one.
func enumOf(s *jsonschema.Schema) []any {
	if s == nil || s.Enum == nil || len(s.Enum.Values) == 0 {
		return nil
	}
	return s.Enum.Values
}

// isRecord reports whether s is an object schema whose keys are constrained by
// propertyNames: what the original's validator holds as a record (a z.record
// becomes such a schema), and names so in a type failure.
func isRecord(s *jsonschema.Schema) bool {
	return s != nil && s.PropertyNames != nil
}

// recordTypes names the object type "record" among the expected types.
func recordTypes(want []string) []string {
	out := slices.Clone(want)
	for i, w := range out {
		if w == "object" {
			out[i] = "record"
		}
	}
	return out
}

// expectedTypes are the expected types of a type failure as the original names them:
// its validator calls an integer a number, except that a fraction where an integer is
// wanted is "expected as `int`".
func expectedTypes(k *kind.Type) []string {
	out := make([]string, 0, len(k.Want))
	for _, w := range k.Want {
		if w == "integer" {
			w = "number"
			if k.Got == "number" {
				w = "int"
			}
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// enumText words a value outside want, which is not empty, as the original's
// validator does.
func enumText(want []any) string {
	if len(want) == 1 {
		return "Invalid input: expected " + jsonText(want[0])
	}
	vals := make([]string, len(want))
	for i, v := range want {
		vals[i] = jsonText(v)
	}
	return "Invalid option: expected one of " + strings.Join(vals, "|")
}

// constraintText words a failed constraint as the original's validator does
// ("Invalid option: expected one of "a"|"b"", "Too small: expected number to be
// >=0"), so that a model reads the texts it knows; other kinds keep the
// validator's own wording.
func constraintText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		if len(k.Want) == 0 {
			break // nothing is allowed: the validator's wording says so
		}
		return enumText(k.Want)
	case *kind.Const:
		return "Invalid input: expected " + jsonText(k.Want)
	case *kind.AnyOf, *kind.OneOf:
		return "Invalid input"
	case *kind.Minimum:
		return "Too small: expected number to be >=" + ratText(k.Want)
	case *kind.ExclusiveMinimum:
		return "Too small: expected number to be >" + ratText(k.Want)
	case *kind.Maximum:
		return "Too big: expected number to be <=" + ratText(k.Want)
	case *kind.ExclusiveMaximum:
		return "Too big: expected number to be <" + ratText(k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("Too small: expected string to have >=%d characters", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("Too big: expected string to have <=%d characters", k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("Too small: expected array to have >=%d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("Too big: expected array to have <=%d items", k.Want)
	}
	return k.LocalizedString(printer)
}

// jsonText is v as JSON, the way the original quotes an expected value.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ratText is a bound as a decimal number: 0, 2.5, 9007199254740991.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func wordGeneric(loc, msg string) string {
	if loc == "" {
		return "The input is invalid: " + msg
	}
	return fmt.Sprintf("The parameter `%s` is invalid: %s", loc, msg)
}

// displayPath turns an instance location like [todos 0 activeForm] into
// todos[0].activeForm.
func displayPath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func joinDisplay(loc, name string) string {
	if loc == "" {
		return name
	}
	return loc + "." + name
}
