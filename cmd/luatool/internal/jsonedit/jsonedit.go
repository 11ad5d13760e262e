// Package jsonedit reads and changes one member of a JSON document in place: every
// byte outside the member's value stays as it was (other members, their order,
// formatting and numbers), so that a program editing a configuration file that
// people and other programs also edit changes only what it means to. A member it
// adds follows the document's own indentation.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// A SyntaxError is a document that is not JSON, at Line and Column (counted from 1,
// the column in bytes).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// A member is one "key": value of an object, by offsets into the document.
type member struct {
	key              string
	keyStart, keyEnd int // the key's quotes included
	valStart, valEnd int
}

// An object is the members of an object and where it opens and closes.
type object struct {
	open, close int // the offsets of { and }
	members     []member
}

// Get returns the value at path (a key of the top-level object, a key of that
// value, and so on), as the bytes the document holds, or nil when a key on the way is
// missing. A value on the way that is not an object is an error naming the path to
// it. An empty document is an empty object.
func Get(doc []byte, path ...string) (json.RawMessage, error) {
	doc, err := check(doc)
	if err != nil || len(bytes.TrimSpace(doc)) == 0 {
		return nil, err
	}
	_, found, m, err := walk(doc, path)
	if err != nil || found < len(path) {
		return nil, err
	}
	return json.RawMessage(doc[m.valStart:m.valEnd]), nil
}

// walk follows path down from the top-level object as far as its keys are there:
// found is how many are, obj the object that holds path[found-1] (or misses
// path[found]), and m the member of path[found-1].
func walk(doc []byte, path []string) (obj object, found int, m member, err error) {
	start := firstByte(doc)
	for i, key := range path {
		if obj, err = scan(doc, start, path[:i]); err != nil {
			return object{}, 0, member{}, err
		}
		var ok bool
		if m, ok = obj.find(key); !ok {
			return obj, i, member{}, nil
		}
		start = m.valStart
	}
	return obj, len(path), m, nil
}

// Set returns doc with value (JSON) at path, objects on the way made when they are
// missing; the document's last member of a key, the one JSON readers take, is the
// one changed. value is written indented as the document is (one level of the
// first indented line's whitespace, two spaces when no line is indented), or
// compact when the document is on one line. An empty document is an empty object.
func Set(doc []byte, value json.RawMessage, path ...string) ([]byte, error) {
	if len(path) == 0 {
		return nil, errors.New("jsonedit: an empty path")
	}
	if !json.Valid(value) {
		return nil, errors.New("jsonedit: the value is not JSON")
	}
	doc, err := check(doc)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{\n}\n")
	}
	obj, found, m, err := walk(doc, path)
	switch {
	case err != nil:
		return nil, err
	case found < len(path):
		return obj.insert(doc, indentStep(doc), path[found], nested(value, path[found+1:])), nil
	}
	v := format(value, lineIndent(doc, m.keyStart), indentStep(doc))
	return splice(doc, m.valStart, m.valEnd, v), nil
}

// check refuses a document that is not JSON, or whose top level is not an object,
// with the line and column. Whitespace alone is an empty document.
func check(doc []byte) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return doc, nil
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, at(doc, int(se.Offset)-1, describe(doc, int(se.Offset)-1, se.Error()))
		}
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, at(doc, firstByte(doc), "the document is not a JSON object")
	}
	return doc, nil
}

// describe words a syntax error, saying so when the offending byte begins a
// comment: files of editors (JSONC) allow comments, and JSON does not.
func describe(doc []byte, off int, msg string) string {
	if off >= 0 && off+1 < len(doc) && doc[off] == '/' && (doc[off+1] == '/' || doc[off+1] == '*') {
		return "a comment: comments are not JSON (remove them to let the file be edited)"
	}
	return msg
}

// at is a SyntaxError at the offset off of doc.
func at(doc []byte, off int, msg string) *SyntaxError {
	off = max(0, min(off, len(doc)))
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(doc[:off], '\n')
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// firstByte is the offset of the first byte of doc that is not whitespace.
func firstByte(doc []byte) int {
	return len(doc) - len(bytes.TrimLeft(doc, " \t\r\n"))
}

// scan reads the object whose { is at start; where names the path to it, for the
// error when the value there is not an object.
func scan(doc []byte, start int, where []string) (object, error) {
	if start >= len(doc) || doc[start] != '{' {
		what := "the document"
		if len(where) > 0 {
			what = strings.Join(where, ".")
		}
		return object{}, at(doc, start, fmt.Sprintf("%s is %s, not an object", what, jsonvalue.Kind(doc[start:])))
	}
	obj := object{open: start}
	dec := json.NewDecoder(bytes.NewReader(doc[start:]))
	if _, err := dec.Token(); err != nil { // {
		return object{}, err
	}
	prev := start + 1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		keyEnd := start + int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, err
		}
		valEnd := start + int(dec.InputOffset())
		keyStart := prev + bytes.IndexByte(doc[prev:keyEnd], '"')
		obj.members = append(obj.members, member{key: tok.(string), keyStart: keyStart, keyEnd: keyEnd, valStart: valEnd - len(raw), valEnd: valEnd})
		prev = valEnd
	}
	if _, err := dec.Token(); err != nil { // }
		return object{}, err
	}
	obj.close = start + int(dec.InputOffset()) - 1
	return obj, nil
}

// find returns the last member named key.
func (o object) find(key string) (member, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i], true
		}
	}
	return member{}, false
}

// insert adds "key": value after the object's last member, spaced as the members
// before it are: the whitespace before the last key, and around its colon.
func (o object) insert(doc []byte, step, key string, value json.RawMessage) []byte {
	k, _ := json.Marshal(key)
	if len(o.members) == 0 {
		outer := lineIndent(doc, o.open)
		if step == "" {
			return splice(doc, o.open+1, o.close, append(append(k, ':'), compact(value)...))
		}
		inner := outer + step
		body := "\n" + inner + string(k) + ": " + string(format(value, inner, step)) + "\n" + outer
		return splice(doc, o.open+1, o.close, []byte(body))
	}
	last := o.members[len(o.members)-1]
	before := o.open + 1
	if len(o.members) > 1 {
		prev := o.members[len(o.members)-2]
		before = prev.valEnd + bytes.IndexByte(doc[prev.valEnd:last.keyStart], ',') + 1
	}
	space := string(doc[before:last.keyStart])
	colon := string(doc[last.keyEnd:last.valStart])
	var v []byte
	if strings.Contains(space, "\n") {
		v = format(value, lineIndent(doc, last.keyStart), step)
	} else {
		v = compact(value)
	}
	add := "," + space + string(k) + colon + string(v)
	return splice(doc, last.valEnd, last.valEnd, []byte(add))
}

// nested wraps value in an object for each key of path, the last innermost.
func nested(value json.RawMessage, path []string) json.RawMessage {
	for i := len(path) - 1; i >= 0; i-- {
		k, _ := json.Marshal(path[i])
		value = json.RawMessage("{" + string(k) + ":" + string(value) + "}")
	}
	return value
}

// format writes value indented by step under a line indented by indent, or compact
// when step is "" (a document on one line).
func format(value json.RawMessage, indent, step string) []byte {
	if step == "" {
		return compact(value)
	}
	var b bytes.Buffer
	json.Indent(&b, value, indent, step) // value is valid (Set checked it)
	return b.Bytes()
}

func compact(value json.RawMessage) []byte {
	var b bytes.Buffer
	json.Compact(&b, value) // value is valid (Set checked it)
	return b.Bytes()
}

// indentStep is the document's indentation: the leading whitespace of its first
// indented line, two spaces when none is, and "" (compact) when the document is on
// one line.
func indentStep(doc []byte) string {
	if trimmed := bytes.TrimSpace(doc); !bytes.Contains(trimmed, []byte("\n")) && len(trimmed) > 2 {
		return "" // one line with members: keep it one line
	}
	for _, line := range bytes.Split(doc, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// lineIndent is the leading whitespace of the line holding offset off.
func lineIndent(doc []byte, off int) string {
	start := bytes.LastIndexByte(doc[:off], '\n') + 1
	end := start
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

// splice replaces doc[from:to] with b, in a new slice.
func splice(doc []byte, from, to int, b []byte) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(b))
	out = append(out, doc[:from]...)
	out = append(out, b...)
	return append(out, doc[to:]...)
}
