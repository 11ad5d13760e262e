package jsonedit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		path      []string
		value     string
		want      string
	}{
		{"empty document", "", []string{"mcpServers", "x"}, `{"command":"/a"}`,
			"{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"/a\"\n    }\n  }\n}\n"},
		{"other members kept as written", "{\n  \"n\": 1796541382598,\n  \"mcpServers\": {\n    \"other\": {\"command\":  \"/o\"}\n  }\n}",
			[]string{"mcpServers", "x"}, `{"command":"/a"}`,
			"{\n  \"n\": 1796541382598,\n  \"mcpServers\": {\n    \"other\": {\"command\":  \"/o\"},\n    \"x\": {\n      \"command\": \"/a\"\n    }\n  }\n}"},
		{"replaced in place", "{\"a\": [1,2],\n\t\"x\": {\"command\": \"/old\"},\n\t\"z\": true}\n", []string{"x"}, `{"command":"/new"}`,
			"{\"a\": [1,2],\n\t\"x\": {\n\t\t\"command\": \"/new\"\n\t},\n\t\"z\": true}\n"},
		{"one line stays one line", `{"a":1, "b":2}`, []string{"c", "d"}, `[1, 2]`, `{"a":1, "b":2, "c":{"d":[1,2]}}`},
		{"empty object inside", "{\n  \"p\": {}\n}\n", []string{"p", "k"}, `true`, "{\n  \"p\": {\n    \"k\": true\n  }\n}\n"},
		{"last duplicate is changed", `{"k":1,"k":2}`, []string{"k"}, `3`, `{"k":1,"k":3}`},
		{"escaped key", "{\n  \"a\\\"b\": 1\n}", []string{"a\"b"}, `2`, "{\n  \"a\\\"b\": 2\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Set([]byte(tc.doc), json.RawMessage(tc.value), tc.path...)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			back, err := Get(got, tc.path...)
			if err != nil || compactString(t, back) != compactString(t, json.RawMessage(tc.value)) {
				t.Fatalf("Get after Set: %s, %v", back, err)
			}
		})
	}
}

func compactString(t *testing.T, b json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestGetMissing(t *testing.T) {
	for _, doc := range []string{`{"a":{"b":1}}`, "", " \n"} {
		v, err := Get([]byte(doc), "a", "c")
		if err != nil || v != nil {
			t.Fatalf("Get of a missing key in %q: %s, %v", doc, v, err)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc    string
		line, column int
		msg          string
	}{
		{"not JSON", "{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7, "invalid character"},
		{"comment", "{\n  // mine\n  \"a\": 1\n}", 2, 3, "comments are not JSON"},
		{"not an object", "[1]", 1, 1, "not a JSON object"},
		{"value on the path not an object", `{"a": "s"}`, 1, 7, "a is a string, not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Set([]byte(tc.doc), json.RawMessage(`1`), "a", "b")
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a SyntaxError", err)
			}
			if se.Line != tc.line || se.Column != tc.column || !strings.Contains(se.Msg, tc.msg) {
				t.Fatalf("got %v, want line %d, column %d: ...%s...", se, tc.line, tc.column, tc.msg)
			}
		})
	}
}
