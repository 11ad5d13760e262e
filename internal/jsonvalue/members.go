package jsonvalue

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members decodes the members of a JSON object as encoding/json decodes it into a
// map[string]json.RawMessage: each key unescaped, each value its text as written,
// a repeated key its last value. The values alias data.
//
// It takes the common case only, checked once for syntax (json.Valid) and then
// split without reflection or copies: ok is false when data is not an object, is
// not valid JSON, or has a key with an escape or invalid UTF-8 (which
// encoding/json rewrites). The caller then decodes data with encoding/json, which
// gives the same map or says what is wrong.
func Members(data []byte) (members map[string]json.RawMessage, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return nil, false
	}
	members = make(map[string]json.RawMessage, 4)
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return members, true
	}
	for {
		end := stringEnd(data, i)
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return nil, false
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		vend := valueEnd(data, i)
		members[string(key)] = data[i:vend:vend]
		i = skipSpace(data, vend)
		if data[i] == '}' {
			return members, true
		}
		i = skipSpace(data, i+1) // past the comma
	}
}

// The functions below read JSON text already known to be valid.

// skipSpace returns the index of the first byte at or after i that is not JSON
// white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is at i.
func stringEnd(data []byte, i int) int {
	for i++; ; i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// valueEnd returns the index just past the value that starts at i.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// Keys returns the keys of a JSON object in the order they are written, each once
// (at its first place), unescaped; nil when data is not a valid JSON object. It
// decodes with encoding/json's tokenizer: it is meant for error paths, such as
// listing a model's unexpected parameters in the order it sent them.
func Keys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}
