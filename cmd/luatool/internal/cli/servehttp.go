package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/luatool/luatool/cmd/luatool/internal/ops"
	"github.com/luatool/luatool/engine/mcpserver"
)

// listen listens at an --http address: unix:PATH, a unix socket only this user may
// open, or host:port, a bare :port on loopback.
func listen(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return nil, errors.New("--http unix:PATH: the socket's path is missing")
		}
		return listenUnix(path)
	}
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return net.Listen("tcp", addr)
}

// mcpPath is the path of the MCP endpoint.
const mcpPath = "/mcp"

// The bounds of the HTTP server around the MCP handler's own (see
// mcpserver.HTTPOptions): a client gets this long to send a request's headers, a
// connection between requests is kept this long, and headers may be this large.
const (
	headerTimeout  = 10 * time.Second
	idleTimeout    = 2 * time.Minute
	maxHeaderBytes = 64 << 10
)

// serveHTTP serves the streamable HTTP endpoint /mcp at --http until ctx ends, then
// shuts down (serveHTTPUntil). Every client authenticates, one way or another:
//   - with --tokens, by the bearer token of its principal (table, which SIGHUP
//     reloads);
//   - on a unix socket (--http unix:PATH), by being able to open it: only this
//     user may (mode 0600);
//   - on loopback, by the bearer token serve makes at start, printed once and kept
//     in a private file (makeLocalToken): another user of the machine reaches the
//     address but knows no token;
//   - with --insecure-no-auth, not at all: anyone who reaches the address is the
//     local user.
//
// A bare :port is bound to loopback; any other address without tokens is refused
// unless --insecure-no-auth. Where the server listens is logged.
func (a *app) serveHTTP(ctx context.Context, srv *mcpserver.Server, table *tokenTable, health *ops.Endpoints) error {
	c, log := a.cfg.serve, a.logger()
	var tokens *mcpserver.Tokens
	if table != nil {
		tokens = table.tokens
	}
	ln, err := listen(a.cfg.http)
	if err != nil {
		return err
	}
	var auth, localToken, tokenFile string
	tcp, _ := ln.Addr().(*net.TCPAddr)
	switch {
	case tokens != nil:
		auth = "bearer tokens of " + c.tokens
	case tcp == nil:
		auth = "none: only this user may open the socket (mode 0600)"
	case c.insecureNoAuth:
		who := "anyone who reaches it"
		if tcp.IP.IsLoopback() {
			who += ", every user of this machine,"
		}
		log.Warn(fmt.Sprintf("serving %s without authentication (--insecure-no-auth): %s may call every tool the rules allow", ln.Addr(), who))
		auth = "none (--insecure-no-auth): every client is the local user"
	case !tcp.IP.IsLoopback():
		ln.Close()
		return fmt.Errorf("refusing to serve --http %s without authentication: it is not a loopback address, and anyone who reaches it could call every tool; give --tokens FILE (luatool help serve), or --insecure-no-auth to serve it anyway", a.cfg.http)
	default:
		token, file, remove, err := makeLocalToken(ln.Addr())
		if err == nil {
			tokens, err = mcpserver.LocalUserTokens(token)
		}
		if err != nil {
			ln.Close()
			return fmt.Errorf("--http %s without --tokens: %w", a.cfg.http, err)
		}
		defer remove()
		localToken, tokenFile = token, file
		log.Info(`no --tokens: clients send the token made for this run, printed here once, in the header "Authorization: Bearer TOKEN"; it is kept in FILE for client configurations, and changes at each start`,
			"token", token, "file", file)
		auth = "the bearer token made for this run: every client that has it is the local user"
	}
	mux := http.NewServeMux()
	health.Health(mux) // /healthz and /readyz, without a token, for load balancers
	mux.Handle(mcpPath, srv.HTTPHandler(mcpserver.HTTPOptions{Tokens: tokens, AuthServers: c.authServers, AllowOrigins: c.allowOrigins, MaxCalls: c.maxCalls, Sessions: c.sessions}))
	if len(c.authServers) > 0 {
		meta := mcpserver.ProtectedResourceMetadata(mcpPath, c.authServers)
		mux.Handle(mcpserver.MetadataPath, meta)
		mux.Handle(mcpserver.MetadataPath+mcpPath, meta)
	}
	hs := boundedServer(mux, log)
	where := fmt.Sprintf("http://%s%s", ln.Addr(), mcpPath)
	if tcp == nil {
		where = fmt.Sprintf("unix:%s (path %s)", ln.Addr(), mcpPath)
	}
	log.Info("serving MCP at "+where, "authentication", auth)
	if a.serving != nil {
		a.serving(where, localToken, tokenFile)
	}
	if c.sessions {
		log.Info("sessions (--sessions): a client with one is told of list and resource changes on its GET stream and asked (sampling, elicitation) during its calls; clients of protocol 2026-07-28 and later on their subscriptions/listen stream and in rounds")
	} else {
		log.Info("stateless (no --sessions): clients of protocol 2026-07-28 and later are told of list and resource changes on their subscriptions/listen stream and asked in rounds; earlier clients see changes at their next list, and their calls cannot ask them (sampling, elicitation): serve with --sessions for those")
	}
	return a.serveHTTPUntil(ctx, hs, ln, srv)
}
