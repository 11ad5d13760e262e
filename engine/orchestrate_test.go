package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine/rules"
)

// span is when a call ran.
type span struct{ start, end time.Time }

func overlaps(a, b span) bool { return a.start.Before(b.end) && b.start.Before(a.end) }

// recordingTools are Go tools that sleep and record when they ran, by tool_use id.
type recordingTools struct {
	mu    sync.Mutex
	spans map[string]span
}

func (rt *recordingTools) def(name string, safe bool, change *ContextChange) ToolDef {
	return ToolDef{
		Name:              name,
		InputSchema:       map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		Prompt:            func(context.Context, PromptOptions) (string, error) { return name, nil },
		IsConcurrencySafe: func(context.Context, map[string]any) (bool, error) { return safe, nil },
		IsReadOnly:        func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(ctx context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			start := time.Now()
			select {
			case <-time.After(80 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			rt.mu.Lock()
			rt.spans[in["id"].(string)] = span{start, time.Now()}
			rt.mu.Unlock()
			return &ToolResult{Data: fmt.Sprintf("%s %s cwd=%s mode=%s", name, in["id"], cc.Cwd, cc.Mode), ContextModifier: change}, nil
		},
	}
}

func uses(calls ...string) []ToolUse {
	var out []ToolUse
	for _, c := range calls {
		name, id, _ := strings.Cut(c, ":")
		out = append(out, ToolUse{ID: id, Name: name, Input: json.RawMessage(`{"id":"` + id + `"}`)})
	}
	return out
}

// [Read, Grep, Edit, Read, Read] runs as three batches: the first two side by side,
// the Edit alone, the last two side by side; results come back in input order.
func TestRunPartitionsIntoBatches(t *testing.T) {
	rt := &recordingTools{spans: map[string]span{}}
	e := newTestEngine(t, Options{Cwd: "/w", Tools: []ToolDef{rt.def("Read", true, nil), rt.def("Grep", true, nil), rt.def("Edit", false, nil)}})
	results := e.Run(bg, uses("Read:1", "Grep:2", "Edit:3", "Read:4", "Read:5"))
	for i, r := range results {
		want := fmt.Sprintf(" %d cwd=/w", i+1)
		if r.Block.IsError || !strings.Contains(r.Block.Content.String(), want) || r.Block.ToolUseID != fmt.Sprint(i+1) {
			t.Errorf("result %d = %+v", i, r.Block)
		}
	}
	s := rt.spans
	if !overlaps(s["1"], s["2"]) || !overlaps(s["4"], s["5"]) {
		t.Error("the reads of a batch did not run side by side")
	}
	for _, id := range []string{"1", "2", "4", "5"} {
		if overlaps(s["3"], s[id]) {
			t.Errorf("the Edit overlapped call %s", id)
		}
	}
	if !s["2"].end.Before(s["4"].start.Add(time.Millisecond)) || !s["3"].end.Before(s["4"].start.Add(time.Millisecond)) {
		t.Error("batches did not run one after another")
	}
}

// The batch limit bounds how many safe calls run at once.
func TestRunBatchLimit(t *testing.T) {
	rt := &recordingTools{spans: map[string]span{}}
	e := newTestEngine(t, Options{MaxToolUseConcurrency: 2, Tools: []ToolDef{rt.def("Read", true, nil)}})
	e.Run(bg, uses("Read:1", "Read:2", "Read:3", "Read:4"))
	most := 0
	for _, a := range rt.spans {
		n := 0
		for _, b := range rt.spans {
			if a.start.Before(b.end) && !b.start.After(a.start) {
				n++
			}
		}
		most = max(most, n)
	}
	if most > 2 {
		t.Errorf("%d calls ran at once, over the limit of 2", most)
	}
}

// A serial tool's context change is seen by the next call; a safe tool's is dropped.
func TestRunContextModifiers(t *testing.T) {
	rt := &recordingTools{spans: map[string]span{}}
	e := newTestEngine(t, Options{Cwd: "/w", Tools: []ToolDef{
		rt.def("Cd", false, &ContextChange{Cwd: "/moved", Mode: rules.ModeAcceptEdits}),
		rt.def("SafeCd", true, &ContextChange{Cwd: "/ignored"}),
		rt.def("Read", true, nil),
	}})
	results := e.Run(bg, uses("SafeCd:1", "Read:2", "Cd:3", "Read:4"))
	if got := results[1].Block.Content.String(); !strings.Contains(got, "cwd=/w mode=default") {
		t.Errorf("a safe tool's change was applied: %q", got)
	}
	if got := results[3].Block.Content.String(); !strings.Contains(got, "cwd=/moved mode=acceptEdits") {
		t.Errorf("a serial tool's change was not seen: %q", got)
	}
	// The next turn starts afresh.
	if got := e.Run(bg, uses("Read:5"))[0].Block.Content.String(); !strings.Contains(got, "cwd=/w") {
		t.Errorf("a change outlived its turn: %q", got)
	}
}

// Cancelling the turn mid-batch gives every call one result.
func TestRunCancellation(t *testing.T) {
	rt := &recordingTools{spans: map[string]span{}}
	e := newTestEngine(t, Options{Tools: []ToolDef{rt.def("Read", true, nil), rt.def("Edit", false, nil)}})
	ctx, cancel := context.WithCancel(bg)
	time.AfterFunc(30*time.Millisecond, cancel)
	results := e.Run(ctx, uses("Read:1", "Read:2", "Edit:3", "Read:4"))
	if len(results) != 4 {
		t.Fatalf("%d results for 4 calls", len(results))
	}
	for i, r := range results {
		if r == nil || !r.Block.IsError || r.Block.ToolUseID != fmt.Sprint(i+1) {
			t.Errorf("result %d = %+v, want an error result for its id", i, r)
			continue
		}
		text := r.Block.Content.String()
		if text != interruptMessage && text != cancelMessage {
			t.Errorf("result %d: %q", i, text)
		}
	}
	if results[3].Block.Content.String() != cancelMessage {
		t.Errorf("a call not started should get the cancel message, got %q", results[3].Block.Content.String())
	}
}
