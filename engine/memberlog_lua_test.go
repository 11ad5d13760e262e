package engine_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestMemberFailureLoggedOncePerVersion: a member that raises takes its safe answer
// and the host's log hears of it once per tool version, with the member, the file
// and the line; a new version of the file is reported again.
func TestMemberFailureLoggedOncePerVersion(t *testing.T) {
	h := &engine.RecordingHandler{}
	src := func(msg string) map[string]string {
		return map[string]string{"flaky.lua": `return {
  name = "Flaky",
  prompt = "p",
  inputSchema = { type = "object" },
  isReadOnly = function()
    error("` + msg + `")
  end,
  call = function() return "ran" end,
}`}
	}
	e := luaEngine(t, engine.Options{Logger: slog.New(h)}, src("cannot tell"))
	tool, _ := e.Registry().Lookup("Flaky")
	for range 3 {
		if tool.IsReadOnly(bg, map[string]any{}) {
			t.Fatal("a failing isReadOnly must answer false")
		}
	}
	want := "Flaky: isReadOnly failed, so it counts as false (the safe answer): t/flaky.lua:6: cannot tell [member=isReadOnly file=t/flaky.lua line=6]"
	if got := h.Messages(); len(got) != 1 || got[0] != want {
		t.Fatalf("log = %q, want once %q", got, want)
	}
	if diags := e.Load(engine.Source{Name: "t", FS: toolFS(src("still cannot tell"))}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	tool, _ = e.Registry().Lookup("Flaky")
	tool.IsReadOnly(bg, map[string]any{})
	if got := h.Messages(); len(got) != 2 || !strings.Contains(got[1], "still cannot tell") {
		t.Errorf("after a new version, log = %q", got)
	}
}

// TestModelTextLeavesOutPositions: what the model is told of a script error has no
// file and line, even inside another error's text.
func TestModelTextLeavesOutPositions(t *testing.T) {
	e := luaEngine(t, engine.Options{}, map[string]string{"bad.lua": `return {
  name = "Bad", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  validateInput = function() error("the disk is gone") end,
  call = function() return "x" end,
}`})
	r := e.Call(bg, engine.ToolUse{ID: "1", Name: "Bad"})
	if got := r.Block.Content.String(); got != "<tool_use_error>validateInput failed: the disk is gone</tool_use_error>" {
		t.Errorf("model text = %q", got)
	}
}
