package hostmod

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// Error codes of the http module, besides "readonly", "toolarge" and "cancelled".
const (
	codeUndeclared = "undeclared" // the host is not among those the call may reach
	codeBlocked    = "blocked"    // the host's network policy denies the host or its address
	codePrivate    = "private"    // the host is or resolves to a special address no allow names
	codeBadURL     = "badurl"     // not an http or https URL with a host
	codeTimeout    = "timeout"    // the request's timeout option passed
	codeNetwork    = "network"    // the request failed: name lookup, connection, TLS, protocol
	codeRedirects  = "redirects"  // more redirects than the request follows
)

// HTTP defaults and bounds.
const (
	// DefaultHTTPMaxBytes caps a response body when maxBytes is not given (and the
	// VM's string limit is not lower).
	DefaultHTTPMaxBytes = 10 << 20
	// DefaultHTTPRedirects is how many redirects a request follows, each checked
	// like the first request; the redirects option may ask for 0 to MaxHTTPRedirects.
	DefaultHTTPRedirects = 10
	MaxHTTPRedirects     = 20
	// httpProgressStep is how often a download reports progress, in bytes.
	httpProgressStep = 1 << 20
	// httpUserAgent is the User-Agent of a request that sets none.
	httpUserAgent = "luatool (+https://github.com/luatool/luatool)"
)

// A Resolver looks up the addresses of a host name; *net.Resolver is one. Tests
// give their own to map a name to a local address without touching /etc/hosts.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// HTTPOptions configure the http module.
type HTTPOptions struct {
	// Policy is the host's network policy: hosts no tool may reach, and the hosts
	// that may be reached although they are special addresses (loopback, private,
	// link-local, cloud metadata, ...).
	Policy netpolicy.Policy
	// Resolver looks host names up. Nil means net.DefaultResolver.
	Resolver Resolver
	// TLS, if set, configures TLS clients (tests trust their own certificate
	// authority with RootCAs). Nil means Go's defaults and the system's roots.
	TLS *tls.Config
}

// An httpState is the http module: its options, the transport every request shares
// (its connections are pooled across calls, each dialled after the policy's check),
// and the Markdown converter.
type httpState struct {
	opts      HTTPOptions
	transport *http.Transport
	markdown  *markdownConverter
}

// HTTP returns the http module. Its requests go only to the hosts the running call
// may reach (bindings.Call.Network), never to a host the policy denies, and never
// to a special address that the policy does not name, checked on the address being
// dialled, after the name was resolved, so that a name that resolves to a private
// address, at first or on a second lookup, gets nowhere. Proxies from the
// environment are not used: a proxy would dial on the tool's behalf, out of reach
// of that check.
func HTTP(opts HTTPOptions) *bindings.Module {
	s := &httpState{opts: opts, markdown: newMarkdownConverter()}
	s.transport = &http.Transport{
		Proxy:                  nil,
		DialContext:            s.dial,
		TLSClientConfig:        opts.TLS.Clone(),
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    30 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &bindings.Module{
		Name: "http",
		Doc:  "HTTP requests from call(), to the hosts the tool declares in its network member",
		Funcs: map[string]lua.LGFunction{
			"request":  s.luaRequest,
			"get":      s.luaGet,
			"post":     s.luaPost,
			"markdown": s.luaMarkdown,
		},
	}
}

// A httpRequest is what a script asked for, its arguments checked.
type httpRequest struct {
	method    string
	url       string
	headers   map[string]string
	body      []byte
	hasBody   bool
	json      bool // body is JSON that json= gave
	timeout   time.Duration
	maxBytes  int
	redirects int
}

// The options of each function.
var (
	httpCommonOptions  = []string{"headers", "timeout", "maxBytes", "redirects"}
	httpPostOptions    = append([]string{"body", "json"}, httpCommonOptions...)
	httpRequestOptions = append([]string{"method", "url"}, httpPostOptions...)
)

// http.request{method=, url=, headers=, body=, json=, timeout=, maxBytes=,
// redirects=} sends a request and returns {status, statusText, headers, body, url,
// json}, or nil, message, code.
func (s *httpState) luaRequest(L *lua.LState) int {
	a := bindings.NewArgs(L, "http.request")
	if L.Get(1).Type() != lua.LTTable {
		a.Table(1)
	}
	o := a.Options(1, httpRequestOptions...)
	req := s.readOptions(a, 1, o)
	req.url = o.String("url", "")
	if req.url == "" {
		a.Error(1, "option 'url' is required")
	}
	method := o.String("method", "")
	switch {
	case method == "" && req.hasBody:
		method = http.MethodPost
	case method == "":
		method = http.MethodGet
	}
	if !validMethod(method) {
		a.Error(1, fmt.Sprintf("option 'method': %q is not an HTTP method", method))
	}
	req.method = strings.ToUpper(method)
	return s.do(L, a.Fn, req)
}

// http.get(url [, opts]) is http.request{method = "GET", url = url, ...opts}.
func (s *httpState) luaGet(L *lua.LState) int {
	a := bindings.NewArgs(L, "http.get")
	u := a.String(1)
	req := s.readOptions(a, 2, a.Options(2, httpCommonOptions...))
	req.method, req.url = http.MethodGet, u
	return s.do(L, a.Fn, req)
}

// http.post(url, body_or_opts) is http.request{method = "POST", url = url, body =
// body} for a string, or with the options of a table (body=, json=, headers=, ...).
func (s *httpState) luaPost(L *lua.LState) int {
	a := bindings.NewArgs(L, "http.post")
	u := a.String(1)
	var req httpRequest
	switch L.Get(2).Type() {
	case lua.LTString:
		req = s.readOptions(a, 3, bindings.Options{})
		req.body, req.hasBody = []byte(a.String(2)), true
	case lua.LTTable:
		req = s.readOptions(a, 2, a.Options(2, httpPostOptions...))
	default:
		a.Error(2, fmt.Sprintf("string or table expected, got %s", L.Get(2).Type()))
	}
	req.method, req.url = http.MethodPost, u
	return s.do(L, a.Fn, req)
}

// readOptions reads the options every function shares from o, argument n.
func (s *httpState) readOptions(a bindings.Args, n int, o bindings.Options) httpRequest {
	limit := min(DefaultHTTPMaxBytes, bindings.VMOf(a.L).Limits().MaxStringBytes)
	req := httpRequest{maxBytes: o.Int("maxBytes", limit), redirects: o.Int("redirects", DefaultHTTPRedirects)}
	if ms := o.Int("timeout", 0); ms > 0 {
		req.timeout = time.Duration(ms) * time.Millisecond
	} else if ms < 0 {
		a.Error(n, "option 'timeout' must be positive (milliseconds)")
	}
	if strLimit := bindings.VMOf(a.L).Limits().MaxStringBytes; req.maxBytes <= 0 || req.maxBytes > strLimit {
		a.Error(n, fmt.Sprintf("option 'maxBytes' must be between 1 and %d (the string size limit)", strLimit))
	}
	if req.redirects < 0 || req.redirects > MaxHTTPRedirects {
		a.Error(n, fmt.Sprintf("option 'redirects' must be between 0 and %d", MaxHTTPRedirects))
	}
	if h := o.Table("headers"); h != nil {
		req.headers = map[string]string{}
		h.ForEach(func(k, v lua.LValue) {
			name, okName := k.(lua.LString)
			value, okValue := v.(lua.LString)
			if !okName || !okValue {
				a.Error(n, "option 'headers': a table of strings by name expected")
			}
			req.headers[string(name)] = string(value)
		})
	}
	body, hasBody := o.Value("body")
	jv, hasJSON := o.Value("json")
	switch {
	case hasBody && hasJSON:
		a.Error(n, "options 'body' and 'json' exclude each other")
	case hasBody:
		str, ok := body.(lua.LString)
		if !ok {
			a.Error(n, fmt.Sprintf("option 'body': string expected, got %s", body.Type()))
		}
		req.body, req.hasBody = []byte(str), true
	case hasJSON:
		plain, err := bindings.VMOf(a.L).FromLua(jv)
		if err == nil {
			req.body, err = jsonvalue.Encode(plain)
		}
		if err != nil {
			a.Error(n, "option 'json': "+err.Error())
		}
		req.hasBody, req.json = true, true
	}
	return req
}

// validMethod reports whether m is an HTTP method token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// safeMethods are the methods a read-only call may use.
var safeMethods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true}

// do sends req for the current call and pushes the response, or nil, message, code.
func (s *httpState) do(L *lua.LState, fn string, req httpRequest) int {
	c := bindings.CurrentCall(L)
	if c != nil && c.Entry != "" && c.Entry != "call" {
		L.RaiseError("%s is not available in %s: only call() may reach the network", fn, c.Entry)
	}
	if c == nil {
		c = &bindings.Call{}
	}
	if c.Access < bindings.AccessWrite && !safeMethods[req.method] {
		return push(L, newOpError(codeShellReadOnly, "%s: %s is not allowed in this call: the tool is read-only for this input, and a read-only call may only GET, HEAD or OPTIONS", fn, req.method))
	}
	u, err := s.checkURL(c, req.url)
	if err != nil {
		return push(L, prefixed(fn, err))
	}
	parent := L.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := parent, context.CancelFunc(func() {})
	if req.timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, req.timeout)
	}
	defer cancel()
	var body io.Reader
	if req.hasBody {
		body = bytes.NewReader(req.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.method, u.String(), body)
	if err != nil {
		return push(L, newOpError(codeBadURL, "%s: %v", fn, err))
	}
	for k, v := range req.headers {
		hreq.Header.Set(k, v)
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", httpUserAgent)
	}
	if req.json && hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Transport: s.transport, CheckRedirect: func(next *http.Request, via []*http.Request) error {
		switch {
		case req.redirects == 0:
			return http.ErrUseLastResponse
		case len(via) > req.redirects:
			return newOpError(codeRedirects, "stopped after %d redirects (the request's limit; option redirects, at most %d)", req.redirects, MaxHTTPRedirects)
		}
		if _, err := s.checkURL(c, next.URL.String()); err != nil {
			var oe *opError
			if errors.As(err, &oe) {
				return newOpError(oe.code, "redirected from %s to %s: %s", via[len(via)-1].URL, next.URL, oe.msg)
			}
			return err
		}
		return nil
	}}
	var (
		resp *http.Response
		data []byte
	)
	if werr := bindings.Blocking(L, func() {
		if resp, err = client.Do(hreq); err != nil {
			return
		}
		defer resp.Body.Close()
		data, err = readBody(resp, req.maxBytes, c.Progress)
	}); werr != nil {
		L.RaiseError("%s: stopped: %v", fn, werr)
	}
	if err != nil {
		return push(L, s.failure(fn, parent, ctx, err))
	}
	pushResponse(L, resp, data)
	return 1
}

// checkURL parses raw and refuses it unless it is an http or https URL whose host
// the call may reach and the policy does not deny.
func (s *httpState) checkURL(c *bindings.Call, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, newOpError(codeBadURL, "%q is not a URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, newOpError(codeBadURL, "%q: only http and https URLs are fetched", raw)
	}
	if u.Hostname() == "" {
		return nil, newOpError(codeBadURL, "%q has no host", raw)
	}
	host, err := netpolicy.CanonicalHost(u.Hostname())
	if err != nil {
		return nil, newOpError(codeBadURL, "%q: %v", raw, err)
	}
	if err := s.opts.Policy.CheckHost(host); err != nil {
		return nil, newOpError(codeBlocked, "%v", err)
	}
	declared, _ := netpolicy.ParseList(c.Network) // the engine checked them
	if _, ok := declared.Match(host); ok {
		return u, nil
	}
	switch {
	case c.NetworkGranted && len(c.Network) == 0:
		return nil, newOpError(codeUndeclared, "%s is not covered by this call's permission, which names no host", host)
	case c.NetworkGranted:
		return nil, newOpError(codeUndeclared, "%s is not covered by this call's permission (domain:%s); each host needs a permission of its own", host, strings.Join(c.Network, ", domain:"))
	case len(c.Network) == 0:
		return nil, newOpError(codeUndeclared, "%s is not declared: the tool declares no host it may reach; list the hosts in its network member, e.g. network = { %q }", host, host)
	}
	return nil, newOpError(codeUndeclared, "%s is not among the hosts the tool declares (network = { %s }); add it to the tool's network member", host, quoteList(c.Network))
}

// quoteList renders patterns as a Lua list's items.
func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, p := range list {
		q[i] = fmt.Sprintf("%q", p)
	}
	return strings.Join(q, ", ")
}

// prefixed adds the function's name to an opError's message.
func prefixed(fn string, err error) error {
	var oe *opError
	if errors.As(err, &oe) {
		return &opError{code: oe.code, msg: fn + ": " + oe.msg}
	}
	return fmt.Errorf("%s: %w", fn, err)
}

// failure words the error of a request that did not complete: the refusal of a
// redirect or of the address about to be dialled, the end of the call, the end of
// the request's own timeout, or what went wrong on the network.
func (s *httpState) failure(fn string, parent, ctx context.Context, err error) error {
	var (
		oe      *opError
		denied  *netpolicy.DeniedError
		special *netpolicy.SpecialAddressError
	)
	switch {
	case errors.As(err, &oe):
		return prefixed(fn, oe)
	case errors.As(err, &denied):
		return newOpError(codeBlocked, "%s: %v", fn, denied)
	case errors.As(err, &special):
		return newOpError(codePrivate, "%s: %v", fn, special)
	case parent.Err() != nil:
		return newOpError(codeCancelled, "%s: the call ended before the response did (%v)", fn, parent.Err())
	case ctx.Err() != nil:
		return newOpError(codeTimeout, "%s: no complete response within the request's timeout", fn)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return newOpError(codeNetwork, "%s: %v", fn, err)
}

// readBody reads a response body of at most max bytes, reporting progress every
// httpProgressStep bytes when progress is set. A body over max is an error naming
// the cap, found from Content-Length before anything is read when the server
// says it.
func readBody(resp *http.Response, max int, progress func(any)) ([]byte, error) {
	where := resp.Request.URL.String()
	tooLarge := func() error {
		return newOpError(codeTooLarge, "the response body of %s is over the cap of %s (maxBytes = %d)", where, sizeText(max), max)
	}
	if resp.ContentLength > int64(max) && resp.Request.Method != http.MethodHead {
		return nil, tooLarge()
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	chunk := make([]byte, 32<<10)
	next := httpProgressStep
	for {
		n, err := resp.Body.Read(chunk)
		if buf.Len()+n > max {
			return nil, tooLarge()
		}
		buf.Write(chunk[:n])
		if progress != nil && buf.Len() >= next {
			next += httpProgressStep
			p := map[string]any{"kind": "download", "url": where, "bytes": buf.Len()}
			if resp.ContentLength > 0 {
				p["total"] = resp.ContentLength
			}
			progress(p)
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// sizeText renders a byte count as people read caps: "10 MiB", "512 KiB", "100 bytes".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// pushResponse pushes {status, statusText, headers, body, url, location, json}:
// header names in lower case, repeated headers joined with ", "; location, for a
// redirect not followed, its Location made absolute; json when the content type is
// JSON (application/json or +json) and the body parses.
func pushResponse(L *lua.LState, resp *http.Response, body []byte) {
	t := L.CreateTable(0, 6)
	t.RawSetString("status", lua.LNumber(resp.StatusCode))
	t.RawSetString("statusText", lua.LString(http.StatusText(resp.StatusCode)))
	headers := L.CreateTable(0, len(resp.Header))
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		headers.RawSetString(strings.ToLower(k), lua.LString(strings.Join(resp.Header.Values(k), ", ")))
	}
	t.RawSetString("headers", headers)
	t.RawSetString("body", lua.LString(body))
	t.RawSetString("url", lua.LString(resp.Request.URL.String()))
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if target, err := resp.Request.URL.Parse(loc); err == nil {
			t.RawSetString("location", lua.LString(target.String()))
		}
	}
	if isJSON(resp.Header.Get("Content-Type")) {
		if v, err := bindings.DecodeJSON(L, string(body)); err == nil {
			t.RawSetString("json", v)
		}
	}
	L.Push(t)
}

// isJSON reports whether a Content-Type is JSON's.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
