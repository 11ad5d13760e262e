package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine/rules"
)

// recordingTools are Go tools that record, in one sequence, when each call started
// and ended, by tool_use id, and how many of them ran at once. A call whose input
// names others in "meet" waits for them to have started before it ends: calls that
// must run side by side meet, and calls run one after another would wait for each
// other until meetGuard. A call with "block" runs until its context ends.
type recordingTools struct {
	mu            sync.Mutex
	log           []string // "start 1", "end 1", ... in order
	running, most int
	started       map[string]chan struct{}
}

// meetGuard bounds how long a call waits to meet another: a stop for a broken
// engine that runs them one after another, not a measure.
const meetGuard = time.Minute

// startedChan returns the channel closed when the call with id starts; rt.mu is held.
func (rt *recordingTools) startedChan(id string) chan struct{} {
	if rt.started == nil {
		rt.started = map[string]chan struct{}{}
	}
	if rt.started[id] == nil {
		rt.started[id] = make(chan struct{})
	}
	return rt.started[id]
}

func (rt *recordingTools) def(name string, safe bool, change *ContextChange) ToolDef {
	return ToolDef{
		Name: name,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "string"}, "meet": map[string]any{"type": "array"}, "block": map[string]any{"type": "boolean"},
		}},
		Prompt:            func(context.Context, PromptOptions) (string, error) { return name, nil },
		IsConcurrencySafe: func(context.Context, map[string]any) (bool, error) { return safe, nil },
		IsReadOnly:        func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(ctx context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			id := in["id"].(string)
			rt.mu.Lock()
			rt.log = append(rt.log, "start "+id)
			rt.running++
			rt.most = max(rt.most, rt.running)
			close(rt.startedChan(id))
			var meet []chan struct{}
			for _, m := range in["meet"].([]any) {
				meet = append(meet, rt.startedChan(m.(string)))
			}
			rt.mu.Unlock()
			defer func() {
				rt.mu.Lock()
				rt.running--
				rt.log = append(rt.log, "end "+id)
				rt.mu.Unlock()
			}()
			for i, ch := range meet {
				select {
				case <-ch:
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(meetGuard):
					return nil, fmt.Errorf("call %s never met call %v", id, in["meet"].([]any)[i])
				}
			}
			if in["block"] == true {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return &ToolResult{Data: fmt.Sprintf("%s %s cwd=%s mode=%s", name, id, cc.Cwd, cc.Mode), ContextModifier: change}, nil
		},
	}
}

// before reports whether event a ("start 1", "end 2") was recorded before b.
func (rt *recordingTools) before(a, b string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	i, j := slices.Index(rt.log, a), slices.Index(rt.log, b)
	return i >= 0 && j >= 0 && i < j
}

// uses returns the tool uses of calls written "Name:id", each optionally followed by
// "meet=id,id" and "block" (see recordingTools).
func uses(calls ...string) []ToolUse {
	var out []ToolUse
	for _, c := range calls {
		words := strings.Fields(c)
		name, id, _ := strings.Cut(words[0], ":")
		in := map[string]any{"id": id, "meet": []string{}}
		for _, w := range words[1:] {
			if ids, ok := strings.CutPrefix(w, "meet="); ok {
				in["meet"] = strings.Split(ids, ",")
			} else {
				in[w] = true
			}
		}
		raw, _ := json.Marshal(in)
		out = append(out, ToolUse{ID: id, Name: name, Input: raw})
	}
	return out
}

// [Read, Grep, Edit, Read, Read] runs as three batches: the first two side by side
// (they meet), the Edit alone, the last two side by side; results come back in input
// order.
func TestRunPartitionsIntoBatches(t *testing.T) {
	rt := &recordingTools{}
	e := newTestEngine(t, Options{Cwd: "/w", Tools: []ToolDef{rt.def("Read", true, nil), rt.def("Grep", true, nil), rt.def("Edit", false, nil)}})
	results := e.Run(bg, uses("Read:1 meet=2", "Grep:2 meet=1", "Edit:3", "Read:4 meet=5", "Read:5 meet=4"))
	for i, r := range results {
		want := fmt.Sprintf(" %d cwd=/w", i+1)
		if r.Block.IsError || !strings.Contains(r.Block.Content.String(), want) || r.Block.ToolUseID != fmt.Sprint(i+1) {
			t.Errorf("result %d = %+v", i, r.Block)
		}
	}
	for _, order := range [][2]string{{"end 1", "start 3"}, {"end 2", "start 3"}, {"end 3", "start 4"}, {"end 3", "start 5"}} {
		if !rt.before(order[0], order[1]) {
			t.Errorf("%s did not come before %s: the Edit did not run alone, between the batches (%v)", order[0], order[1], rt.log)
		}
	}
}

// The batch limit bounds how many safe calls run at once.
func TestRunBatchLimit(t *testing.T) {
	rt := &recordingTools{}
	e := newTestEngine(t, Options{MaxToolUseConcurrency: 2, Tools: []ToolDef{rt.def("Read", true, nil)}})
	e.Run(bg, uses("Read:1", "Read:2", "Read:3", "Read:4"))
	if rt.most > 2 {
		t.Errorf("%d calls ran at once, over the limit of 2", rt.most)
	}
}

// A serial tool's context change is seen by the next call; a safe tool's is dropped.
func TestRunContextModifiers(t *testing.T) {
	rt := &recordingTools{}
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
	rt := &recordingTools{}
	e := newTestEngine(t, Options{Tools: []ToolDef{rt.def("Read", true, nil), rt.def("Edit", false, nil)}})
	ctx, cancel := context.WithCancel(bg)
	// Cancelled once both reads of the first batch run.
	go func() {
		rt.mu.Lock()
		one, two := rt.startedChan("1"), rt.startedChan("2")
		rt.mu.Unlock()
		<-one
		<-two
		cancel()
	}()
	results := e.Run(ctx, uses("Read:1 block", "Read:2 block", "Edit:3", "Read:4"))
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
