package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// jsonInput is JSON a person gave a command, kept whole so that an error can say at
// which line and column it is. Its errors are worded for that person: never with Go's
// type names.
type jsonInput []byte

// jsonItem is one element of a JSON array or member of an object.
type jsonItem struct {
	key string // the member's name; "" in an array
	raw json.RawMessage
	off int // where the value starts in the input
}

// at prefixes an error with the line and column of byte offset off.
func (in jsonInput) at(off int, format string, args ...any) error {
	before := in[:min(max(off, 0), len(in))]
	line := bytes.Count(before, []byte("\n")) + 1
	column := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Errorf("line %d, column %d: %s", line, column, fmt.Sprintf(format, args...))
}

// check returns an error naming the line and column when the input is not one JSON
// value.
func (in jsonInput) check() error {
	var v json.RawMessage
	err := json.Unmarshal(in, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	// The offset is past the byte that was wrong; at the end of the input there is
	// none, and the error is where the next byte should have been.
	off := int(se.Offset)
	if !strings.HasPrefix(se.Error(), "unexpected end") {
		off--
	}
	return in.at(off, "%s", se.Error())
}

// top returns the input's value and where it starts. The input must have passed
// check.
func (in jsonInput) top() jsonItem {
	trimmed := bytes.TrimLeft(in, " \t\r\n")
	return jsonItem{raw: bytes.TrimRight(trimmed, " \t\r\n"), off: len(in) - len(trimmed)}
}

// items returns the elements of an array or the members of an object, v being one
// of the input's values. A name that occurs twice in an object is an error (which of
// the two was meant cannot be known), its message after the line and column starting
// with what.
func (in jsonInput) items(v jsonItem, what string) ([]jsonItem, error) {
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var items []jsonItem
	object := jsonvalue.Kind(v.raw) == "an object"
	seen := map[string]bool{}
	for dec.More() {
		var key string
		if object {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key = tok.(string)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		off := v.off + int(dec.InputOffset()) - len(raw)
		if object && seen[key] {
			return nil, in.at(off, "%s%q is given twice", what, key)
		}
		seen[key] = true
		items = append(items, jsonItem{key: key, raw: raw, off: off})
	}
	return items, nil
}
