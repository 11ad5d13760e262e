package mcpserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The limits of HTTPHandler when HTTPOptions leave them unset.
const (
	// DefaultMaxCalls is how many tools/call requests of one principal may be in
	// flight at once.
	DefaultMaxCalls = 16
	// DefaultMaxBodyBytes is the largest request body, in bytes.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultBodyTimeout is how long a request's body may take to arrive, from the
	// end of its headers.
	DefaultBodyTimeout = 10 * time.Second
)

// MetadataPath is where OAuth protected-resource metadata (RFC 9728) is found:
// MetadataPath followed by the path of the MCP endpoint, and MetadataPath itself for
// the server as a whole (see ProtectedResourceMetadata).
const MetadataPath = "/.well-known/oauth-protected-resource"

// HTTPOptions configure HTTPHandler. The zero value serves without authentication:
// every client is the local user, so it is to be served only where nobody else can
// connect (a unix socket only its user may open). On a loopback address, other users
// of the machine connect too: give the local user a token (LocalUserTokens).
type HTTPOptions struct {
	// Tokens, when set, authenticates every request by bearer token: a request
	// without a valid one is answered 401 with a WWW-Authenticate header, and an
	// authenticated one runs for its principal. Nil serves every request as the
	// local user.
	Tokens *Tokens
	// AuthServers, with Tokens, are the OAuth authorization servers (issuer URLs)
	// where clients get tokens: the WWW-Authenticate header of a 401 then points at
	// the protected-resource metadata (RFC 9728) at MetadataPath followed by the
	// request's path, which the caller serves with ProtectedResourceMetadata.
	// Without them the header is a bare Bearer challenge.
	AuthServers []string
	// AllowOrigins are the browser origins ("https://app.example.com") that may call
	// the server. A request without an Origin header (any client but a browser) is
	// not concerned; one with any other Origin is answered 403, except a loopback
	// origin on a loopback connection.
	AllowOrigins []string
	// MaxCalls is how many tools/call requests of one principal, all its clients
	// together, may be in flight at once (DefaultMaxCalls when 0). Past it a call is
	// answered at once with a JSON-RPC error (-32000, "too many calls in flight"),
	// not queued. The local user counts as one principal.
	MaxCalls int
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes when 0): a larger one is
	// answered 413.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a request body takes to arrive (DefaultBodyTimeout
	// when 0): a body still incomplete then is answered 408 and its connection
	// closed.
	BodyTimeout time.Duration

	// Sessions, when set, gives a session (Mcp-Session-Id) to each client that
	// opens one with initialize, served by the SDK's stateful handler: the session
	// has state of its own (engine.Principal's Session), as a stdio session has, a
	// stream of its own (GET) for notifications outside any call, such as
	// list and resource changes, ends by DELETE, and its events carry ids, so that a
	// client whose stream broke resumes it with Last-Event-ID (events kept: at most
	// SessionEventBytes, all sessions together). A session lives in this process
	// only: use Sessions for one instance, or instances behind a load balancer that
	// routes each session's requests to the instance that opened it (by its
	// Mcp-Session-Id); a fleet behind an ordinary load balancer is served stateless.
	// Requests naming no session are served as without Sessions: clients of
	// protocol 2026-07-28, which has no sessions, and clients that keep none.
	Sessions bool
	// MaxSessions, with Sessions, is how many sessions one principal may hold at
	// once (DefaultMaxSessions when 0): past it an initialize is answered 429.
	MaxSessions int
	// SessionTimeout, with Sessions, ends a session that has had no request for
	// that long (DefaultSessionTimeout when 0).
	SessionTimeout time.Duration

	// viaSDK, in tests, has the SDK serve every request (see directhttp.go), to
	// compare with.
	viaSDK bool
}

// HTTPHandler returns a streamable HTTP handler for the server, hardened by opts:
// the Origin check, authentication and the bounds on request bodies, in that order,
// before the SDK sees the request, and the per-principal cap on calls in flight.
//
// It is stateless, so that instances behind an ordinary load balancer serve any
// request: each request stands alone (opts.Sessions keeps sessions for the clients
// that open one, for one instance or sticky routing: see withSessions). The
// transport keeps no session id, so a
// principal has one session (ctx.state, readFileState, "allow always" rules), shared
// by all its clients; with a shared session store (engine.Options.Sessions), by all
// instances too. Permission asks reach clients of protocol 2026-07-28 and later,
// which answer them within the request, and tool-list changes reach their
// subscriptions/listen streams; clients of earlier protocols get neither (an ask is
// then a deny) and see a changed list at their next tools/list.
//
// Each principal is served the tools it may see: its tools/list leaves out what its
// profile hides, and it is notified of changes to those tools only. Without Tokens,
// every client is the local user, so permission forms do not offer "allow always":
// its rules would hold for every client. The SDK's protection against DNS rebinding
// (a loopback connection with a Host that is not) is kept.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	s.shared.Store(true)
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = DefaultMaxCalls
	}
	s.callCap.Store(newCallCap(opts.MaxCalls, s.turns.leaser, &s.turns.outage))
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	serve := s.orDirect(mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return s.view(profileOf(auth.TokenInfoFromContext(r.Context()))).srv
	}, &mcp.StreamableHTTPOptions{Stateless: true, Logger: quieter(s.log), MaxRequestBodyBytes: sdkBodyBytes(opts)}), opts.viaSDK)
	if opts.Sessions {
		serve = s.withSessions(serve, opts)
	}
	h := readBody(func(w http.ResponseWriter, r *http.Request, body []byte) {
		r.Header.Del(callTagHeader) // the server's own, never the client's
		serve(w, r, decodableAnswersBody(body))
	}, opts.MaxBodyBytes, opts.BodyTimeout)
	if opts.Tokens != nil {
		// The lists of the principals' profiles are ready before their first request.
		for _, p := range opts.Tokens.profiles() {
			s.view(p)
		}
		h = requireToken(h, opts.Tokens, len(opts.AuthServers) > 0)
	}
	return checkOrigin(h, opts.AllowOrigins)
}

// sdkBodyBytes bounds the bodies the SDK reads. readBody has bounded what the
// client sent by MaxBodyBytes already; what the SDK reads may be longer by what the
// server adds (the tags of a batch's calls, answers replaced: see inflight.go and
// elicit.go), which must not turn a body within the limit into a 413.
func sdkBodyBytes(opts HTTPOptions) int64 { return 2 * opts.MaxBodyBytes }

// ProtectedResourceMetadata serves the OAuth protected-resource metadata (RFC 9728)
// of an MCP endpoint served at the path endpoint ("/mcp"), naming the authorization
// servers (their issuer URLs) where OAuth-capable clients get tokens. Mount it at
// MetadataPath+endpoint, where the WWW-Authenticate header of a 401 points, and at
// MetadataPath, where clients look next: the resource they describe is the endpoint
// and the server as a whole. The resource's URL is told from the request (its Host,
// and https when the connection is TLS or X-Forwarded-Proto says so).
func ProtectedResourceMetadata(endpoint string, authServers []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resource := origin(r)
		switch r.URL.Path {
		case MetadataPath + endpoint:
			resource += endpoint
		case MetadataPath:
		default:
			http.NotFound(w, r)
			return
		}
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               resource,
			AuthorizationServers:   authServers,
			BearerMethodsSupported: []string{"header"},
		}).ServeHTTP(w, r)
	})
}

// origin is the scheme and host the client reached the server at.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// requireToken authenticates requests with the SDK's bearer-token middleware. The
// WWW-Authenticate header of its 401 names the metadata of the endpoint requested
// when there is some; otherwise it is the bare challenge RFC 6750 asks for, which
// the SDK leaves out.
func requireToken(next http.Handler, t *Tokens, metadata bool) http.Handler {
	if !metadata {
		check := auth.RequireBearerToken(t.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
		authenticated := check(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Del("WWW-Authenticate")
			next.ServeHTTP(w, r)
		}))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="luatool"`)
			authenticated.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.RequireBearerToken(t.verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL:    origin(r) + MetadataPath + r.URL.Path,
			AllowMissingExpiration: true, // the table's tokens do not expire
		})(next).ServeHTTP(w, r)
	})
}

// checkOrigin answers 403 to a browser whose origin may not call the server, and
// gives the origins that may the CORS headers a browser needs to call it.
func checkOrigin(next http.Handler, allow []string) http.Handler {
	allowed := map[string]bool{}
	for _, o := range allow {
		allowed[strings.ToLower(o)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if o == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !allowed[strings.ToLower(o)] && !(loopbackConn(r) && loopbackOrigin(o)) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q may not call this server", o), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", o)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
			h.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackConn reports whether the request came in on a loopback address.
func loopbackConn(r *http.Request) bool {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return addr != nil && addr.IP.IsLoopback()
}

// loopbackOrigin reports whether a browser origin is a page served from this
// machine.
func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// A bodyHandler serves a request whose body has been read whole (nil when it had
// none).
type bodyHandler func(w http.ResponseWriter, r *http.Request, body []byte)

// readBody reads the request body before the SDK does, bounded in size and in time:
// a client that stalls in the middle of its body is answered 408 and its connection
// closed once the time is up, instead of holding it and a request slot.
func readBody(next bodyHandler, limit int64, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next(w, r, nil)
			return
		}
		rc := http.NewResponseController(w)
		// A ResponseWriter that cannot set deadlines (not a connection's) is read
		// without one.
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request body is larger than %d bytes", limit))
			return
		case errors.As(err, &netErr) && netErr.Timeout():
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request body did not arrive within %v", timeout))
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "reading the request body: "+err.Error())
			return
		}
		// The deadline passed stays on a connection that failed, so that nothing more
		// is read from it.
		_ = rc.SetReadDeadline(time.Time{})
		next(w, r, body)
	})
}

// orDirect serves the requests httpDirect takes without the SDK, and hands the
// others, their body restored, to the SDK's handler. A POST with a tools/call, and
// each call of a batch, is kept in flight until it is answered, and a
// notifications/cancelled ends the call it names (see inflight.go), before the SDK
// answers it.
func (s *Server) orDirect(sdk http.Handler, viaSDK bool) bodyHandler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		f, batch := postFrame(r, body)
		switch {
		case f.kind == frameNotification && f.method == "notifications/cancelled":
			s.inflight.cancel(requestPrincipal(r), "", f.params, s.log)
		case f.kind == frameRequest && f.method == "tools/call":
			var done func()
			r, done = s.inflight.start(r, requestPrincipal(r), f.id)
			defer done()
		case batch && bytes.Contains(body, []byte(`"tools/call"`)):
			var done func()
			body, done = s.inflight.startBatch(r, requestPrincipal(r), body)
			defer done()
		}
		if !viaSDK {
			if id, run, ok := s.httpDirect(r, f); ok {
				serveHTTPDirect(r.Context(), w, id, run)
				return
			}
		}
		restoreBody(r, body)
		sdk.ServeHTTP(w, r)
	}
}

// restoreBody gives r back the body readBody read.
func restoreBody(r *http.Request, body []byte) {
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
}

// postFrame is the message of a POST's body, parsed, or the zero frame for any
// other request and for a body that is not one message; batch reports a body that
// is a JSON array (a batch of messages).
func postFrame(r *http.Request, body []byte) (f frame, batch bool) {
	body = bytes.TrimLeft(body, " \t\r\n")
	if r.Method != http.MethodPost || len(body) == 0 {
		return frame{}, false
	}
	if body[0] != '{' {
		return frame{}, body[0] == '['
	}
	return parseMessage(body), false
}

// writeError answers with an HTTP status and a JSON-RPC error without an id (the
// request was not read), which clients show as the reason.
func writeError(w http.ResponseWriter, status int, code int64, msg string) {
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{Error: &jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
