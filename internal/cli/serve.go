package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
)

// runServe offers the tools to MCP clients: over stdin/stdout (nothing else is
// written to stdout), or over streamable HTTP with --http. Tool directories are
// watched unless --no-watch: a save takes effect at once, and a broken save is
// reported on stderr while the last good version keeps serving.
func runServe(a *app, args []string) int {
	if len(args) > 0 {
		return a.errorf("serve takes no arguments")
	}
	a.cfg.noPrompt = true // before sources: a project is not asked about either
	srcs, err := a.sources()
	if err != nil {
		return a.errorf("%v", err)
	}
	s, err := a.open(srcs)
	if err != nil {
		return a.errorf("%v", err)
	}
	defer s.close()
	fmt.Fprintf(a.stderr, "luatool: shell sandbox: %s\n", a.cfg.shellOptions().Describe())
	a.report(s.diags)
	unsubscribe := s.eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.LoadFailed:
			for _, d := range ev.Diagnostics {
				fmt.Fprintf(a.stderr, "luatool: %s (the last good version keeps serving)\n", d)
			}
		default:
			fmt.Fprintf(a.stderr, "luatool: %s\n", ev)
		}
	})
	defer unsubscribe()

	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := mcpserver.New(s.eng, mcpserver.Options{Name: "luatool", Version: readVersion().Version, Logger: logger})
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !a.cfg.noWatch && onDisk(srcs) {
		go func() {
			if err := s.eng.Watch(ctx, a.watchOptions()); err != nil {
				fmt.Fprintf(a.stderr, "luatool: watch: %v\n", err)
			}
		}()
	}
	if a.cfg.http != "" {
		err = a.serveHTTP(ctx, srv)
	} else {
		err = srv.ServeStdio(ctx, a.stdin, a.stdout, mcpserver.StdioOptions{MaxInFlight: a.cfg.maxInFlight})
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
		return a.errorf("serve: %v", err)
	}
	return ExitOK
}

// serveHTTP serves the streamable HTTP endpoint /mcp at --http until ctx ends. A
// bare :port is bound to loopback; the address actually bound is printed to stderr.
func (a *app) serveHTTP(ctx context.Context, srv *mcpserver.Server) error {
	addr := a.cfg.http
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "luatool: serving MCP at http://%s/mcp\n", ln.Addr())
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

// onDisk reports whether any source is a directory on disk, which can be watched.
func onDisk(srcs []engine.Source) bool {
	for _, s := range srcs {
		if s.Dir != "" {
			return true
		}
	}
	return false
}
