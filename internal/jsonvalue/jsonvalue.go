// Package jsonvalue decodes and encodes the JSON value model that luatool passes between
// the model, Go tools and Lua: nil, bool, float64, string, []any and map[string]any.
//
// Numbers are float64 so that Go and Lua see the same values. An integer literal whose
// magnitude exceeds 2^53 cannot be represented exactly and is rejected rather than
// silently rounded.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxSafeInteger is the largest integer that float64 (and so Lua) represents exactly.
const MaxSafeInteger = 1 << 53

// Decode parses one JSON document into the value model.
func Decode(data []byte) (any, error) { return DecodeKeys(data, nil) }

// DecodeKeys is Decode where an object key found in keys (as a key, mapping to
// itself) is that string rather than a copy: a caller that knows the keys a document
// will have, from its schema, saves an allocation for each.
func DecodeKeys(data []byte, keys map[string]string) (any, error) {
	if v, ok := decodeFast(data, keys); ok {
		return v, nil
	}
	return decodeGeneral(data)
}

// decodeGeneral is Decode by encoding/json, which words every error.
func decodeGeneral(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return Normalize(v, "$")
}

// Normalize converts json.Number values in v (as produced by a decoder with UseNumber)
// into float64, in place for maps and slices, and reports integers beyond 2^53 with
// the path where they occur.
func Normalize(v any, path string) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return number(x, path)
	case map[string]any:
		for k, e := range x {
			n, err := Normalize(e, JoinKey(path, k))
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := Normalize(e, JoinIndex(path, i))
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}

func number(n json.Number, path string) (any, error) {
	s := string(n)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%s: invalid number %s", path, s)
	}
	if math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s: number %s is out of range", path, s)
	}
	if !strings.ContainsAny(s, ".eE") {
		// Compare the literal, not the rounded float: 2^53+1 rounds to 2^53.
		if i, err := strconv.ParseInt(s, 10, 64); err != nil || i > MaxSafeInteger || i < -MaxSafeInteger {
			return nil, fmt.Errorf("%s: integer %s exceeds 2^53 and cannot be represented exactly", path, s)
		}
	}
	return f, nil
}

// Encode renders v as compact JSON with object keys sorted and without escaping <, >
// and & (tool results are full of them). NaN and infinities are errors.
func Encode(v any) ([]byte, error) { return EncodeIndent(v, "") }

// EncodeIndent is Encode with each element of an object or array on a line of its
// own, indented by indent per level of nesting; an empty indent is Encode's compact
// form.
func EncodeIndent(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Depth returns how deeply containers nest in v: 0 for a scalar, 1 for a flat array
// or object.
func Depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, Depth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, Depth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// Number returns a JSON number of the value model (int64 or float64; an int, as Go
// hosts write them) as a float64; false for anything else.
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// JoinKey appends an object key to a path such as "$.a[0]", quoting keys that are
// not plain identifiers.
func JoinKey(path, key string) string {
	if isIdent(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// JoinIndex appends a zero-based array index to a path.
func JoinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'):
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// Kind names the kind of the JSON value raw as a message says it: "an object", "an
// array", "a string", "a boolean", "null", "a number", or "nothing" when raw is
// empty. It looks at the first byte only: raw must be valid JSON, or empty.
func Kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// CloneObject copies a JSON object deeply; nil stays nil.
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	v, _ := Clone(m).(map[string]any)
	return v
}

// Clone copies a JSON value deeply: its objects and arrays are new, so that a change
// to the copy leaves v as it was.
func Clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = Clone(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Clone(x)
		}
		return out
	}
	return v
}
