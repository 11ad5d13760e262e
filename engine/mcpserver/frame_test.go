package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzLimits are small, so that the fuzzer reaches them.
var fuzzLimits = frameLimits{maxBytes: 64, maxDepth: 4}

// FuzzFramer feeds a stream to the line reader and every line to parseFrame:
// the lines are the stream's, split at newlines, with those over the limit
// flagged; and every frame keeps the promises parseFrame makes, checked against
// encoding/json.
func FuzzFramer(f *testing.F) {
	for _, seed := range []string{
		echoCall("1", "a") + "\n" + echoCall(`"x"`, "b") + "\r\n",
		"hello\n5\n\"ping\"\nnull\n[]\n\n \t\r\n",
		`{"jsonrpc":"2.0","id":7,"method":"ping"` + "\n",
		`{"jsonrpc":"2.0","id":8,"method":"ping"} {}`,
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"x\":\"\xff\"}",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},1,{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":2.0,"id":"v","method":"ping"}`,
		`{"id":2,"Method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":5,"method":5}`,
		`{"jsonrpc":"2.0","id":6,"method":"m","params":"all"}` + "\n" + `{"jsonrpc":"2.0","id":6,"method":"m","params":[1]}`,
		`{"jsonrpc":"2.0","id":11,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":"d","method":"m","params":{"a":[[[[[1]]]]]}}`,
		`{"jsonrpc":"2.0","id":"big","method":"m","params":{"x":"` + strings.Repeat("a", 100) + `"}}` + "\n",
		`{"jsonrpc":"2.0","id":1e30,"method":"m"}` + "\n" + `{"jsonrpc":"2.0","id":"a\u0062\"","method":"m"}`,
		`{"jsonrpc":"2.0","id":"\\"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A small buffer, so that lines longer than it take the path of long lines.
		lr := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(data), 16), max: fuzzLimits.maxBytes}
		want := bytes.Split(data, []byte("\n"))
		for i := 0; ; i++ {
			line, tooLong, err := lr.next()
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if i >= len(want) {
				t.Fatalf("line %d %q: the stream has %d", i, line, len(want))
			}
			seg := want[i]
			if i < len(want)-1 {
				seg = bytes.TrimSuffix(seg, []byte("\r"))
			}
			if tooLong != (len(seg) > fuzzLimits.maxBytes) {
				t.Fatalf("line %d: tooLong %v for %d bytes", i, tooLong, len(seg))
			}
			// A long line's prefix may take in its terminator.
			if tooLong && !bytes.HasPrefix(append(want[i], '\n'), line) || !tooLong && !bytes.Equal(line, seg) {
				t.Fatalf("line %d: %q, want %q", i, line, seg)
			}
			checkFrame(t, line, parseFrame(line, tooLong, fuzzLimits), tooLong)
			if err != nil {
				if i != len(want)-1 {
					t.Fatalf("the stream ended at line %d of %d", i, len(want))
				}
				return
			}
		}
	})
}

// checkFrame checks what parseFrame made of line (or of an element of a batch).
func checkFrame(t *testing.T, line []byte, f frame, tooLong bool) {
	t.Helper()
	line = bytes.TrimSpace(line)
	var members map[string]json.RawMessage
	// encoding/json takes invalid UTF-8 (as U+FFFD); JSON text may not have it.
	object := !tooLong && utf8.Valid(line) && json.Unmarshal(line, &members) == nil && line[0] == '{'
	switch f.kind {
	case frameBlank:
		if len(line) != 0 {
			t.Fatalf("%q: blank", line)
		}
	case frameAnswer, frameDrop:
		resp := encodeResponse(f.id, nil, f.err)
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct{ Code int }
		}
		if err := json.Unmarshal(resp, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("%q: the answer %q is not JSON-RPC (%v)", line, resp, err)
		}
		if c := m.Error.Code; c != -32700 && c != -32600 && c != -32602 {
			t.Fatalf("%q: code %d", line, c)
		}
		if string(f.id) != "null" {
			if _, ok := idKey(f.id); !ok || !bytes.Contains(line, f.id) {
				t.Fatalf("%q: id %q is not one of the line's", line, f.id)
			}
		}
		if f.kind == frameAnswer && wellFormed(members) && object && depthOK(line) {
			t.Fatalf("%q: a well-formed request answered with %s", line, f.err.Message)
		}
	case frameRequest, frameNotification:
		if !object || !depthOK(line) || !wellFormed(members) {
			t.Fatalf("%q: taken as a request or notification", line)
		}
		if _, hasID := members["id"]; hasID != (f.kind == frameRequest) || string(members["id"]) != string(f.id) {
			t.Fatalf("%q: id %q", line, f.id)
		}
	case frameResponse:
		if !object || members["method"] != nil || members["result"] == nil && members["error"] == nil {
			t.Fatalf("%q: taken as a response", line)
		}
	case frameBatch:
		var elems []json.RawMessage
		if tooLong || json.Unmarshal(line, &elems) != nil || len(elems) == 0 || len(elems) != len(f.elems) || !depthOK(line) {
			t.Fatalf("%q: taken as a batch", line)
		}
		for _, e := range f.elems {
			e = bytes.TrimSpace(e)
			checkFrame(t, e, parseMessage(e), false)
		}
	}
}

// wellFormed reports whether the members are those of a valid request or
// notification.
func wellFormed(m map[string]json.RawMessage) bool {
	var version, method string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" || json.Unmarshal(m["method"], &method) != nil {
		return false
	}
	if id, ok := m["id"]; ok {
		var v any
		json.Unmarshal(id, &v)
		switch v.(type) {
		case string, float64:
		default:
			return false
		}
	}
	p := m["params"]
	return len(p) == 0 || p[0] == '{' || string(p) == "null"
}

// depthOK reports whether a valid JSON text nests no deeper than fuzzLimits allow,
// counted by decoding it.
func depthOK(line []byte) bool {
	var v any
	if json.Unmarshal(line, &v) != nil {
		return false
	}
	var depth func(any) int
	depth = func(v any) int {
		d := 0
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				d = max(d, depth(e))
			}
			return d + 1
		case []any:
			for _, e := range v {
				d = max(d, depth(e))
			}
			return d + 1
		}
		return 0
	}
	return depth(v) <= fuzzLimits.maxDepth
}

// BenchmarkParseFrame is the framer's cost for a typical tools/call line: split
// from the stream, checked, and its answer's id put back.
func BenchmarkParseFrame(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"/home/user/project/main.go","offset":10,"limit":200},"_meta":{"progressToken":12345}}}` + "\n")
	stream := bytes.Repeat(line, 1000)
	lim := frameLimits{maxBytes: DefaultMaxFrameBytes, maxDepth: DefaultMaxDepth}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i += 1000 {
		lr := newLineReader(bytes.NewReader(stream), lim.maxBytes)
		for j := 0; j < 1000 && i+j < b.N; j++ {
			l, tooLong, _ := lr.next()
			f := parseFrame(l, tooLong, lim)
			if f.kind != frameRequest {
				b.Fatal(f.err)
			}
			encodeResponse(f.id, json.RawMessage(`{}`), nil)
		}
	}
}
