package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/internal/spell"
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
// text format or, with --log-format json, one JSON object a line.
func (a *app) serveLogger() (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	switch f := a.cfg.serve.logFormat; f {
	case "", "text":
		return slog.New(slog.NewTextHandler(a.stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(a.stderr, opts)), nil
	default:
		msg := fmt.Sprintf("--log-format %q: the formats are %s", f, strings.Join(logFormats, " and "))
		if s := spell.Suggest(f, logFormats); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, errors.New(msg)
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
