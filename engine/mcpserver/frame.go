package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/spell"
)

// This file splits the stdio stream into frames as MCP defines them: one JSON-RPC
// message per line, UTF-8, no embedded newlines. Every line is checked here, before the SDK sees it,
// so that no input can end the session: what is not a well-formed message becomes
// an error to answer (or, for a notification, to drop), never a read error.

// idPrefix is how much of a line over the size limit is kept to find its id in.
const idPrefix = 4096

// A lineReader splits a stream into lines of at most max bytes. A longer line is
// discarded as it streams, never held whole.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its terminator (\n or \r\n), valid until the
// following call. For a line longer than max, it returns the line's first idPrefix
// bytes and tooLong. err is io.EOF at the end of the stream, which may come with a
// last unterminated line.
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil // one big frame must not keep a big buffer for the rest of the session
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			l.buf = append(l.buf, chunk...)
			size := len(l.buf) - trailing(l.buf) // the terminator does not count
			if errors.Is(err, bufio.ErrBufferFull) && bytes.HasSuffix(l.buf, []byte("\r")) {
				size-- // maybe the start of \r\n
			}
			if size > l.max {
				tooLong = true
				l.buf = l.buf[:min(idPrefix, len(l.buf))]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !tooLong {
			l.buf = l.buf[:len(l.buf)-trailing(l.buf)]
		}
		return l.buf, tooLong, err
	}
}

// trailing is the length of the line terminator at the end of b: 0, 1 (\n) or 2
// (\r\n).
func trailing(b []byte) int {
	if !bytes.HasSuffix(b, []byte("\n")) {
		return 0
	}
	if bytes.HasSuffix(b, []byte("\r\n")) {
		return 2
	}
	return 1
}

// frameKind is what a line turned out to be.
type frameKind int

const (
	frameBlank        frameKind = iota // nothing but whitespace: skipped
	frameRequest                       // a call, to answer
	frameNotification                  // no id: never answered
	frameResponse                      // the client's answer to a call of the server
	frameAnswer                        // malformed, answered with an error
	frameDrop                          // malformed but never to be answered: a notification or response
	frameBatch                         // a JSON array of messages, checked one by one with parseMessage
)

// A frame is one line, checked.
type frame struct {
	kind   frameKind
	id     json.RawMessage // as sent; for frameAnswer, the id recovered or null
	method string
	params json.RawMessage
	// result and rpcErr are a response's members.
	result, rpcErr json.RawMessage
	// err says what is wrong with a frameAnswer or frameDrop.
	err *jsonrpc.Error
	// elems are the elements of a frameBatch, at least one.
	elems []json.RawMessage
}

// frameLimits are the bounds a frame is checked against.
type frameLimits struct {
	maxBytes, maxDepth int
}

var nullID = json.RawMessage("null")

// parseFrame checks one line (tooLong: the first bytes of a line over the size
// limit). The checks run from the cheapest and the ones that bound the work of the
// others: size, encoding, depth, then syntax and structure.
func parseFrame(line []byte, tooLong bool, lim frameLimits) frame {
	if tooLong {
		return answer(line, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: the message is longer than %d bytes, the limit of this server; it was discarded", lim.maxBytes))
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return frame{kind: frameBlank}
	}
	if !utf8.Valid(line) {
		at := invalidUTF8(line)
		return answer(line, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the message is not valid UTF-8 (byte %d), as JSON text must be", at))
	}
	if depth(line, lim.maxDepth) > lim.maxDepth {
		return answer(line, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: the message nests objects and arrays deeper than %d levels, the limit of this server", lim.maxDepth))
	}
	// Each decoding below checks the whole line's syntax first (json.Unmarshal
	// decodes nothing from invalid JSON), so the line is scanned once for it.
	switch line[0] {
	case '{':
		return parseMessage(line)
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(line, &elems); err != nil {
			return syntaxError(line, err)
		}
		if len(elems) == 0 {
			return invalid(nullID, "an empty batch is not a message")
		}
		return frame{kind: frameBatch, elems: elems}
	}
	if err := json.Unmarshal(line, new(json.RawMessage)); err != nil {
		return syntaxError(line, err)
	}
	return invalid(nullID, "a message must be a JSON object, not "+jsonvalue.Kind(line))
}

// parseMessage checks a JSON value within the limits as one message: a line, or an
// element of a batch.
func parseMessage(v []byte) frame {
	if v[0] != '{' {
		return invalid(nullID, "a message must be a JSON object, not "+jsonvalue.Kind(v))
	}
	// The members alias one copy of v: a line's buffer is reused, and its
	// params outlive it.
	members, ok := jsonvalue.Members(bytes.Clone(v))
	if !ok {
		if err := json.Unmarshal(v, &members); err != nil {
			return syntaxError(v, err)
		}
	}
	return checkMessage(members)
}

// syntaxError is the -32700 answer to a line that is not JSON, saying where.
func syntaxError(line []byte, err error) frame {
	msg := "parse error: " + err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		msg += fmt.Sprintf(" (byte %d)", se.Offset)
	}
	return answer(line, jsonrpc.CodeParseError, msg)
}

// checkMessage checks the members of a JSON-RPC message: jsonrpc, id, method,
// params, or for a response result or error.
func checkMessage(m map[string]json.RawMessage) frame {
	rawID, hasID := m["id"]
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	id, idErr := checkID(rawID, hasID)
	// A notification (no id, a method) and a response are never answered, malformed
	// or not: there is no request to answer.
	silent := (!hasID && hasMethod) || (!hasMethod && (hasResult || hasError))
	fail := func(msg string) frame {
		f := invalid(id, msg)
		if silent {
			f.kind = frameDrop
		}
		return f
	}
	v, ok := m["jsonrpc"]
	if !ok {
		return fail(`missing "jsonrpc": "2.0"` + hint("jsonrpc", m))
	}
	if version := ""; json.Unmarshal(v, &version) != nil || version != "2.0" {
		return fail(`"jsonrpc" must be "2.0", not ` + string(truncate(v)))
	}
	if idErr != "" {
		return fail(idErr)
	}
	if !hasMethod {
		if hasResult || hasError {
			return frame{kind: frameResponse, id: rawID, result: m["result"], rpcErr: m["error"]}
		}
		return fail(`missing "method"` + hint("method", m))
	}
	var method string
	if err := json.Unmarshal(m["method"], &method); err != nil {
		return fail(`"method" must be a string, not ` + jsonvalue.Kind(m["method"]))
	}
	params := m["params"]
	if len(params) > 0 {
		switch params[0] {
		case '{', 'n': // an object, or null: as good as none
		case '[':
			f := fail("")
			f.err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("invalid params: MCP params are an object, not an array (method %q)", method)}
			return f
		default:
			return fail(`"params" must be an object, not ` + jsonvalue.Kind(params))
		}
	}
	if !hasID {
		return frame{kind: frameNotification, method: method, params: params}
	}
	return frame{kind: frameRequest, id: rawID, method: method, params: params}
}

// checkID returns the id to answer with (the id as sent when it is one, else null)
// and what is wrong with it, if anything.
func checkID(raw json.RawMessage, present bool) (json.RawMessage, string) {
	if !present {
		return nullID, ""
	}
	switch raw[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return raw, ""
	case 'n':
		return nullID, `"id" is null: a request needs a string or number id, and a notification has no "id" member`
	}
	return nullID, `"id" must be a string or a number, not ` + jsonvalue.Kind(raw)
}

// hint is the " (did you mean ...?)" of a missing member whose name a present
// member resembles, as "Method" or "methd" for "method".
func hint(name string, m map[string]json.RawMessage) string {
	var keys []string
	for k := range m {
		if len(k) <= 2*len(name) { // the edit distance of a long key costs its length
			keys = append(keys, k)
		}
	}
	if s := spell.Suggest(name, keys); s != "" {
		return fmt.Sprintf(" (did you mean %q? member names are case-sensitive)", s)
	}
	return ""
}

// invalid is a -32600 invalid request answered with id.
func invalid(id json.RawMessage, msg string) frame {
	return frame{kind: frameAnswer, id: id, err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + msg}}
}

// answer is an error for a line that cannot be decoded whole, answered with the id
// found at its start, if any.
func answer(line []byte, code int64, msg string) frame {
	return frame{kind: frameAnswer, id: recoverID(line), err: &jsonrpc.Error{Code: code, Message: msg}}
}

// recoverID finds the id of a message that cannot be decoded whole (it is cut off,
// malformed or too deep further on): the "id" member of the top-level object, when
// it comes, complete and a string or number, before the problem. Otherwise null.
func recoverID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nullID
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nullID
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nullID
		}
		if key == "id" {
			if id, msg := checkID(v, true); msg == "" && utf8.Valid(id) {
				return id
			}
			return nullID
		}
	}
	return nullID
}

// depth returns the deepest nesting of objects and arrays in a JSON text, counting
// no further than limit+1.
func depth(b []byte, limit int) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			if d > deepest {
				deepest = d
				if deepest > limit {
					return deepest
				}
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// invalidUTF8 returns the offset of the first byte of b that is not valid UTF-8.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// truncate shortens a value quoted in an error.
func truncate(v []byte) []byte {
	if len(v) <= 40 {
		return v
	}
	cut := 37
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return append(v[:cut:cut], "..."...)
}

// idKey is the identity of a request id among those in flight: a string by its
// value (however it was escaped), a number by its text.
func idKey(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", false
	}
	return "n" + string(raw), true
}

// meta is the _meta of a JSON object (params or a result), nil if it has none.
func meta(obj json.RawMessage) map[string]json.RawMessage {
	var o struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(obj, &o)
	return o.Meta
}

// withMeta is the JSON object obj (params or a result; none is an empty one) with
// value under key in its _meta, or obj unchanged when it is not an object.
func withMeta(obj json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	o := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" && json.Unmarshal(obj, &o) != nil {
		return obj
	}
	m := meta(obj)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = value
	var err error
	if o["_meta"], err = json.Marshal(m); err != nil {
		return obj
	}
	out, err := json.Marshal(o)
	if err != nil {
		return obj
	}
	return out
}
