package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// httpCase is one POST: its headers beside the usual ones (a value of "" removes
// one), its body, and whether HTTPHandler serves it without the SDK.
type httpCase struct {
	name    string
	headers map[string]string
	body    string
	direct  bool
}

var httpCases = []httpCase{
	{name: "echo", body: echoCall("1", "a <b> & c"), direct: true},
	{name: "string id", body: echoCall(`"req-7:a.b_c"`, "é \u2028 \\ \""), direct: true},
	{name: "meta", body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"m"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`, direct: true},
	{name: "invalid input", body: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"Echo","arguments":{"text":5}}}`, direct: true},
	{name: "denied, nobody to ask", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"Write","arguments":{}}}`, direct: true},
	{name: "charset", headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: echoCall("6", "x"), direct: true},
	{name: "2025-11-25", headers: map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, body: echoCall("7", "x"), direct: true},
	{name: "2025-03-26", headers: map[string]string{"Mcp-Protocol-Version": "2025-03-26"}, body: echoCall("8", "x"), direct: true},
	{name: "2024-11-05", headers: map[string]string{"Mcp-Protocol-Version": "2024-11-05"}, body: echoCall("9", "x"), direct: true},

	{name: "unknown tool", body: `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"Echoo","arguments":{}}}`},
	{name: "progress token", body: `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"Steps","arguments":{},"_meta":{"progressToken":"tok"}}}`},
	{name: "fractional id", body: echoCall("12.0", "x")},
	{name: "negative id", body: echoCall("-13", "x")},
	{name: "escaped id", body: echoCall(`"\u0041"`, "x")},
	{name: "batch", body: "[" + echoCall("14", "x") + "]"},
	{name: "extra params", body: `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"x"},"task":{}}}`},
	{name: "arguments not an object", body: `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"Echo","arguments":[1]}}`},
	{name: "tools/list", body: `{"jsonrpc":"2.0","id":17,"method":"tools/list"}`},
	{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	{name: "no protocol header", headers: map[string]string{"Mcp-Protocol-Version": ""}, body: echoCall("18", "x")},
	{name: "unsupported protocol", headers: map[string]string{"Mcp-Protocol-Version": "2099-01-01"}, body: echoCall("19", "x")},
	{name: "stateless protocol", headers: map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, body: echoCall("20", "x")},
	{name: "accepts JSON only", headers: map[string]string{"Accept": "application/json"}, body: echoCall("21", "x")},
	{name: "accepts anything", headers: map[string]string{"Accept": "*/*"}, body: echoCall("22", "x")},
	{name: "text body", headers: map[string]string{"Content-Type": "text/plain"}, body: echoCall("23", "x")},
	{name: "rebinding host", headers: map[string]string{"Host": "evil.example"}, body: echoCall("24", "x")},
	{name: "method header", headers: map[string]string{"Mcp-Method": "tools/call"}, body: echoCall("25", "x")},
	{name: "session id", headers: map[string]string{"Mcp-Session-Id": "abc"}, body: echoCall("26", "x")},
	{name: "last event id", headers: map[string]string{"Last-Event-ID": "x_1"}, body: echoCall("27", "x")},
	{name: "not JSON", body: `{"jsonrpc":"2.0","id":28,`},
}

// The tools/call POSTs HTTPHandler serves itself are answered as the SDK answers
// them (status, the headers that describe the body, and the body byte for byte),
// and the others are the SDK's.
func TestHTTPDirectAnswersAsSDK(t *testing.T) {
	direct := httptest.NewServer(New(stdioEngine(t, nil), Options{}).HTTPHandler(HTTPOptions{}))
	defer direct.Close()
	sdk := httptest.NewServer(New(stdioEngine(t, nil), Options{}).HTTPHandler(HTTPOptions{viaSDK: true}))
	defer sdk.Close()
	for _, c := range httpCases {
		t.Run(c.name, func(t *testing.T) {
			got, want := postCase(t, direct.URL, c), postCase(t, sdk.URL, c)
			if got != want {
				t.Errorf("served directly:\n%s\nby the SDK:\n%s", got, want)
			}
		})
	}
}

// httpDirect takes the requests of httpCases marked direct, and no other.
func TestHTTPDirectTakes(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8097}
	for _, c := range httpCases {
		r := caseRequest(t, "http://127.0.0.1:8097/mcp", c)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
		f, _ := postFrame(r, []byte(c.body))
		if _, _, ok := srv.httpDirect(r, f); ok != c.direct {
			t.Errorf("%s: served directly %v, want %v", c.name, ok, c.direct)
		}
	}
}

// caseRequest is the POST of c to url.
func caseRequest(t *testing.T, url string, c httpCase) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	for k, v := range c.headers {
		switch {
		case k == "Host":
			r.Host = v
		case v == "":
			r.Header.Del(k)
		default:
			r.Header.Set(k, v)
		}
	}
	return r
}

// postCase posts c and returns the status, the headers that describe the answer,
// and its body.
func postCase(t *testing.T, url string, c httpCase) string {
	t.Helper()
	resp, err := http.DefaultClient.Do(caseRequest(t, url, c))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(resp.Status + "\n")
	for _, h := range []string{"Content-Type", "Cache-Control", "Connection", "Allow", "Mcp-Session-Id"} {
		b.WriteString(h + ": " + strings.Join(resp.Header.Values(h), ", ") + "\n")
	}
	b.Write(body)
	return b.String()
}
