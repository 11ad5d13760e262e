package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
)

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

// serveHTTP serves the streamable HTTP endpoint /mcp at --http until ctx ends, for
// the principals of --tokens when given. A bare :port is bound to loopback; any other
// address without tokens is refused unless --insecure-no-auth. The address actually
// bound is logged.
func (a *app) serveHTTP(ctx context.Context, srv *mcpserver.Server, eng *engine.Engine) error {
	c, log := a.cfg.serve, a.logger()
	var tokens *mcpserver.Tokens
	if c.tokens != "" {
		var err error
		if tokens, err = a.readTokens(c.tokens, eng); err != nil {
			return err
		}
	}
	addr := a.cfg.http
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tcp, _ := ln.Addr().(*net.TCPAddr); tokens == nil && (tcp == nil || !tcp.IP.IsLoopback()) {
		if !c.insecureNoAuth {
			ln.Close()
			return fmt.Errorf("refusing to serve --http %s without authentication: it is not a loopback address, and anyone who reaches it could call every tool; give --tokens FILE (luatool help serve), or --insecure-no-auth to serve it anyway", a.cfg.http)
		}
		log.Warn(fmt.Sprintf("serving %s without authentication (--insecure-no-auth): anyone who reaches it may call every tool the rules allow", ln.Addr()))
	}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, srv.HTTPHandler(mcpserver.HTTPOptions{Tokens: tokens, AuthServers: c.authServers, AllowOrigins: c.allowOrigins, MaxCalls: c.maxCalls}))
	if len(c.authServers) > 0 {
		meta := mcpserver.ProtectedResourceMetadata(mcpPath, c.authServers)
		mux.Handle(mcpserver.MetadataPath, meta)
		mux.Handle(mcpserver.MetadataPath+mcpPath, meta)
	}
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	auth := "none: every client is the local user"
	if tokens != nil {
		auth = "bearer tokens of " + c.tokens
	}
	log.Info(fmt.Sprintf("serving MCP at http://%s%s", ln.Addr(), mcpPath), "authentication", auth)
	log.Info("HTTP clients of protocol 2026-07-28 and later are told of tool-list changes on their subscriptions/listen stream; clients of earlier protocols see them at their next tools/list")
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
