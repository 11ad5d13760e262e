package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// recordingHandler keeps the records logged to it.
type recordingHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

func (h *recordingHandler) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		out = append(out, fmt.Sprintf("%s [member=%s line=%s]", r.Message, attrs["member"], attrs["line"]))
	}
	return out
}

// TestMemberFailureLoggedOncePerVersion: a member that raises takes its safe answer
// and the host's log hears of it once per tool version, with the member, the file
// and the line; a new version of the file is reported again.
func TestMemberFailureLoggedOncePerVersion(t *testing.T) {
	h := &recordingHandler{}
	e := newTestEngine(t, Options{Logger: slog.New(h)})
	src := func(msg string) string {
		return `return {
  name = "Flaky",
  prompt = "p",
  inputSchema = { type = "object" },
  isReadOnly = function()
    error("` + msg + `")
  end,
  call = function() return "ran" end,
}`
	}
	load := func(body string) {
		if diags := e.Load(Source{Name: "t", FS: fstest.MapFS{"flaky.lua": {Data: []byte(body)}}}); HasErrors(diags) {
			t.Fatal(diags)
		}
	}
	load(src("cannot tell"))
	tool, _ := e.Registry().Lookup("Flaky")
	for range 3 {
		if tool.IsReadOnly(bg, map[string]any{}) {
			t.Fatal("a failing isReadOnly must answer false")
		}
	}
	want := "Flaky: isReadOnly failed, so it counts as false (the safe answer): t/flaky.lua:6: cannot tell [member=isReadOnly line=6]"
	if got := h.messages(); len(got) != 1 || got[0] != want {
		t.Fatalf("log = %q, want once %q", got, want)
	}
	load(src("still cannot tell"))
	tool, _ = e.Registry().Lookup("Flaky")
	tool.IsReadOnly(bg, map[string]any{})
	if got := h.messages(); len(got) != 2 || !strings.Contains(got[1], "still cannot tell") {
		t.Errorf("after a new version, log = %q", got)
	}
}

// TestModelTextLeavesOutPositions: what the model is told of a script error has no
// file and line, even inside another error's text.
func TestModelTextLeavesOutPositions(t *testing.T) {
	e := newTestEngine(t, Options{})
	if diags := e.Load(Source{Name: "t", FS: fstest.MapFS{"bad.lua": {Data: []byte(`return {
  name = "Bad", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  validateInput = function() error("the disk is gone") end,
  call = function() return "x" end,
}`)}}}); HasErrors(diags) {
		t.Fatal(diags)
	}
	r := e.Call(bg, ToolUse{ID: "1", Name: "Bad"})
	if got := r.Block.Content.String(); got != "<tool_use_error>validateInput failed: the disk is gone</tool_use_error>" {
		t.Errorf("model text = %q", got)
	}
}
