package cli

import (
	"context"
	"log/slog"
)

// lineHandler is the slog.Handler of the CLI: each record one line on the display,
// "luatool: warning: message", in the words of the CLI's other messages. The
// record's attributes (tool, member, file, line) are for structured logs; the
// message already says what a person needs.
type lineHandler struct {
	d *display
}

// logger returns the CLI's logger, writing to the display on stderr.
func (a *app) logger() *slog.Logger { return slog.New(lineHandler{a.display()}) }

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
