package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/jsonvalue"
)

// runRun runs the tool_use blocks of one turn through Engine.Run and prints the
// tool_results in order. The input is a JSON array of tool_use blocks, or an assistant
// message ({"content": [...]}) whose tool_use blocks are taken; other blocks are
// skipped (see parseToolUses, and luatool help run).
func runRun(a *app, args []string) int {
	if len(args) != 1 {
		return a.errorf("usage: luatool run FILE|-  (a JSON array of tool_use blocks; see luatool help run)")
	}
	if err := a.checkNamedRoot(); err != nil {
		return a.errorf("%v", err)
	}
	var data []byte
	var err error
	name := args[0]
	if name == "-" {
		name = "stdin"
		data, err = io.ReadAll(a.stdin)
	} else {
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		return a.errorf("%v", err)
	}
	uses, err := parseToolUses(data)
	if err != nil {
		return a.errorf("%s: %v", name, err)
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
				a.printContent(fmt.Sprintf("── %s %s%s", r.Block.ToolUseID, uses[i].Name, status))
				a.printContent(r.Block.Content.String())
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

// turnShape is what run's input must be, for the error when it is something else.
const turnShape = "want a JSON array of tool_use blocks or a message with a content array"

// parseToolUses reads tool_use blocks from a JSON array of blocks or from an
// assistant message with a content array. Blocks of another type are skipped; a
// block without a type is a tool_use. A block without an id is given toolu_N, N its
// position counted from 1, and ids must be unique: every result is known by its
// block's id. Errors name the line and column, and the block, counted from 1.
func parseToolUses(data []byte) ([]engine.ToolUse, error) {
	in := jsonInput(data)
	if err := in.check(); err != nil {
		return nil, err
	}
	top := in.top()
	var list jsonItem
	switch jsonvalue.Kind(top.raw) {
	case "an array":
		list = top
	case "an object":
		members, err := in.items(top, "")
		if err != nil {
			return nil, err
		}
		content, ok := member(members, "content")
		if !ok {
			return nil, in.at(top.off, "%s, got an object without \"content\"", turnShape)
		}
		if jsonvalue.Kind(content.raw) != "an array" {
			return nil, in.at(content.off, "\"content\" must be an array of blocks, got %s", jsonvalue.Kind(content.raw))
		}
		list = content
	default:
		return nil, in.at(top.off, "%s, got %s", turnShape, jsonvalue.Kind(top.raw))
	}
	blocks, err := in.items(list, "")
	if err != nil {
		return nil, err
	}
	var uses []engine.ToolUse
	idBlock := map[string]int{} // the block number of each id
	numbered := map[int]bool{}  // the blocks that were given an id
	for i, block := range blocks {
		n := i + 1
		if jsonvalue.Kind(block.raw) != "an object" {
			return nil, in.at(block.off, "block %d: want a tool_use block (an object), got %s", n, jsonvalue.Kind(block.raw))
		}
		fields, err := in.items(block, fmt.Sprintf("block %d: ", n))
		if err != nil {
			return nil, err
		}
		str := func(key string) (string, bool, error) {
			f, ok := member(fields, key)
			if !ok {
				return "", false, nil
			}
			var s string
			if jsonvalue.Kind(f.raw) != "a string" || json.Unmarshal(f.raw, &s) != nil {
				return "", true, in.at(f.off, "block %d: %q must be a string, got %s", n, key, jsonvalue.Kind(f.raw))
			}
			return s, true, nil
		}
		typ, hasType, err := str("type")
		if err != nil {
			return nil, err
		}
		if hasType && typ != "tool_use" {
			continue
		}
		name, hasName, err := str("name")
		switch {
		case err != nil:
			return nil, err
		case !hasName:
			return nil, in.at(block.off, "block %d: a tool_use needs a \"name\"", n)
		case name == "":
			return nil, in.at(block.off, "block %d: \"name\" is empty", n)
		}
		id, _, err := str("id")
		if err != nil {
			return nil, err
		}
		if id == "" {
			id = fmt.Sprintf("toolu_%d", n)
			numbered[n] = true
		}
		if first, dup := idBlock[id]; dup {
			msg := fmt.Sprintf("blocks %d and %d have the same id %q; ids must be unique", first, n, id)
			for _, b := range []int{first, n} {
				if numbered[b] {
					msg += fmt.Sprintf(" (block %d has none and was given %s)", b, id)
				}
			}
			return nil, in.at(block.off, "%s", msg)
		}
		idBlock[id] = n
		var input json.RawMessage
		if f, ok := member(fields, "input"); ok {
			input = f.raw
		}
		uses = append(uses, engine.ToolUse{ID: id, Name: name, Input: input})
	}
	if len(uses) == 0 {
		return nil, errors.New("no tool_use block (blocks of other types are skipped)")
	}
	return uses, nil
}

// member finds an object's member by name.
func member(members []jsonItem, key string) (jsonItem, bool) {
	for _, m := range members {
		if m.key == key {
			return m, true
		}
	}
	return jsonItem{}, false
}
