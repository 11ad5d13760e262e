package client

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"time"

	"github.com/luatool/luatool/internal/spell"
)

// An ElicitRequest asks the client's user for input (MCP's elicitation/create).
// In form mode (Mode "form", or empty) the user fills RequestedSchema, a flat
// object of primitive properties (CheckSchema); in URL mode ("url") the user is
// sent to URL, and ElicitationID names the exchange.
type ElicitRequest struct {
	Mode            string         `json:"mode,omitempty"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema,omitempty"`
	URL             string         `json:"url,omitempty"`
	ElicitationID   string         `json:"elicitationId,omitempty"`
}

// An ElicitResult is the user's answer: Action "accept" (with Content, in form
// mode), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// URLMode reports whether r sends the user to a URL.
func (r *ElicitRequest) URLMode() bool { return r.Mode == "url" }

// Check reports what makes r a request MCP does not allow, and puts its schema in
// the form it is sent in (CheckSchema). A URL request without an ElicitationID is
// given one.
func (r *ElicitRequest) Check() error {
	if r.Message == "" {
		return Malformed("elicitation: the message is empty")
	}
	switch r.Mode {
	case "", "form":
		if r.URL != "" || r.ElicitationID != "" {
			return Malformed("elicitation: a form has no url or elicitationId")
		}
		s, err := CheckSchema(r.RequestedSchema)
		if err != nil {
			return err
		}
		r.Mode, r.RequestedSchema = "form", s
	case "url":
		if r.RequestedSchema != nil {
			return Malformed("elicitation: a URL request has no schema")
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return Malformed("elicitation: url must be an absolute http or https URL, got %q", r.URL)
		}
		if r.ElicitationID == "" {
			var b [16]byte
			_, _ = rand.Read(b[:])
			r.ElicitationID = hex.EncodeToString(b[:])
		}
	default:
		return Malformed(`elicitation: mode must be "form" or "url", got %q`, r.Mode)
	}
	return nil
}

// CheckResult checks a client's answer to r, fills the defaults of the properties
// it left out, and reports what makes it malformed: an unknown action, content
// for anything but an accepted form, or content that does not match the schema.
func CheckResult(r *ElicitRequest, res *ElicitResult) error {
	switch res.Action {
	case "decline", "cancel":
		res.Content = nil // nothing was given
		return nil
	case "accept":
	default:
		return Malformed(`elicitation answer: action must be "accept", "decline" or "cancel", got %q`, res.Action)
	}
	if r.URLMode() {
		if len(res.Content) > 0 {
			return Malformed("elicitation answer: a URL elicitation's answer has no content")
		}
		res.Content = nil
		return nil
	}
	props, _ := r.RequestedSchema["properties"].(map[string]any)
	if res.Content == nil {
		res.Content = map[string]any{}
	}
	for name, v := range res.Content {
		p, ok := props[name].(map[string]any)
		if !ok {
			return Malformed("elicitation answer: %q is not a property of the form", name)
		}
		if err := checkValue(p, v); err != nil {
			return Malformed("elicitation answer: %q: %v", name, err)
		}
	}
	required, _ := r.RequestedSchema["required"].([]any)
	for _, name := range required {
		if _, ok := res.Content[name.(string)]; !ok {
			return Malformed("elicitation answer: the required property %q is missing", name)
		}
	}
	for name, p := range props {
		if _, ok := res.Content[name]; !ok {
			if d, ok := p.(map[string]any)["default"]; ok {
				res.Content[name] = d
			}
		}
	}
	return nil
}

// CheckSchema checks a form's schema against what MCP allows and returns it in the
// form it is sent in: an object whose properties are each a string (with
// minLength, maxLength, format, default), a number or integer (minimum, maximum,
// default), a boolean (default), a single choice (a string with enum and
// optionally enumNames, or oneOf of {const, title}) or a multiple choice (an array
// whose items have enum, or anyOf of {const, title}, with minItems, maxItems,
// default); every property may have a title and a description. No nesting. An
// empty required is left out (Lua cannot tell it from an empty object).
func CheckSchema(schema map[string]any) (map[string]any, error) {
	if schema == nil {
		return nil, Malformed("elicitation schema: a form needs a schema")
	}
	if err := onlyKeys(schema, "type", "properties", "required", "$schema"); err != nil {
		return nil, Malformed("elicitation schema: %v", err)
	}
	if t, ok := schema["type"]; ok && t != "object" {
		return nil, Malformed(`elicitation schema: type must be "object", got %v`, t)
	}
	props, ok := schema["properties"].(map[string]any)
	if !ok {
		return nil, Malformed("elicitation schema: properties must be a table of properties")
	}
	out := map[string]any{"type": "object"}
	outProps := make(map[string]any, len(props))
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, Malformed("elicitation schema: property %q must be a table", name)
		}
		cp, err := checkProperty(pm)
		if err != nil {
			return nil, Malformed("elicitation schema: property %q: %v", name, err)
		}
		outProps[name] = cp
	}
	out["properties"] = outProps
	var required []any
	switch rq := schema["required"].(type) {
	case nil:
	case map[string]any:
		if len(rq) > 0 {
			return nil, Malformed("elicitation schema: required must be a list of property names")
		}
	case []any:
		for _, n := range rq {
			s, ok := n.(string)
			if !ok || outProps[s] == nil {
				return nil, Malformed("elicitation schema: required names %v, which is not a property", n)
			}
			required = append(required, s)
		}
	default:
		return nil, Malformed("elicitation schema: required must be a list of property names")
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return out, nil
}

var formats = []string{"email", "uri", "date", "date-time"}

// checkProperty checks one property and returns it as it is sent.
func checkProperty(p map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"title", "description"} {
		if v, ok := p[k]; ok {
			if _, isString := v.(string); !isString {
				return nil, fmt.Errorf("%s must be a string", k)
			}
			out[k] = v
		}
	}
	t, _ := p["type"].(string)
	out["type"] = t
	var err error
	switch t {
	case "string":
		if err = onlyKeys(p, "type", "title", "description", "minLength", "maxLength", "format", "default", "enum", "enumNames", "oneOf"); err != nil {
			return nil, err
		}
		if err = copyNumbers(p, out, true, "minLength", "maxLength"); err != nil {
			return nil, err
		}
		if f, ok := p["format"]; ok {
			if s, _ := f.(string); !slices.Contains(formats, s) {
				return nil, fmt.Errorf("format must be one of %v, got %v", formats, f)
			}
			out["format"] = f
		}
		_, hasEnum := p["enum"]
		_, hasOneOf := p["oneOf"]
		switch {
		case hasEnum && hasOneOf:
			return nil, fmt.Errorf("a choice has enum or oneOf, not both")
		case hasEnum:
			enum, err := stringList(p["enum"], "enum")
			if err != nil {
				return nil, err
			}
			out["enum"] = enum
			if names, ok := p["enumNames"]; ok {
				n, err := stringList(names, "enumNames")
				if err != nil {
					return nil, err
				}
				if len(n) != len(enum) {
					return nil, fmt.Errorf("enumNames has %d names for %d values of enum", len(n), len(enum))
				}
				out["enumNames"] = n
			}
		case hasOneOf:
			one, err := titledConsts(p["oneOf"], "oneOf")
			if err != nil {
				return nil, err
			}
			out["oneOf"] = one
		}
		if _, ok := p["enumNames"]; ok && !hasEnum {
			return nil, fmt.Errorf("enumNames needs enum")
		}
	case "number", "integer":
		if err = onlyKeys(p, "type", "title", "description", "minimum", "maximum", "default"); err != nil {
			return nil, err
		}
		if err = copyNumbers(p, out, t == "integer", "minimum", "maximum"); err != nil {
			return nil, err
		}
	case "boolean":
		if err = onlyKeys(p, "type", "title", "description", "default"); err != nil {
			return nil, err
		}
	case "array":
		if err = onlyKeys(p, "type", "title", "description", "minItems", "maxItems", "items", "default"); err != nil {
			return nil, err
		}
		if err = copyNumbers(p, out, true, "minItems", "maxItems"); err != nil {
			return nil, err
		}
		items, ok := p["items"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("an array is a multiple choice: it needs items with enum or anyOf")
		}
		if items, err = checkItems(items); err != nil {
			return nil, err
		}
		out["items"] = items
	default:
		return nil, fmt.Errorf("type %v is not allowed: a form's properties are flat: string, number, integer, boolean, or an array of choices (no object)", p["type"])
	}
	if d, ok := p["default"]; ok {
		if err := checkValue(out, d); err != nil {
			return nil, fmt.Errorf("default: %v", err)
		}
		if t == "array" {
			d = JSON(d) // an empty table is an empty list here
			if m, ok := d.(map[string]any); ok && len(m) == 0 {
				d = []any{}
			}
		}
		out["default"] = d
	}
	return out, nil
}

// checkItems checks the items of a multiple choice.
func checkItems(items map[string]any) (map[string]any, error) {
	if _, ok := items["anyOf"]; ok {
		if err := onlyKeys(items, "anyOf"); err != nil {
			return nil, fmt.Errorf("items: %v", err)
		}
		choices, err := titledConsts(items["anyOf"], "items.anyOf")
		if err != nil {
			return nil, err
		}
		return map[string]any{"anyOf": choices}, nil
	}
	if err := onlyKeys(items, "type", "enum"); err != nil {
		return nil, fmt.Errorf("items: %v", err)
	}
	if t, ok := items["type"]; ok && t != "string" {
		return nil, fmt.Errorf(`items: type must be "string", got %v`, t)
	}
	enum, err := stringList(items["enum"], "items.enum")
	if err != nil {
		return nil, err
	}
	return map[string]any{"type": "string", "enum": enum}, nil
}

// CheckField checks the value of one property of a form's schema as CheckSchema
// returns it, for a host that asks property by property: what is wrong with it, in
// words for the person who gave it.
func CheckField(schema map[string]any, name string, v any) error {
	props, _ := schema["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		return fmt.Errorf("%q is not a property of the form", name)
	}
	return checkValue(p, v)
}

// checkValue checks a value against a property as CheckSchema returns it.
func checkValue(p map[string]any, v any) error {
	switch p["type"] {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("a string is expected, got %s", kindOf(v))
		}
		if choices := choicesOf(p); choices != nil && !slices.Contains(choices, s) {
			return fmt.Errorf("%q is not one of %v", s, choices)
		}
		n := float64(len([]rune(s)))
		if min, ok := p["minLength"].(float64); ok && n < min {
			return fmt.Errorf("shorter than %v characters", min)
		}
		if max, ok := p["maxLength"].(float64); ok && n > max {
			return fmt.Errorf("longer than %v characters", max)
		}
		if f, ok := p["format"].(string); ok {
			return checkFormat(f, s)
		}
	case "number", "integer":
		n, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int); isInt {
				n, ok = float64(i), true
			}
		}
		if !ok {
			return fmt.Errorf("a number is expected, got %s", kindOf(v))
		}
		if p["type"] == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("an integer is expected, got %v", n)
		}
		if min, ok := p["minimum"].(float64); ok && n < min {
			return fmt.Errorf("%v is less than the minimum %v", n, min)
		}
		if max, ok := p["maximum"].(float64); ok && n > max {
			return fmt.Errorf("%v is more than the maximum %v", n, max)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("a boolean is expected, got %s", kindOf(v))
		}
	case "array":
		list, ok := v.([]any)
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			list, ok = nil, true // Lua's empty table
		}
		if !ok {
			return fmt.Errorf("a list of choices is expected, got %s", kindOf(v))
		}
		choices := choicesOf(p["items"].(map[string]any))
		for _, e := range list {
			if s, isString := e.(string); !isString || !slices.Contains(choices, s) {
				return fmt.Errorf("%v is not one of %v", e, choices)
			}
		}
		n := float64(len(list))
		if min, ok := p["minItems"].(float64); ok && n < min {
			return fmt.Errorf("fewer than %v choices", min)
		}
		if max, ok := p["maxItems"].(float64); ok && n > max {
			return fmt.Errorf("more than %v choices", max)
		}
	}
	return nil
}

var emailShape = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)

// checkFormat checks the formats MCP names.
func checkFormat(format, s string) error {
	ok := true
	switch format {
	case "email":
		ok = emailShape.MatchString(s)
	case "uri":
		u, err := url.Parse(s)
		ok = err == nil && u.Scheme != ""
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		ok = err == nil
	}
	if !ok {
		return fmt.Errorf("%q is not %s", s, map[string]string{"email": "an email address", "uri": "a URI",
			"date": "a date (YYYY-MM-DD)", "date-time": "a date-time (RFC 3339)"}[format])
	}
	return nil
}

// choicesOf returns the values a single choice (or the items of a multiple one)
// allows, or nil when it is not a choice.
func choicesOf(p map[string]any) []string {
	var out []string
	if enum, ok := p["enum"].([]any); ok {
		for _, e := range enum {
			out = append(out, e.(string))
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if list, ok := p[k].([]any); ok {
			for _, e := range list {
				out = append(out, e.(map[string]any)["const"].(string))
			}
		}
	}
	return out
}

// onlyKeys reports the first key of m (in order) that is not one of keys.
func onlyKeys(m map[string]any, keys ...string) error {
	if bad, _ := spell.Unknown(m, keys); bad != "" {
		return fmt.Errorf("%q is not allowed here (allowed: %v)", bad, keys)
	}
	return nil
}

// copyNumbers copies the numbers named keys from p to out, checking each is a
// number (a non-negative integer when counts).
func copyNumbers(p, out map[string]any, counts bool, keys ...string) error {
	for _, k := range keys {
		v, ok := p[k]
		if !ok {
			continue
		}
		n, isNumber := v.(float64)
		if !isNumber || (counts && (n < 0 || n != math.Trunc(n))) {
			return fmt.Errorf("%s must be a number, got %v", k, v)
		}
		out[k] = n
	}
	return nil
}

// stringList reads a non-empty list of strings.
func stringList(v any, what string) ([]any, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty list of strings", what)
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return nil, fmt.Errorf("%s must be a list of strings, got %v", what, e)
		}
	}
	return list, nil
}

// titledConsts reads a non-empty list of {const = string, title = string}.
func titledConsts(v any, what string) ([]any, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty list of {const, title}", what)
	}
	out := make([]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[%d] must be {const, title}", what, i+1)
		}
		if err := onlyKeys(m, "const", "title"); err != nil {
			return nil, fmt.Errorf("%s[%d]: %v", what, i+1, err)
		}
		c, okc := m["const"].(string)
		t, okt := m["title"].(string)
		if !okc || !okt {
			return nil, fmt.Errorf("%s[%d] needs a string const and a string title", what, i+1)
		}
		out[i] = map[string]any{"const": c, "title": t}
	}
	return out, nil
}

// kindOf names the JSON kind of v for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, int:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
