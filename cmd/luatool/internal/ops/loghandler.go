package ops

import (
	"context"
	"log/slog"
	"time"
)

// callLine is the message of the line the MCP server logs for each tool call, with
// the attributes tool, duration, outcome and, for a failed call, error (see
// mcpserver.Server).
const callLine = "tool call"

// LogHandler returns a handler that passes every record on to next, and counts
// each call from the line the MCP server logs for it: the metrics see every call
// the log does, outcome included, without a call into the engine.
func (m *Metrics) LogHandler(next slog.Handler) slog.Handler {
	return &logHandler{m: m, next: next}
}

// logHandler is LogHandler's handler.
type logHandler struct {
	m    *Metrics
	next slog.Handler
}

// Enabled is true for the level of call lines even where next would drop them, so
// that a quieter log does not stop the counting.
func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.next.Enabled(ctx, l)
}

// Handle counts a call line and passes the record on if next wants it.
func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == callLine {
		var tool, outcome string
		var took time.Duration
		var err error
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "tool":
				tool = a.Value.String()
			case "outcome":
				outcome = a.Value.String()
			case "duration":
				if a.Value.Kind() == slog.KindDuration {
					took = a.Value.Duration()
				}
			case "error":
				err, _ = a.Value.Any().(error)
			}
			return true
		})
		if tool != "" && outcome != "" {
			h.m.observeCall(tool, outcome, took, err)
		}
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs keeps the counting under the attributes added (a call's principal
// among them, which no metric carries).
func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &logHandler{m: h.m, next: h.next.WithAttrs(as)}
}

// WithGroup keeps the counting under the group.
func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{m: h.m, next: h.next.WithGroup(name)}
}
