package env

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"

	"github.com/luatool/luatool/internal/jsonvalue"
)

// A Redactor replaces the values of secrets with [redacted:NAME] in text: the one
// mechanism that keeps the secrets of a Set (Var.Secret) out of what the engine
// hands on, used by the engine itself and shared with its host (Set.Redactor), whose
// own output (a CLI's log lines) goes through the same one. The engine redacts:
//
//   - the tool_result content, before a large one is persisted, and the data,
//     newMessages and mcpMeta of a Result: what reaches the model or a client;
//   - the log lines of a call (Result.Log) and progress data;
//   - Result.Err, whose text is redacted (errors.As still finds the error inside);
//   - the prompt, the description, the user-facing name and every rendering of a
//     Tool (RenderToolUse, RenderResult, ...), and the message of a permission ask;
//   - what it writes to its Options.Logger.
//
// Besides a secret's value as it is, its forms in a JSON string, a URL query and a
// URL path are replaced, so that a secret a tool put in a URL or JSON-encoded
// result is caught too; other encodings (base64 of it, say) are not. A nil
// *Redactor redacts nothing. It is safe for concurrent use.
type Redactor struct {
	replacer *strings.Replacer
}

// newRedactor returns the redactor of secrets (name -> value); nil when there are
// none.
func newRedactor(secrets map[string]string) *Redactor {
	if len(secrets) == 0 {
		return nil
	}
	type pair struct{ old, name string }
	var pairs []pair
	seen := map[string]bool{}
	for name, value := range secrets {
		jsonForm, _ := jsonvalue.Encode(value)
		htmlSafe, _ := json.Marshal(value)
		for _, form := range []string{value, string(jsonForm[1 : len(jsonForm)-1]), string(htmlSafe[1 : len(htmlSafe)-1]),
			url.QueryEscape(value), url.PathEscape(value)} {
			if !seen[form] {
				seen[form] = true
				pairs = append(pairs, pair{form, name})
			}
		}
	}
	// Where two forms start at one place, strings.Replacer takes the first given: the
	// longest first, so that a secret holding another is replaced whole.
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].old) != len(pairs[j].old) {
			return len(pairs[i].old) > len(pairs[j].old)
		}
		return pairs[i].old < pairs[j].old
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, "[redacted:"+p.name+"]")
	}
	return &Redactor{replacer: strings.NewReplacer(args...)}
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// Value returns a JSON value (as package encoding/json decodes one into an any)
// with every string in it, object keys included, redacted. Containers are copied
// where something changed, never modified.
func (r *Redactor) Value(v any) any {
	if r == nil {
		return v
	}
	out, _ := r.value(v)
	return out
}

// value redacts v and reports whether anything changed.
func (r *Redactor) value(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		s := r.String(x)
		return s, s != x
	case []any:
		var out []any
		for i, e := range x {
			if re, changed := r.value(e); changed {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = re
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case map[string]any:
		changed := false
		out := make(map[string]any, len(x))
		for k, e := range x {
			rk := r.String(k)
			re, c := r.value(e)
			changed = changed || c || rk != k
			out[rk] = re
		}
		if !changed {
			return x, false
		}
		return out, true
	}
	return v, false
}

// Error returns err with its text redacted: err itself when there was nothing to
// redact, otherwise an error whose Error() is the redacted text and which wraps err
// (errors.Is and errors.As see through it; what a host takes out of err with
// errors.As, such as a script error's traceback, it must redact itself).
func (r *Redactor) Error(err error) error {
	if r == nil || err == nil {
		return err
	}
	if msg := r.String(err.Error()); msg != err.Error() {
		return &redactedError{err: err, msg: msg}
	}
	return err
}

type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Handler returns a slog.Handler that redacts each record's message and attribute
// values (strings, errors and anything else by its text), then hands it to h.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if r == nil {
		return h
	}
	return redactingHandler{h: h, r: r}
}

type redactingHandler struct {
	h slog.Handler
	r *Redactor
}

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.r.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.r.attr(a)
	}
	return redactingHandler{h: h.h.WithAttrs(red), r: h.r}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h: h.h.WithGroup(name), r: h.r}
}

// attr redacts an attribute's value.
func (r *Redactor) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = r.attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		text := fmt.Sprint(v.Any())
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		}
		if red := r.String(text); red != text {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
