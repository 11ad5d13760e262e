package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over streamable HTTP each POST stands alone (HTTPHandler keeps no session), so a
// client's notifications/cancelled arrives on a POST of its own, and the SDK, which
// knows only the requests of the one session it makes for that POST, cannot find
// the call it names. And the SDK does not end a call whose client went away: it
// keeps its handlers' contexts apart from the request's. httpCalls does both:
//
//   - every tools/call POST has a context that ends when its connection closes
//     before the answer is written (the client went away), and
//   - a single tools/call is kept by principal and request id while it runs, so that
//     a notifications/cancelled of that principal naming that id ends it, and the
//     same id sent by another principal ends nothing.
//
// A stateless request has no identity but its principal's, so a cancel names a
// request among all the calls of its principal, whichever client sent them. Request
// ids are the clients' own, and two clients of one principal (sharing a token) may
// use one id at once: a cancel of an id several calls share cannot tell which it
// means, and ends none (the log says why). Each call of a batch (protocols before
// 2025-06-18) is kept so too, and a session's call (HTTPOptions.Sessions) by its
// session and id, its POST's end leaving it running (the client may resume).
//
// Server.call binds its context to the POST's (bind), for calls the SDK serves as for
// those served directly, and logs why a call it ended was cancelled and how long it
// took to end after that. The calls of a batch and of a session are bound through a
// tag, since the SDK hands their handlers neither the POST's context nor its id.

// The causes of a call's end that httpCalls gives, as the log names them.
var (
	errCancelled  = errors.New("the client cancelled the request")
	errClientGone = errors.New("the client went away")
)

// httpCalls are the tools/call requests in flight over HTTP. The zero value is
// ready; it is safe for concurrent use.
type httpCalls struct {
	mu sync.Mutex
	m  map[callKey][]*httpCall
	// tagged holds the calls of sessions by the tag their POST carries to
	// Server.call (see startSession).
	tagged map[string]*httpCall
}

// callKey names a call: its principal ("" for the local user) and its request id
// (idKey), which for a session's call is prefixed by the session's id.
type callKey struct{ principal, id string }

// An httpCall is a tools/call in flight over HTTP, of principal.
type httpCall struct {
	ctx       context.Context
	principal string
	// end cancels ctx with its cause, the first time, and records when.
	end func(cause error)

	mu    sync.Mutex
	ended time.Time
}

// httpCallKey is the context key of a POST's httpCall.
type httpCallKey struct{}

// callTagHeader carries the tag of a session's call from its POST to Server.call:
// the SDK hands the handler of a session's request the headers of its POST, and
// nothing else of it. HTTPHandler removes it from every request it is sent in.
const callTagHeader = "Luatool-Call-Tag"

// newHTTPCall is a call whose context keeps the values of parent's but ends only
// by its end.
func newHTTPCall(parent context.Context, principal string) (*httpCall, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	c := &httpCall{ctx: ctx, principal: principal}
	c.end = func(cause error) {
		c.mu.Lock()
		if c.ended.IsZero() {
			c.ended = time.Now()
		}
		c.mu.Unlock()
		cancel(cause)
	}
	return c, cancel
}

// add keeps c under k, for the cancellations that name it, until the function it
// returns is called.
func (hc *httpCalls) add(k callKey, c *httpCall) func() {
	hc.mu.Lock()
	if hc.m == nil {
		hc.m = map[callKey][]*httpCall{}
	}
	hc.m[k] = append(hc.m[k], c)
	hc.mu.Unlock()
	return func() {
		hc.mu.Lock()
		if list := slices.DeleteFunc(hc.m[k], func(o *httpCall) bool { return o == c }); len(list) > 0 {
			hc.m[k] = list
		} else {
			delete(hc.m, k)
		}
		hc.mu.Unlock()
	}
}

// start registers a POST carrying a tools/call of the principal with the request
// id and returns the request to serve, whose context ends with the call, and the function to call once
// it is answered.
func (hc *httpCalls) start(r *http.Request, principal string, id json.RawMessage) (*http.Request, func()) {
	c, done := hc.track(r, principal, id)
	return r.WithContext(context.WithValue(c.ctx, httpCallKey{}, c)), done
}

// track is a call of the principal with the request id carried by the POST r, kept
// by id (when it has one) until the function returned is called; it ends when r's
// connection closes.
func (hc *httpCalls) track(r *http.Request, principal string, id json.RawMessage) (*httpCall, func()) {
	c, cancel := newHTTPCall(r.Context(), principal)
	// The request's context ends when its connection closes, and once the handler
	// returns: gone is stopped before that.
	gone := context.AfterFunc(r.Context(), func() { c.end(errClientGone) })
	remove := func() {}
	if key, ok := idKey(id); ok {
		remove = hc.add(callKey{principal, key}, c)
	}
	return c, func() {
		gone()
		remove()
		cancel(nil)
	}
}

// startBatch keeps each tools/call of the principal's batch body, carried by the
// POST r, as track does, and returns the body to serve, each call tagged in its
// params' _meta (metaCallTag) for bind to find it, and the function to call once
// the batch is answered. A body it cannot read is returned as it is.
func (hc *httpCalls) startBatch(r *http.Request, principal string, body []byte) ([]byte, func()) {
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil {
		return body, func() {}
	}
	var dones []func()
	done := func() {
		for _, d := range dones {
			d()
		}
	}
	for i, e := range elems {
		f := parseMessage(e)
		if f.kind != frameRequest || f.method != "tools/call" {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(e, &m) != nil {
			continue
		}
		tag := rand.Text()
		m["params"] = withMeta(m["params"], metaCallTag, json.RawMessage(`"`+tag+`"`))
		tagged, err := json.Marshal(m)
		if err != nil {
			continue
		}
		c, d := hc.track(r, principal, f.id)
		dones = append(dones, d, hc.tag(c, tag))
		elems[i] = tagged
	}
	out, err := json.Marshal(elems)
	if err != nil {
		done()
		return body, func() {}
	}
	return out, done
}

// metaCallTag is the key of _meta under which a call of a batch carries its tag
// (see startBatch).
const metaCallTag = "luatool/call-tag"

// tag keeps c under tag, for bind, until the function returned is called.
func (hc *httpCalls) tag(c *httpCall, tag string) func() {
	hc.mu.Lock()
	if hc.tagged == nil {
		hc.tagged = map[string]*httpCall{}
	}
	hc.tagged[tag] = c
	hc.mu.Unlock()
	return func() {
		hc.mu.Lock()
		delete(hc.tagged, tag)
		hc.mu.Unlock()
	}
}

// startSession registers a POST carrying a tools/call of the principal's session,
// kept by the session and the request id, and tags the request (callTagHeader) for
// bind to find it. The call does not end with its POST: the session's client may
// resume the stream and read the answer. The function returned is to be called
// once the POST is served.
func (hc *httpCalls) startSession(r *http.Request, principal, session string, id json.RawMessage) func() {
	key, ok := idKey(id)
	if !ok {
		return func() {}
	}
	c, _ := newHTTPCall(r.Context(), principal) // ended by a cancellation only
	remove := hc.add(callKey{principal, session + " " + key}, c)
	tag := rand.Text()
	untag := hc.tag(c, tag)
	r.Header.Set(callTagHeader, tag)
	return func() {
		remove()
		untag()
	}
}

// cancel serves the params of a principal's notifications/cancelled, sent on the
// session ("" for none): it ends the principal's call of that request id (on that
// session) when there is exactly one, and logs what it did.
func (hc *httpCalls) cancel(principal, session string, params json.RawMessage, log *slog.Logger) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	if principal != "" {
		log = log.With("principal", principal)
	}
	key, ok := idKey(p.RequestID)
	if !ok {
		log.Warn("cancel", "request", string(truncate(p.RequestID)), "calls", 0, "error", "the notification names no request id")
		return
	}
	if session != "" {
		key = session + " " + key
		log = log.With("session", session)
	}
	hc.mu.Lock()
	calls := hc.m[callKey{principal, key}]
	var c *httpCall
	if len(calls) == 1 {
		c = calls[0]
	}
	hc.mu.Unlock()
	switch {
	case c != nil:
		c.end(errCancelled)
		log.Info("cancel", "request", string(p.RequestID), "calls", 1)
	case len(calls) > 1:
		log.Warn("cancel", "request", string(p.RequestID), "calls", 0, "error",
			"several calls of this principal in flight have this request id, and none is cancelled: give each client a token of its own")
	default:
		log.Info("cancel", "request", string(p.RequestID), "calls", 0)
	}
}

// bind returns ctx ending also when the POST of the call served under it ends (the
// client cancelled or went away), the POST's httpCall (nil for a call not served
// over HTTP), and the function that releases what bind set up. A call of a session
// or of a batch names its httpCall by a tag (in its POST's header, or its params'
// _meta), taken only from a call of the same principal.
func (hc *httpCalls) bind(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *httpCall, func()) {
	var tag string
	if req.Extra != nil && req.Extra.Header != nil {
		tag = req.Extra.Header.Get(callTagHeader)
	}
	if t, ok := req.Params.Meta[metaCallTag].(string); ok {
		tag = t
	}
	c, _ := ctx.Value(httpCallKey{}).(*httpCall)
	if tag != "" {
		hc.mu.Lock()
		if t := hc.tagged[tag]; t != nil && t.principal == principal(req.Extra, nil).Name {
			c = t
		}
		hc.mu.Unlock()
	}
	if c == nil {
		return ctx, nil, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(c.ctx, func() { cancel(context.Cause(c.ctx)) })
	return ctx, c, func() {
		stop()
		cancel(nil)
	}
}

// endAttrs are the attributes of the log line of a call that ended because its
// client cancelled it or went away: why, and how long the call took to end after
// that.
func (c *httpCall) endAttrs() []any {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	if ended.IsZero() {
		return nil
	}
	return []any{"reason", context.Cause(c.ctx).Error(), "since_cancel", time.Since(ended)}
}

// requestPrincipal is who an HTTP request runs for: the principal its token names,
// or "" (the local user).
func requestPrincipal(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}
