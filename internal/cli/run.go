package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/luatool/luatool/engine"
)

// runRun runs the tool_use blocks of one turn through Engine.Run and prints the
// tool_results in order. The input is a JSON array of tool_use blocks, or an assistant
// message ({"content": [...]}) whose tool_use blocks are taken; other blocks are
// skipped.
func runRun(a *app, args []string) int {
	if len(args) != 1 {
		return a.errorf("usage: luatool run FILE|-  (a JSON array of tool_use blocks)")
	}
	var data []byte
	var err error
	if args[0] == "-" {
		data, err = io.ReadAll(a.stdin)
	} else {
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		return a.errorf("%v", err)
	}
	uses, err := parseToolUses(data)
	if err != nil {
		return a.errorf("%s: %v", args[0], err)
	}
	return a.withTools(false, func(s *session) int {
		if !a.cfg.json {
			a.showUses(s.eng.Registry(), uses)
		}
		stop := a.display().spin(fmt.Sprintf("running %s", plural(len(uses), "call")))
		results := s.eng.Run(context.Background(), uses)
		stop()
		failed := false
		blocks := make([]engine.ResultBlock, len(results))
		for i, r := range results {
			blocks[i] = r.Block
			failed = failed || r.Block.IsError
			for _, line := range r.Log {
				a.display().log("log ("+r.Block.ToolUseID+"): ", line)
			}
			a.showError(r)
			if !a.cfg.json {
				a.showOutcome(r, r.Block.ToolUseID+": ")
			}
		}
		if a.cfg.json {
			a.printJSON(blocks)
		} else {
			for i, r := range results {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				status := ""
				if r.Block.IsError {
					status = " (error)"
				}
				fmt.Fprintf(a.stdout, "── %s %s%s\n", r.Block.ToolUseID, uses[i].Name, status)
				fmt.Fprintln(a.stdout, r.Block.Content.String())
			}
		}
		if failed {
			return ExitTool
		}
		return ExitOK
	})
}

// showUses shows the calls of a turn, as their tools render them, on stderr.
func (a *app) showUses(reg *engine.Registry, uses []engine.ToolUse) {
	ctx, cancel := a.bounded()
	defer cancel()
	for _, use := range uses {
		rendered := use.Name
		if t, ok := reg.Lookup(use.Name); ok {
			var in map[string]any
			json.Unmarshal(use.Input, &in)
			rendered = t.RenderToolUse(ctx, in)
		}
		a.display().toolUse(use.ID + ": " + rendered)
	}
}

// parseToolUses reads tool_use blocks from a JSON array of blocks or from an
// assistant message with a content array.
func parseToolUses(data []byte) ([]engine.ToolUse, error) {
	var blocks []json.RawMessage
	if err := json.Unmarshal(data, &blocks); err != nil {
		var msg struct {
			Content []json.RawMessage `json:"content"`
		}
		if err2 := json.Unmarshal(data, &msg); err2 != nil || msg.Content == nil {
			return nil, fmt.Errorf("want a JSON array of tool_use blocks or a message with a content array: %v", err)
		}
		blocks = msg.Content
	}
	var uses []engine.ToolUse
	for i, raw := range blocks {
		var b struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("block %d: %v", i, err)
		}
		if b.Type != "" && b.Type != "tool_use" {
			continue
		}
		if b.Name == "" {
			return nil, fmt.Errorf("block %d has no name", i)
		}
		if b.ID == "" {
			b.ID = fmt.Sprintf("toolu_%d", i+1)
		}
		uses = append(uses, engine.ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
	}
	if len(uses) == 0 {
		return nil, fmt.Errorf("no tool_use block")
	}
	return uses, nil
}
