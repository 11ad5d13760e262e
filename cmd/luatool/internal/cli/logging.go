package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/internal/spell"
	"github.com/luatool/luatool/session/redisstore"
)

// lineHandler is the slog.Handler of the CLI: each record one line on the display,
// "luatool: warning: message", in the words of the CLI's other messages. The
// record's attributes (tool, member, file, line) are for structured logs; the
// message already says what a person needs.
type lineHandler struct {
	d *display
}

// logger returns the command's logger: serve's (a.log), or the display's lines on
// stderr.
func (a *app) logger() *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return slog.New(lineHandler{a.display()})
}

// logFormats are the values of --log-format.
var logFormats = []string{"text", "json"}

// serveLogger returns serve's logger: every line serve writes to stderr, in slog's
// text format or, with --log-format json, one JSON object a line. With json,
// a.stderr becomes a writer into the logger, so that whatever else serve prints on
// stderr (notices, errors) is a JSON object too. go-redis's own lines, and those of
// the standard log package, go through it in either format, and so do the warnings
// about serve's variables.
func (a *app) serveLogger() (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	var log *slog.Logger
	switch f := a.cfg.serve.logFormat; f {
	case "", "text":
		log = slog.New(slog.NewTextHandler(a.stderr, opts))
	case "json":
		log = slog.New(slog.NewJSONHandler(a.stderr, opts))
		a.stderr = &logWriter{log: log}
	default:
		msg := fmt.Sprintf("--log-format %q: the formats are %s", f, strings.Join(logFormats, " and "))
		if s := spell.Suggest(f, logFormats); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, errors.New(msg)
	}
	// Both are the process's own: serve is the one command of its process.
	redisstore.LogTo(log)
	slog.SetDefault(log)
	for _, w := range a.envWarnings {
		log.Warn(w)
	}
	return log, nil
}

// A logWriter turns what is written to it into log lines, one a line, at the level
// its "luatool: warning: " or "luatool: error: " prefix says (the prefix dropped).
// It stands for stderr where every line must be one of the log's.
type logWriter struct {
	log *slog.Logger

	mu      sync.Mutex
	partial []byte // the start of a line whose end is still to come
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimPrefix(string(w.partial[:i]), "luatool: ")
		w.partial = w.partial[i+1:]
		level := slog.LevelInfo
		if rest, ok := strings.CutPrefix(line, "warning: "); ok {
			level, line = slog.LevelWarn, rest
		} else if rest, ok := strings.CutPrefix(line, "error: "); ok {
			level, line = slog.LevelError, rest
		}
		if strings.TrimSpace(line) != "" {
			w.log.Log(context.Background(), level, line)
		}
	}
}

// logDiagnostics logs load diagnostics, each at the level of its severity, with what
// follows (the suffix) said after it.
func logDiagnostics(log *slog.Logger, diags []diag.Diagnostic, suffix string) {
	for _, d := range diags {
		level := slog.LevelWarn
		if d.Severity == diag.SeverityError {
			level = slog.LevelError
		}
		log.Log(context.Background(), level, d.String()+suffix)
	}
}

func (h lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h lineHandler) Handle(_ context.Context, r slog.Record) error {
	level := ""
	switch {
	case r.Level >= slog.LevelError:
		level = "error: "
	case r.Level >= slog.LevelWarn:
		level = "warning: "
	}
	h.d.line("luatool: " + level + printableLines(r.Message))
	return nil
}

func (h lineHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h lineHandler) WithGroup(string) slog.Handler { return h }
