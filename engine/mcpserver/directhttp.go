package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over stateless streamable HTTP, the SDK decodes a tools/call nine times with a
// decoder of its own each time (see direct.go and bench/README.md), and makes a
// session, a connection and a stream for the one request. So HTTPHandler answers a
// plain tools/call POST itself where it can tell the SDK would do nothing more than
// run the tool's handler and write its answer as one event of an event stream; it
// hands every other request to the SDK.
//
// Remove this with direct.go once a go-sdk release decodes without a buffer per
// value, and measure the stateless handler again.

// oldProtocols are the protocol versions the SDK serves over stateless HTTP as a
// session synthesized for the one request, initialized at that version: those
// before statelessProtocol.
var oldProtocols = slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= statelessProtocol })

// httpDirect returns the id and the call of a POST that may be served without the
// SDK, or false when the SDK must serve it. f is the request's body, read whole and
// parsed (postFrame). Everything the SDK checks before a tools/call reaches the
// handler must pass as the SDK would let it pass; where this cannot tell, the SDK
// serves:
//   - a POST of Content-Type application/json that accepts both JSON and an event
//     stream, naming a protocol of oldProtocols in Mcp-Protocol-Version, and no
//     other Mcp- header, no Last-Event-ID, and a Host the SDK's protection against
//     DNS rebinding lets through;
//   - a body of one JSON-RPC request (not a batch) with an id the SDK writes back
//     as it was sent, method tools/call, and params directParams takes, naming a
//     tool the principal's view lists, without a progress token (the SDK sends
//     progress on the request's stream, which this path has not).
func (s *Server) httpDirect(r *http.Request, f frame) (json.RawMessage, directCall, bool) {
	if f.kind != frameRequest || f.method != "tools/call" || !plainID(f.id) || !directHeaders(r) {
		return nil, nil, false
	}
	p, ok := directParams(f.params)
	if !ok {
		return nil, nil, false
	}
	if _, ok := p.Meta["progressToken"]; ok {
		return nil, nil, false
	}
	ti := auth.TokenInfoFromContext(r.Context())
	if !s.view(profileOf(ti)).lists(p.Name) {
		return nil, nil, false
	}
	extra := &mcp.RequestExtra{TokenInfo: ti, Header: r.Header}
	return f.id, s.serveCall(&mcp.CallToolRequest{Params: p, Extra: extra}), true
}

// directHeaders reports whether the request's headers are those of a POST the
// SDK's stateless handler would hand to its session as they are.
func directHeaders(r *http.Request) bool {
	h := r.Header
	if !slices.Contains(oldProtocols, h.Get("Mcp-Protocol-Version")) {
		return false
	}
	for name := range h {
		if name != "Mcp-Protocol-Version" && (strings.HasPrefix(name, "Mcp-") || name == "Last-Event-Id") {
			return false
		}
	}
	if ct := h.Values("Content-Type"); len(ct) != 1 || !isJSONMediaType(ct[0]) {
		return false
	}
	if !acceptsBoth(h.Values("Accept")) {
		return false
	}
	// The SDK refuses a loopback connection whose Host is not a loopback name.
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); !ok || addr == nil ||
		(loopbackAddr(addr.String()) && !loopbackAddr(r.Host)) {
		return false
	}
	return true
}

// isJSONMediaType reports whether a Content-Type is application/json, with no
// parameters or a charset of UTF-8: the forms clients send.
func isJSONMediaType(v string) bool {
	base, params, _ := strings.Cut(v, ";")
	if !strings.EqualFold(strings.TrimSpace(base), "application/json") {
		return false
	}
	params = strings.TrimSpace(params)
	return params == "" || strings.EqualFold(params, "charset=utf-8")
}

// acceptsBoth reports whether an Accept header names both application/json and
// text/event-stream, each by its full name.
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for _, token := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

// loopbackAddr reports whether a host, or host:port, is a loopback address or
// localhost, as the SDK reads a Host header and a connection's address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// plainID reports whether the SDK writes an id back as it was sent: an integer
// within float64's exact range, without sign, fraction or exponent tricks, or a
// string of letters, digits and -_.: only.
func plainID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return false
		}
		for _, c := range raw[1 : len(raw)-1] {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
				return false
			}
		}
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= 0 && n <= 1<<53 && strconv.FormatInt(n, 10) == string(raw)
}

// serveHTTPDirect runs a call httpDirect returned and writes its answer as the
// SDK's stateless handler writes it: one "message" event of an event stream. A
// call its client cancelled (ctx ended: see inflight.go) is not answered, as MCP
// asks and as the SDK does: the stream ends without an event.
func serveHTTPDirect(ctx context.Context, w http.ResponseWriter, id json.RawMessage, run directCall) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
	// The call's notifications (its log messages, asks.go) are events before
	// its answer, as the SDK writes them.
	event := func(data []byte) {
		var b bytes.Buffer
		b.Grow(len("event: message\ndata: \n\n") + len(data))
		b.WriteString("event: message\ndata: ")
		b.Write(data)
		b.WriteString("\n\n")
		w.Write(b.Bytes())
		_ = http.NewResponseController(w).Flush()
	}
	result, err := run(withNotifier(ctx, &directNotifier{write: event}))
	if ctx.Err() != nil {
		return
	}
	event(encodeResponse(id, result, err))
}
