package cli

import (
	"context"
	"errors"
	"io"
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/cmd/luatool/internal/ops"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/internal/groupwrite"
)

// runServe offers the tools to MCP clients: over stdin/stdout (nothing else is
// written to stdout), or over streamable HTTP with --http. Tool directories are
// watched unless --no-watch: a save takes effect at once, and a broken save is
// reported on stderr while the last good version keeps serving. SIGTERM and SIGINT
// end it gracefully (lifecycle.go), and SIGHUP reloads the settings files
// (reload.go) and the token file.
func runServe(a *app, args []string) int {
	// Everything serve writes to stderr (a line for each call, among others) goes
	// out in order from a goroutine of its own, lines logged together in one write:
	// a call does not wait for stderr, nor for the lock of the logger writing
	// another call's line.
	stderr := groupwrite.NewDetached(a.stderr)
	defer stderr.Flush()
	a.stderr = stderr
	log, err := a.serveLogger() // first: with json, serve's errors are log lines too
	if err != nil {
		return a.errorf("%v", err)
	}
	if len(args) > 0 {
		return a.errorf("serve takes no arguments")
	}
	// What check sees wrong in a file's code, logged at start and at every save as
	// watch prints it: a few milliseconds of parsing per file, once per load.
	a.lint = true
	if err := a.checkNamedRoot(); err != nil {
		return a.errorf("%v", err)
	}
	if err := a.cfg.chooseStandardTools(); err != nil {
		return a.errorf("%v", err)
	}
	if err := a.cfg.serve.check(a.cfg.http != ""); err != nil {
		return a.errorf("%v", err)
	}
	if a.cfg.serve.shutdownGrace < 0 {
		return a.errorf("--shutdown-grace %s: give a duration of 0 or more, like 30s", a.cfg.serve.shutdownGrace)
	}
	// Before open: the metrics' middleware counts calls, and its logger is a.log.
	log, metrics := a.serveMetrics(log)
	a.log = log           // before sources: their notices are logged
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
	log.Info(servedText(s.served.root, srcs, a.cfg.serve.standardLeftOut))
	log.Info("shell sandbox: " + a.cfg.shellOptions().Describe())
	logDiagnostics(log, s.diags, "")
	unsubscribe := s.eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.LoadFailed:
			logDiagnostics(log, ev.Diagnostics, " (the last good version keeps serving)")
		case engine.WatchStatus:
			log.Info(ev.String())
		default:
			// New code arriving while serving is announced with what changed and
			// where, as fields of its own for a JSON log.
			log.Info(ev.String(), eventAttrs(ev)...)
			logDiagnostics(log, ev.Diagnostics, "")
		}
	})
	defer unsubscribe()
	if metrics != nil {
		defer s.eng.Subscribe(metrics.Observe)()
	}
	endpoints := &ops.Endpoints{Engine: s.eng, Store: s.store, Metrics: metrics}

	srv := mcpserver.New(s.eng, mcpserver.Options{Name: "luatool", Version: readVersion().Version, Logger: log})
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	endpoints.Stopping = ctx.Done()
	var tokens *tokenTable
	if a.cfg.serve.tokens != "" {
		if tokens, err = a.loadTokens(a.cfg.serve.tokens, s.eng); err != nil {
			return a.errorf("serve: %v", err)
		}
	}
	stopHangups := hangups(log, func() {
		a.reloadSettings(s.eng, s.served)
		if tokens != nil {
			tokens.reload()
		}
	})
	defer stopHangups()
	if !a.cfg.noWatch && onDisk(srcs) {
		go func() {
			if err := s.eng.Watch(ctx, a.watchOptions()); err != nil {
				log.Error("watch: " + err.Error())
			}
		}()
	}
	if err := a.serveAdmin(ctx, endpoints); err != nil {
		return a.errorf("%v", err)
	}
	if a.cfg.http != "" {
		err = a.serveHTTP(ctx, srv, tokens, endpoints)
	} else {
		err = a.serveStdioUntil(ctx, srv)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
		return a.errorf("serve: %v", err)
	}
	return ExitOK
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

// eventAttrs are the fields of a log line announcing a change of the tool set: what
// changed, the tool (or prompt, resource or hook) and the file.
func eventAttrs(ev engine.Event) []any {
	attrs := []any{"change", string(ev.Kind)}
	switch {
	case ev.Tool != "":
		attrs = append(attrs, "tool", ev.Tool)
	case ev.Name != "":
		attrs = append(attrs, "name", ev.Name)
	}
	return append(attrs, "file", ev.File)
}
