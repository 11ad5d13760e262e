package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Input nested past MaxInputDepth fails as invalid input, before the call.
func TestInputTooDeep(t *testing.T) {
	e, rec := pipelineEngine(t, Options{MaxInputDepth: 4})
	r := call(e, bg, "Echo", `{"n": 1, "list": [[[[[1]]]]]}`)
	if r.Stage != StageInput || !strings.Contains(r.Block.Content.String(), "nests 6 levels deep; at most 4 are allowed") {
		t.Errorf("stage %s, %q", r.Stage, r.Block.Content.String())
	}
	if len(rec.Inputs()) != 0 {
		t.Error("the tool was called with the input")
	}
	// At the limit is fine.
	wantOK(t, call(e, bg, "Empty", `{"kind": "zero", "x": [[[1]]]}`), "0")
}

// TestResultBlockJSON: through json.Marshal, the hand-written encoding equals
// encoding/json's of the same fields, for text, blocks, errors and awkward strings.
func TestResultBlockJSON(t *testing.T) {
	type plain struct {
		Type      string  `json:"type"`
		ToolUseID string  `json:"tool_use_id"`
		Content   Content `json:"content"`
		IsError   bool    `json:"is_error"`
	}
	for _, b := range []ResultBlock{
		{Type: "tool_result", ToolUseID: "toolu_1", Content: Text("<tool_use_error>a & b \"q\"\n\u2028</tool_use_error>"), IsError: true},
		{Type: "tool_result", ToolUseID: "id \x01", Content: Content{{Type: "text", Text: "one"}, {Type: "image", Source: map[string]any{"type": "base64", "data": "AAAA"}}}},
		{Type: "tool_result", ToolUseID: "toolu_2"},
	} {
		got, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(plain(b))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		if direct, _ := b.MarshalJSON(); !json.Valid(direct) {
			t.Errorf("MarshalJSON gave invalid JSON: %s", direct)
		}
	}
}
