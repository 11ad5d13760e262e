package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/luatool/luatool/engine/diag"
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

// Messages renders each record as its message and the member, file and line it names.
func (h *recordingHandler) Messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		out = append(out, fmt.Sprintf("%s [member=%s file=%s line=%s]", r.Message, attrs["member"], attrs["file"], attrs["line"]))
	}
	return out
}

// TestGoMemberFailureLoggedOnce: a member that fails takes its safe answer, and the
// host's log hears of it once per member of a tool version, naming the member and the
// tool's source; a new version is reported again. A member stopped by its caller, or
// whose failure was reported at load, is not logged (TestMemberFailureLoggedOncePerVersion
// does it with the file and line of a Lua tool).
func TestGoMemberFailureLoggedOnce(t *testing.T) {
	h := &recordingHandler{}
	def := ToolDef{
		Name:        "Flaky",
		Source:      "go:Flaky",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		InputSchema: objectSchema(nil),
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, errors.New("cannot tell") },
		IsDestructive: func(context.Context, map[string]any) (bool, error) {
			return false, fmt.Errorf("stopped: %w", context.Canceled)
		},
		IsOpenWorld: func(context.Context, map[string]any) (bool, error) {
			return false, fmt.Errorf("isOpenWorld is a string: %w", diag.ErrReported)
		},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) { return data("ran") },
	}
	version := func() *Tool {
		tool, err := Build(def)
		if err != nil {
			t.Fatal(err)
		}
		tool.log = slog.New(h)
		return tool
	}
	tool := version()
	for range 3 {
		if tool.IsReadOnly(bg, input) || !tool.IsDestructive(bg, input) || !tool.IsOpenWorld(bg, input) {
			t.Fatal("a failing member must take the safe answer")
		}
	}
	want := "Flaky: isReadOnly failed, so it counts as false (the safe answer): cannot tell [member=isReadOnly file=go:Flaky line=0]"
	if got := h.Messages(); len(got) != 1 || got[0] != want {
		t.Fatalf("log = %q, want once %q", got, want)
	}
	version().IsReadOnly(bg, input)
	if got := h.Messages(); len(got) != 2 || got[1] != want {
		t.Errorf("after a new version, log = %q", got)
	}
}
