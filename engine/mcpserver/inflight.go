package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
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
// means, and ends none (the log says why). The calls of a batch (protocols before
// 2025-06-18) end with their connection only.
//
// Server.call binds its context to the POST's (bind), for calls the SDK serves as for
// those served directly, and logs why a call it ended was cancelled and how long it
// took to end after that.

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
}

// callKey names a call: its principal ("" for the local user) and its request id
// (idKey).
type callKey struct{ principal, id string }

// An httpCall is one POST with a tools/call in flight.
type httpCall struct {
	ctx context.Context
	// end cancels ctx with its cause, the first time, and records when.
	end func(cause error)

	mu    sync.Mutex
	ended time.Time
}

// httpCallKey is the context key of a POST's httpCall.
type httpCallKey struct{}

// start registers a POST carrying a tools/call of the principal with the request
// id (nil for the calls of a batch, which are not kept by id) and returns the
// request to serve, whose context ends with the call, and the function to call once
// it is answered.
func (hc *httpCalls) start(r *http.Request, principal string, id json.RawMessage) (*http.Request, func()) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	c := &httpCall{ctx: ctx}
	c.end = func(cause error) {
		c.mu.Lock()
		if c.ended.IsZero() {
			c.ended = time.Now()
		}
		c.mu.Unlock()
		cancel(cause)
	}
	// The request's context ends when its connection closes, and once the handler
	// returns: gone is stopped before that.
	gone := context.AfterFunc(r.Context(), func() { c.end(errClientGone) })
	key, keep := idKey(id)
	k := callKey{principal, key}
	if keep {
		hc.mu.Lock()
		if hc.m == nil {
			hc.m = map[callKey][]*httpCall{}
		}
		hc.m[k] = append(hc.m[k], c)
		hc.mu.Unlock()
	}
	return r.WithContext(context.WithValue(ctx, httpCallKey{}, c)), func() {
		gone()
		if keep {
			hc.mu.Lock()
			if list := slices.DeleteFunc(hc.m[k], func(o *httpCall) bool { return o == c }); len(list) > 0 {
				hc.m[k] = list
			} else {
				delete(hc.m, k)
			}
			hc.mu.Unlock()
		}
		cancel(nil)
	}
}

// cancel serves the params of a principal's notifications/cancelled: it ends the
// principal's call of that request id when there is exactly one, and logs what it
// did.
func (hc *httpCalls) cancel(principal string, params json.RawMessage, log *slog.Logger) {
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
// over HTTP), and the function that releases what bind set up.
func bind(ctx context.Context) (context.Context, *httpCall, func()) {
	c, _ := ctx.Value(httpCallKey{}).(*httpCall)
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
