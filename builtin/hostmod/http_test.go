package hostmod_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine/netpolicy"
)

// mapResolver resolves the names it holds, and no other: tests reach their local
// server under names of their choosing without /etc/hosts.
type mapResolver map[string][]netip.Addr

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := m[host]; ok {
		return addrs, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

var loopback = []netip.Addr{netip.MustParseAddr("127.0.0.1")}

// httpEnv is a local server with the names api.test, other.test and rebind.test
// resolving to it, and a count of the requests it saw.
type httpEnv struct {
	t        *testing.T
	srv      *httptest.Server
	port     string
	requests atomic.Int32
	cancel   atomic.Pointer[context.CancelFunc] // set by tests whose handler ends the call
}

func newHTTPEnv(t *testing.T) *httpEnv {
	t.Helper()
	v := &httpEnv{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Add("X-Many", "one")
		w.Header().Add("X-Many", "two")
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"a": [1, 2], "b": null}`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "body": string(body),
			"type": r.Header.Get("Content-Type"), "agent": r.Header.Get("User-Agent"), "test": r.Header.Get("X-Test")})
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		chunk := strings.Repeat("x", 64<<10)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := io.WriteString(w, chunk[:k]); err != nil {
				return
			}
			w.(http.Flusher).Flush() // no Content-Length: the cap is found while reading
			n -= k
		}
	})
	mux.HandleFunc("/sized", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		io.WriteString(w, strings.Repeat("y", 5000))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		if cancel := v.cancel.Load(); cancel != nil {
			(*cancel)()
		}
		<-r.Context().Done()
	})
	v.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.requests.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(v.srv.Close)
	u, _ := url.Parse(v.srv.URL)
	v.port = u.Port()
	return v
}

// url is http://host:port/path on the server.
func (v *httpEnv) url(host, path string) string { return "http://" + host + ":" + v.port + path }

// module is the http module with the test names and the policy of deny and allow.
func (v *httpEnv) module(deny, allow []string) *bindings.Module {
	v.t.Helper()
	policy, err := netpolicy.NewPolicy(deny, allow)
	if err != nil {
		v.t.Fatal(err)
	}
	return hostmod.HTTP(hostmod.HTTPOptions{Policy: policy, Resolver: mapResolver{
		"api.test": loopback, "other.test": loopback, "rebind.test": loopback,
	}})
}

// call is the Call of a tool's call that may write and reaches network.
func call(network ...string) *bindings.Call {
	return &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite, Entry: "call", Network: network}
}

// run runs body with the http module of v (names allowed to resolve to loopback:
// api.test) under c; the server's URL base is the first argument.
func (v *httpEnv) run(c *bindings.Call, body string, args ...string) ([]any, error) {
	v.t.Helper()
	return runWith(v.t, []*bindings.Module{v.module(nil, []string{"api.test"})}, c, body, args...)
}

func (v *httpEnv) must(c *bindings.Call, body string, args ...string) []any {
	v.t.Helper()
	out, err := v.run(c, body, args...)
	if err != nil {
		v.t.Fatalf("lua: %v", err)
	}
	return out
}

func TestHTTPGet(t *testing.T) {
	v := newHTTPEnv(t)
	out := v.must(call("api.test"), `local r, err = http.get(...) assert(r, err)
return r.status, r.statusText, r.body, r.headers["content-type"], r.headers["x-many"], r.url, r.json`, v.url("api.test", "/hello"))
	want := []any{200, "OK", "hello", "text/plain; charset=utf-8", "one, two", v.url("api.test", "/hello"), nil}
	if fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", out, want)
	}
	out = v.must(call("api.test"), `local json = require("json")
local r = assert(http.request{ url = ... })
return r.json.a[2], r.json.b == json.null, json.isarray(r.json.a)`, v.url("api.test", "/json"))
	if fmt.Sprint(out) != "[2 true true]" {
		t.Errorf("json: %v", out)
	}
}

func TestHTTPRefusesUndeclaredHosts(t *testing.T) {
	v := newHTTPEnv(t)
	for _, c := range []struct {
		name string
		call *bindings.Call
		url  string
		msg  string
	}{
		{"another host", call("api.test"), v.url("other.test", "/hello"),
			`http.get: other.test is not among the hosts the tool declares (network = { "api.test" }); add it to the tool's network member`},
		{"a subdomain", call("api.test"), v.url("sub.api.test", "/hello"), "sub.api.test is not among the hosts"},
		{"no network member", call(), v.url("api.test", "/hello"), `the tool declares no host it may reach; list the hosts in its network member, e.g. network = { "api.test" }`},
		{"a host the permission does not cover", &bindings.Call{Context: context.Background(), Access: bindings.AccessRead, Entry: "call", Network: []string{"api.test"}, NetworkGranted: true},
			v.url("other.test", "/hello"), "other.test is not covered by this call's permission (domain:api.test); each host needs a permission of its own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := v.must(c.call, `return http.get(...)`, c.url)
			wantFailure(t, out, c.msg, "undeclared")
		})
	}
	if n := v.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
}

func TestHTTPRefusesSpecialAddresses(t *testing.T) {
	v := newHTTPEnv(t)
	// A literal loopback address, declared by the tool but not named by the host.
	out, err := runWith(t, []*bindings.Module{v.module(nil, nil)}, call("127.0.0.1"), `return http.get(...)`, v.url("127.0.0.1", "/hello"))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, out, "http.get: 127.0.0.1 is a loopback address: tools reach loopback, private, link-local and cloud metadata addresses only when the host's network allow list names the host or the address", "private")
	// A name the tool declares that resolves to loopback (rebind.test), checked on
	// the address being dialled.
	out, err = runWith(t, []*bindings.Module{v.module(nil, nil)}, call("rebind.test"), `return http.get(...)`, v.url("rebind.test", "/hello"))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, out, "rebind.test resolves to 127.0.0.1, which is a loopback address", "private")
	// IPv4-mapped IPv6 is the same address.
	out, err = runWith(t, []*bindings.Module{v.module(nil, nil)}, call("::ffff:127.0.0.1"), `return http.get(...)`, "http://[::ffff:127.0.0.1]:"+v.port+"/hello")
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, out, "127.0.0.1 is a loopback address", "private")
	if n := v.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
	// The host's allow list naming the address lets it through.
	out, err = runWith(t, []*bindings.Module{v.module(nil, []string{"127.0.0.1"})}, call("127.0.0.1"), `local r, err = http.get(...) return r and r.body or err`, v.url("127.0.0.1", "/hello"))
	if err != nil || out[0] != "hello" {
		t.Errorf("allowed address: %v, %v", out, err)
	}
}

func TestHTTPHostPolicyDenyWins(t *testing.T) {
	v := newHTTPEnv(t)
	mod := v.module([]string{"api.test"}, []string{"api.test"})
	out, err := runWith(t, []*bindings.Module{mod}, call("api.test"), `return http.get(...)`, v.url("api.test", "/hello"))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, out, `http.get: api.test is denied by the host's network policy (deny "api.test")`, "blocked")
	// A denied prefix catches the address a declared, allowed name resolves to.
	mod = v.module([]string{"127.0.0.0/8"}, []string{"api.test"})
	out, err = runWith(t, []*bindings.Module{mod}, call("api.test"), `return http.get(...)`, v.url("api.test", "/hello"))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, out, `api.test resolves to 127.0.0.1, which the host's network policy denies (deny "127.0.0.0/8")`, "blocked")
	if n := v.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
}

func TestHTTPRedirects(t *testing.T) {
	v := newHTTPEnv(t)
	// Followed within the declared hosts.
	out := v.must(call("api.test"), `local r = assert(http.get(...)) return r.body, r.url`, v.url("api.test", "/redirect?to=/hello"))
	if out[0] != "hello" || out[1] != v.url("api.test", "/hello") {
		t.Errorf("same host: %v", out)
	}
	// Refused to an undeclared host, which is never asked.
	before := v.requests.Load()
	out = v.must(call("api.test"), `return http.get(...)`, v.url("api.test", "/redirect?to="+url.QueryEscape(v.url("other.test", "/hello"))))
	wantFailure(t, out, "http.get: redirected from "+v.url("api.test", "/redirect")+"?to=", "undeclared")
	wantFailure(t, out, "to "+v.url("other.test", "/hello")+": other.test is not among the hosts the tool declares", "undeclared")
	if n := v.requests.Load() - before; n != 1 {
		t.Errorf("the server saw %d requests, want the first one only", n)
	}
	// Refused to a declared name that resolves to an address the host does not name.
	out = v.must(call("api.test", "rebind.test"), `return http.get(...)`, v.url("api.test", "/redirect?to="+url.QueryEscape(v.url("rebind.test", "/hello"))))
	wantFailure(t, out, "rebind.test resolves to 127.0.0.1, which is a loopback address", "private")
	// Not followed at all with redirects = 0.
	out = v.must(call("api.test"), `local r = assert(http.get(..., { redirects = 0 })) return r.status, r.headers.location, r.location`, v.url("api.test", "/redirect?to=/hello"))
	if fmt.Sprint(out) != "[302 /hello "+v.url("api.test", "/hello")+"]" {
		t.Errorf("redirects = 0: %v", out)
	}
	// Bounded.
	out = v.must(call("api.test"), `return http.get(..., { redirects = 3 })`, v.url("api.test", "/loop"))
	wantFailure(t, out, "http.get: stopped after 3 redirects (the request's limit; option redirects, at most 20)", "redirects")
}

func TestHTTPMethodsOfReadOnlyCalls(t *testing.T) {
	v := newHTTPEnv(t)
	readOnly := call("api.test")
	readOnly.Access = bindings.AccessRead
	out := v.must(readOnly, `return http.post(..., "data")`, v.url("api.test", "/echo"))
	wantFailure(t, out, "http.post: POST is not allowed in this call: the tool is read-only for this input, and a read-only call may only GET, HEAD or OPTIONS", "readonly")
	out = v.must(readOnly, `return http.request{ method = "delete", url = ... }`, v.url("api.test", "/echo"))
	wantFailure(t, out, "DELETE is not allowed in this call", "readonly")
	if n := v.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
	out = v.must(readOnly, `local r = assert(http.request{ method = "HEAD", url = ... }) return r.status`, v.url("api.test", "/hello"))
	if fmt.Sprint(out[0]) != "200" {
		t.Errorf("HEAD in a read-only call: %v", out)
	}
	// A call that may write sends what it is given.
	out = v.must(call("api.test"), `local u = ...
local a = assert(http.post(u, "raw body")).json
local b = assert(http.post(u, { json = { n = 1 }, headers = { ["X-Test"] = "yes", ["User-Agent"] = "mine" } })).json
local c = assert(http.request{ url = u, method = "PUT", body = "put" }).json
return a.method, a.body, a.agent, b.body, b.type, b.test, b.agent, c.method, c.body`, v.url("api.test", "/echo"))
	want := `[POST raw body luatool (+https://github.com/luatool/luatool) {"n":1} application/json yes mine PUT put]`
	if fmt.Sprint(out) != want {
		t.Errorf("got %v\nwant %s", out, want)
	}
}

func TestHTTPBodyCap(t *testing.T) {
	v := newHTTPEnv(t)
	out := v.must(call("api.test"), `return http.get(..., { maxBytes = 1024 })`, v.url("api.test", "/stream?n=5000"))
	wantFailure(t, out, "http.get: the response body of "+v.url("api.test", "/stream?n=5000")+" is over the cap of 1 KiB (maxBytes = 1024)", "toolarge")
	// Found from Content-Length before reading.
	out = v.must(call("api.test"), `return http.get(..., { maxBytes = 4999 })`, v.url("api.test", "/sized"))
	wantFailure(t, out, "is over the cap of 4999 bytes (maxBytes = 4999)", "toolarge")
	// The default cap.
	u := v.url("api.test", "/stream?n="+strconv.Itoa(hostmod.DefaultHTTPMaxBytes+1))
	out = v.must(call("api.test"), `return http.get(...)`, u)
	wantFailure(t, out, "is over the cap of 10 MiB (maxBytes = 10485760)", "toolarge")
	// A HEAD of a large body reads none of it.
	out = v.must(call("api.test"), `local r = assert(http.request{ method = "HEAD", url = ..., maxBytes = 10 }) return r.status, r.headers["content-length"]`, v.url("api.test", "/sized"))
	if fmt.Sprint(out) != "[200 5000]" {
		t.Errorf("HEAD: %v", out)
	}
	out = v.must(call("api.test"), `local r = assert(http.get(..., { maxBytes = 5000 })) return #r.body`, v.url("api.test", "/sized"))
	if fmt.Sprint(out[0]) != "5000" {
		t.Errorf("a body at the cap: %v", out)
	}
}

func TestHTTPProgress(t *testing.T) {
	v := newHTTPEnv(t)
	c := call("api.test")
	var events []map[string]any
	c.Progress = func(data any) { events = append(events, data.(map[string]any)) }
	v.must(c, `assert(http.get(...))`, v.url("api.test", "/stream?n="+strconv.Itoa(3<<20+10)))
	if len(events) != 3 {
		t.Fatalf("%d progress events: %v", len(events), events)
	}
	for i, e := range events {
		if e["kind"] != "download" || e["bytes"].(int) < (i+1)<<20 || e["url"] == "" {
			t.Errorf("event %d: %v", i, e)
		}
	}
}

func TestHTTPDeadlines(t *testing.T) {
	v := newHTTPEnv(t)
	out := v.must(call("api.test"), `return http.get(..., { timeout = 50 })`, v.url("api.test", "/hang"))
	wantFailure(t, out, "http.get: no complete response within the request's timeout", "timeout")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v.cancel.Store(&cancel)
	c := call("api.test")
	c.Context = ctx
	out, err := v.run(c, `return http.get(...)`, v.url("api.test", "/hang"))
	// The call's end stops the request; the VM may report it as the call's error.
	if err == nil {
		wantFailure(t, out, "the call ended before the response did", "cancelled")
	} else if !strings.Contains(err.Error(), "cancel") {
		t.Errorf("cancelled call: %v", err)
	}
}

func TestHTTPIgnoresProxiesFromTheEnvironment(t *testing.T) {
	v := newHTTPEnv(t)
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	out := v.must(call("api.test"), `local r, err = http.get(...) return r and r.body or err`, v.url("api.test", "/hello"))
	if out[0] != "hello" {
		t.Errorf("with a proxy in the environment: %v", out)
	}
}

func TestHTTPPhases(t *testing.T) {
	v := newHTTPEnv(t)
	_, err := v.run(&bindings.Call{Context: context.Background()}, `return http.get(...)`, v.url("api.test", "/hello"))
	wantRaise(t, err, "http.get is not available while the tool file loads: call it from call()")
	_, err = v.run(&bindings.Call{Context: context.Background(), Access: bindings.AccessRead, Entry: "checkPermissions", Network: []string{"api.test"}}, `return http.get(...)`, v.url("api.test", "/hello"))
	wantRaise(t, err, "http.get is not available in checkPermissions: only call() may reach the network")
	if n := v.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests", n)
	}
}

func TestHTTPBadArguments(t *testing.T) {
	v := newHTTPEnv(t)
	for _, c := range []struct{ body, msg string }{
		{`http.get(nil)`, "bad argument #1 to 'http.get' (string expected, got nil)"},
		{`http.request()`, "bad argument #1 to 'http.request' (table expected, got nil)"},
		{`http.request{}`, "bad argument #1 to 'http.request' (option 'url' is required)"},
		{`http.request{ url = "http://api.test/", methd = "GET" }`, "bad argument #1 to 'http.request' (unknown option 'methd', did you mean 'method'? options: body, headers, json, maxBytes, method, redirects, timeout, url)"},
		{`http.request{ url = "http://api.test/", method = "GE T" }`, `option 'method': "GE T" is not an HTTP method`},
		{`http.post("http://api.test/", 5)`, "bad argument #2 to 'http.post' (string or table expected, got number)"},
		{`http.post("http://api.test/", { body = "a", json = {} })`, "bad argument #2 to 'http.post' (options 'body' and 'json' exclude each other)"},
		{`http.get("http://api.test/", { maxBytes = 0 })`, "bad argument #2 to 'http.get' (option 'maxBytes' must be between 1 and 16777216 (the string size limit))"},
		{`http.get("http://api.test/", { redirects = 21 })`, "option 'redirects' must be between 0 and 20"},
		{`http.get("http://api.test/", { headers = { a = 1 } })`, "option 'headers': a table of strings by name expected"},
		{`http.get("http://api.test/", { timeout = "1s" })`, "option 'timeout': number expected, got string"},
		{`http.markdown(1)`, "bad argument #1 to 'http.markdown' (string expected, got number)"},
	} {
		_, err := v.run(call("api.test"), c.body)
		wantRaise(t, err, c.msg)
	}
	for _, c := range []struct{ url, msg string }{
		{"ftp://api.test/x", `"ftp://api.test/x": only http and https URLs are fetched`},
		{"http:///nohost", "has no host"},
		{"api.test/hello", "only http and https URLs are fetched"},
	} {
		out := v.must(call("api.test"), `return http.get(...)`, c.url)
		wantFailure(t, out, c.msg, "badurl")
	}
}

func TestHTTPMarkdown(t *testing.T) {
	v := newHTTPEnv(t)
	out := v.must(call(), `return http.markdown(...)`,
		`<html><head><title>T</title><script>x()</script></head><body><h1>Title</h1><p>Some <b>bold</b> and a <a href="/x">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`)
	want := "# Title\n\nSome **bold** and a [link](/x).\n\n- one\n- two"
	if out[0] != want {
		t.Errorf("got %q\nwant %q", out[0], want)
	}
	out = v.must(call(), `return http.markdown(..., { baseUrl = "https://docs.example.com/guide/" })`, `<a href="/x">link</a>`)
	if out[0] != "[link](https://docs.example.com/x)" {
		t.Errorf("with a base URL: %q", out[0])
	}
}
