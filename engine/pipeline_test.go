package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine/rules"
)

// The pipeline tests run Go-native tools: what they check is the engine's, whatever
// language a tool is written in. pipeline_lua_test.go runs Lua tools through the
// same stages.

// recorder keeps what Go-native tools saw, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
	inputs []map[string]any
}

func (r *recorder) add(event string, in map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event)
	if in != nil {
		cp := map[string]any{}
		for k, v := range in {
			cp[k] = v
		}
		r.inputs = append(r.inputs, cp)
	}
}

func (r *recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func (r *recorder) Inputs() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.inputs...)
}

// objectSchema is the input schema of an object with the given properties (nil:
// any).
func objectSchema(props map[string]any, required ...any) map[string]any {
	s := map[string]any{"type": "object"}
	if props != nil {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// readOnlyTool is a Go-native tool that is read-only for every input.
func readOnlyTool(name string, schema map[string]any, call func(in map[string]any, cc *CallContext) (*ToolResult, error)) ToolDef {
	return ToolDef{
		Name:        name,
		Prompt:      func(context.Context, PromptOptions) (string, error) { return name + " (go tool)", nil },
		InputSchema: schema,
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(_ context.Context, in map[string]any, cc *CallContext) (*ToolResult, error) {
			return call(in, cc)
		},
	}
}

// data is the result of a call that returns d.
func data(d any) (*ToolResult, error) { return &ToolResult{Data: d}, nil }

// showTypes renders the input fields named by keys (a dot descends into an object)
// as "type:value", with JSON's type names, so that a test sees what coercion made
// of each.
func showTypes(in map[string]any, keys ...string) string {
	parts := make([]string, 0, len(keys))
	for _, key := range keys {
		var v any = in
		for _, k := range strings.Split(key, ".") {
			obj, _ := v.(map[string]any)
			v = obj[k]
		}
		switch v := v.(type) {
		case nil:
			parts = append(parts, "nil:nil")
		case float64:
			parts = append(parts, fmt.Sprintf("number:%v", v))
		case bool:
			parts = append(parts, fmt.Sprintf("boolean:%v", v))
		case string:
			parts = append(parts, "string:"+v)
		default:
			parts = append(parts, fmt.Sprintf("%T:%v", v, v))
		}
	}
	return strings.Join(parts, " ")
}

// goTools returns the Go-native tools of the pipeline tests, reporting to rec.
func goTools(rec *recorder) []ToolDef {
	prompt := func(context.Context, PromptOptions) (string, error) { return "go tool", nil }
	readOnly := func(context.Context, map[string]any) (bool, error) { return true, nil }
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	boolean := map[string]any{"type": "boolean"}
	big := readOnlyTool("Big", objectSchema(map[string]any{"n": integer}, "n"), func(in map[string]any, _ *CallContext) (*ToolResult, error) {
		lines := make([]string, int(in["n"].(float64)))
		for i := range lines {
			lines[i] = fmt.Sprintf("line %05d of the result", i+1)
		}
		return data(strings.Join(lines, "\n"))
	})
	big.MaxResultSizeChars = 100
	inf := readOnlyTool("Inf", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) {
		return data(strings.Repeat("z", 60000))
	})
	inf.MaxResultSizeChars = math.Inf(1)
	mapFail := readOnlyTool("MapFail", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("data") })
	mapFail.MapResult = func(_ context.Context, d any, _ string) (Content, error) {
		return nil, fmt.Errorf("no map for %v", d)
	}
	messages := readOnlyTool("Messages", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) {
		return &ToolResult{Data: map[string]any{"n": 1.0}, NewMessages: []any{map[string]any{"type": "text", "text": "extra"}}}, nil
	})
	messages.MapResult = func(_ context.Context, d any, id string) (Content, error) {
		return Text(fmt.Sprintf("n=%v id=%s", d.(map[string]any)["n"], id)), nil
	}
	return []ToolDef{
		{
			Name:   "Echo",
			Prompt: prompt,
			InputSchema: map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{
					"n":    integer,
					"b":    boolean,
					"d":    map[string]any{"type": "string", "default": "dflt"},
					"list": map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
				}},
			IsReadOnly: readOnly,
			Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
				rec.add("call", in)
				return &ToolResult{Data: in}, nil
			},
		},
		{
			Name:   "Order",
			Prompt: prompt,
			InputSchema: map[string]any{"type": "object", "required": []any{"step"},
				"properties": map[string]any{"step": str}},
			ValidateInput: func(_ context.Context, in map[string]any, _ *CallContext) (ValidationResult, error) {
				rec.add("validate", nil)
				if in["step"] == "validate" {
					return ValidationResult{Message: "stopped at validate"}, nil
				}
				return ValidationResult{Valid: true}, nil
			},
			CheckPermissions: func(_ context.Context, in map[string]any, _ *CallContext) (PermissionResult, error) {
				rec.add("permission", nil)
				if in["step"] == "permission" {
					return PermissionResult{Behavior: rules.Deny, Message: "stopped at permission"}, nil
				}
				return PermissionResult{Behavior: rules.Allow}, nil
			},
			Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
				rec.add("call", nil)
				if in["step"] == "call" {
					return nil, errors.New("stopped at call")
				}
				return &ToolResult{Data: "done"}, nil
			},
			MapResult: func(_ context.Context, data any, _ string) (Content, error) {
				rec.add("map", nil)
				return Text(fmt.Sprint(data)), nil
			},
		},
		{
			Name:        "GoWrite",
			Prompt:      prompt,
			InputSchema: objectSchema(map[string]any{"path": str}),
			Description: func(_ context.Context, in map[string]any) (string, error) {
				return fmt.Sprintf("Write %v", in["path"]), nil
			},
			Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
				rec.add("call", in)
				return &ToolResult{Data: fmt.Sprintf("wrote %v", in["path"])}, nil
			},
		},
		{
			// Guard writes somewhere: every step of its own has an opinion.
			Name:        "Guard",
			Prompt:      prompt,
			InputSchema: objectSchema(map[string]any{"path": str}, "path"),
			Description: func(_ context.Context, in map[string]any) (string, error) {
				return fmt.Sprintf("Write to %v", in["path"]), nil
			},
			ValidateInput: func(_ context.Context, in map[string]any, _ *CallContext) (ValidationResult, error) {
				if !strings.HasPrefix(in["path"].(string), "/") {
					return ValidationResult{Message: "path must be absolute", ErrorCode: 1}, nil
				}
				return ValidationResult{Valid: true}, nil
			},
			CheckPermissions: func(_ context.Context, in map[string]any, _ *CallContext) (PermissionResult, error) {
				switch path := in["path"].(string); path {
				case "/etc":
					return PermissionResult{Behavior: rules.Deny, Message: "no writing to /etc"}, nil
				case "/upd":
					return PermissionResult{Behavior: rules.Allow, UpdatedInput: map[string]any{"path": "/upd/x"}}, nil
				case "/ok":
					return PermissionResult{Behavior: rules.Allow}, nil
				default:
					return PermissionResult{Behavior: rules.Ask, Message: "Guard wants to write " + path}, nil
				}
			},
			Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
				return &ToolResult{Data: fmt.Sprintf("wrote %v", in["path"])}, nil
			},
		},
		{
			Name:        "GoFail",
			Prompt:      prompt,
			InputSchema: objectSchema(map[string]any{"n": integer, "long": boolean}),
			IsReadOnly:  readOnly,
			Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
				if in["long"] == true {
					return nil, errors.New(strings.Repeat("a", 6000) + strings.Repeat("b", 6000))
				}
				if n, ok := in["n"].(float64); ok {
					return nil, errors.New(strings.Repeat("e", int(n)))
				}
				return nil, errors.New("go failed")
			},
		},
		{
			Name:        "GoSlow",
			Prompt:      prompt,
			InputSchema: map[string]any{"type": "object"},
			IsReadOnly:  readOnly,
			Call: func(ctx context.Context, _ map[string]any, _ *CallContext) (*ToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		},
		readOnlyTool("Coerce", objectSchema(map[string]any{
			"n": integer,
			"x": map[string]any{"type": "number"},
			"b": boolean,
			"s": str,
			"d": map[string]any{"type": "string", "default": "dflt"},
			"k": map[string]any{"type": "integer", "default": 7},
			"obj": objectSchema(map[string]any{
				"mode":  map[string]any{"type": "string", "default": "fast"},
				"level": integer,
			}),
		}), func(in map[string]any, _ *CallContext) (*ToolResult, error) {
			return data(showTypes(in, "n", "x", "b", "s", "d", "k", "obj.mode", "obj.level"))
		}),
		readOnlyTool("Empty", objectSchema(map[string]any{"kind": str}), func(in map[string]any, _ *CallContext) (*ToolResult, error) {
			switch in["kind"] {
			case "string":
				return data("")
			case "nil":
				return data(nil)
			case "space":
				return data(" \n\t ")
			case "no result":
				return nil, nil
			case "object":
				return data(map[string]any{})
			case "array":
				return data([]any{})
			case "zero":
				return data(0.0)
			case "false":
				return data(false)
			}
			return data("?")
		}),
		big,
		readOnlyTool("Sized", objectSchema(map[string]any{"n": integer}, "n"), func(in map[string]any, _ *CallContext) (*ToolResult, error) {
			return data(strings.Repeat("y", int(in["n"].(float64))))
		}),
		inf,
		readOnlyTool("Chatty", objectSchema(nil), func(_ map[string]any, cc *CallContext) (*ToolResult, error) {
			cc.Log("first line")
			cc.Progress(map[string]any{"pct": 50.0})
			cc.Log("second line")
			cc.Progress("done")
			return data("ok")
		}),
		readOnlyTool("Counter", objectSchema(nil), func(_ map[string]any, cc *CallContext) (*ToolResult, error) {
			n, _, _ := cc.State.Get("count")
			count, _ := n.(float64)
			next := count + 1
			cc.State.Set("count", next)
			cc.State.Set("history", map[string]any{"last": next, "list": []any{1.0, 2.0}})
			return data(fmt.Sprint(next))
		}),
		mapFail,
		messages,
	}
}

// pipelineEngine builds an engine with the Go tools above and those of opts.
func pipelineEngine(t *testing.T, opts Options) (*Engine, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.Tools = append(goTools(rec), opts.Tools...)
	return newTestEngine(t, opts), rec
}

var useCounter struct {
	sync.Mutex
	n int
}

func call(e *Engine, ctx context.Context, name, in string) *Result {
	useCounter.Lock()
	useCounter.n++
	id := fmt.Sprintf("toolu_%03d", useCounter.n)
	useCounter.Unlock()
	return e.Call(ctx, ToolUse{ID: id, Name: name, Input: []byte(in)})
}

// wantOK asserts a successful result with the given text.
func wantOK(t *testing.T, r *Result, text string) {
	t.Helper()
	if r.Block.IsError || r.Stage != StageDone {
		t.Errorf("result is an error at stage %s: %q", r.Stage, r.Block.Content.String())
		return
	}
	if got := r.Block.Content.String(); got != text {
		t.Errorf("content = %q, want %q", got, text)
	}
}

// wantError asserts an is_error result ending at stage with exactly text.
func wantError(t *testing.T, r *Result, stage Stage, text string) {
	t.Helper()
	if !r.Block.IsError {
		t.Errorf("result is not an error: %q", r.Block.Content.String())
	}
	if r.Stage != stage {
		t.Errorf("stage = %s, want %s", r.Stage, stage)
	}
	if got := r.Block.Content.String(); got != text {
		t.Errorf("content =\n%q\nwant\n%q", got, text)
	}
}

func TestUnknownTool(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	wantError(t, call(e, bg, "Eco", `{}`), StageLookup,
		"<tool_use_error>Error: No such tool available: Eco. Did you mean Echo?</tool_use_error>")
	wantError(t, call(e, bg, "WebFetch", `{}`), StageLookup,
		"<tool_use_error>Error: No such tool available: WebFetch</tool_use_error>")
	r := call(e, bg, "", `{}`)
	if !r.Block.IsError || !strings.HasPrefix(r.Block.Content.String(), "<tool_use_error>Error: No such tool available: ") {
		t.Errorf("empty name: %q", r.Block.Content.String())
	}
	if r.Tool != nil {
		t.Error("Result.Tool is set for an unknown tool")
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	e, rec := pipelineEngine(t, Options{})
	ctx, cancel := context.WithCancel(bg)
	cancel()
	for _, name := range []string{"Order", "GoSlow"} {
		r := call(e, ctx, name, `{"step":"none"}`)
		wantError(t, r, StageAbort, cancelMessage)
	}
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("a cancelled call reached %v", ev)
	}
	// Lookup still comes first.
	wantError(t, call(e, ctx, "Nope", `{}`), StageLookup, "<tool_use_error>Error: No such tool available: Nope</tool_use_error>")
}

// TestPipelineOrder proves the order validate -> permission -> call -> map, and that
// each failing step stops the ones after it.
func TestPipelineOrder(t *testing.T) {
	tests := []struct {
		input  string
		events []string
		stage  Stage
		text   string
	}{
		{`{"step":"none"}`, []string{"validate", "permission", "call", "map"}, StageDone, "done"},
		{`{}`, nil, StageInput, "<tool_use_error>InputValidationError: Order failed due to the following issue:\nThe required parameter `step` is missing</tool_use_error>"},
		{`{"step":"validate"}`, []string{"validate"}, StageValidate, "<tool_use_error>stopped at validate</tool_use_error>"},
		{`{"step":"permission"}`, []string{"validate", "permission"}, StagePermission, "stopped at permission"},
		{`{"step":"call"}`, []string{"validate", "permission", "call"}, StageCall, "stopped at call"},
	}
	for _, tt := range tests {
		e, rec := pipelineEngine(t, Options{})
		r := call(e, bg, "Order", tt.input)
		if tt.stage == StageDone {
			wantOK(t, r, tt.text)
		} else {
			wantError(t, r, tt.stage, tt.text)
		}
		if got := rec.Events(); !reflect.DeepEqual(got, tt.events) {
			t.Errorf("%s: steps %v, want %v", tt.input, got, tt.events)
		}
	}
}

func TestSchemaFailureEnvelope(t *testing.T) {
	todo := ToolDef{
		Name:   "TodoWrite",
		Prompt: func(context.Context, PromptOptions) (string, error) { return "todos", nil },
		InputSchema: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"path", "todos"},
			"properties": map[string]any{
				"path":  map[string]any{"type": "string"},
				"count": map[string]any{"type": "integer"},
				"todos": map[string]any{"type": "array", "items": map[string]any{
					"type": "object", "required": []any{"content", "activeForm"},
					"properties": map[string]any{"content": map[string]any{"type": "string"}, "activeForm": map[string]any{"type": "string"}}}},
			}},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return nil, errors.New("must not be called")
		},
	}
	e, _ := pipelineEngine(t, Options{Tools: []ToolDef{todo}})
	tests := []struct {
		input string
		lines []string
	}{
		{`{"count":"abc","extra":1,"todos":[{"content":"x"}]}`, []string{
			"The required parameter `path` is missing",
			"The required parameter `todos[0].activeForm` is missing",
			"An unexpected parameter `extra` was provided",
			"The parameter `count` type is expected as `number` but provided as `string`",
		}},
		{`{"path":5,"todos":[{"content":"x","activeForm":3}]}`, []string{
			"The parameter `path` type is expected as `string` but provided as `number`",
			"The parameter `todos[0].activeForm` type is expected as `string` but provided as `number`",
		}},
		{`{"path":"p","todos":[],"count":"1.5"}`, []string{
			"The parameter `count` type is expected as `number` but provided as `string`",
		}},
		// The original's validator calls an integer a number, except to a fraction.
		{`{"path":"p","todos":[],"count":1.5}`, []string{
			"The parameter `count` type is expected as `int` but provided as `number`",
		}},
		// Missing parameters come in the order of the schema's required list.
		{`{"todos":[{}]}`, []string{
			"The required parameter `path` is missing",
			"The required parameter `todos[0].content` is missing",
			"The required parameter `todos[0].activeForm` is missing",
		}},
		// Unexpected parameters come in the order the model sent them, other
		// problems where they were.
		{`{"zeta":1,"path":"p","todos":[{"content":"x","activeForm":"y"}],"alpha":2,"count":"x","mid":3}`, []string{
			"An unexpected parameter `zeta` was provided",
			"An unexpected parameter `alpha` was provided",
			"An unexpected parameter `mid` was provided",
			"The parameter `count` type is expected as `number` but provided as `string`",
		}},
		{`[1,2]`, []string{"The input must be a JSON object"}},
		{`{"path": }`, nil}, // not JSON: one line saying so
	}
	for _, tt := range tests {
		// The original: "issue" for one problem, "issues" for several.
		head := "<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\n"
		if len(tt.lines) > 1 {
			head = "<tool_use_error>InputValidationError: TodoWrite failed due to the following issues:\n"
		}
		r := call(e, bg, "TodoWrite", tt.input)
		text := r.Block.Content.String()
		if !r.Block.IsError || r.Stage != StageInput || !strings.HasPrefix(text, head) || !strings.HasSuffix(text, "</tool_use_error>") {
			t.Errorf("%s: result %q at stage %s", tt.input, text, r.Stage)
			continue
		}
		if r.Input != nil {
			t.Errorf("%s: Result.Input is set although validation failed", tt.input)
		}
		got := strings.Split(strings.TrimSuffix(strings.TrimPrefix(text, head), "</tool_use_error>"), "\n")
		if tt.lines == nil {
			if len(got) != 1 || !strings.Contains(got[0], "not valid JSON") {
				t.Errorf("%s: lines %q, want one saying the input is not valid JSON", tt.input, got)
			}
			continue
		}
		// In the original's order: missing, unexpected, wrong type, the rest.
		if !reflect.DeepEqual(got, tt.lines) {
			t.Errorf("%s: problems\n%s\nwant\n%s", tt.input, strings.Join(got, "\n"), strings.Join(tt.lines, "\n"))
		}
	}
}

// TestSchemaFailureTextIsDeterministic exposes a bug: the problems come out in the
// order the validator's maps happen to iterate, so one bad input gives different
// texts from call to call.
func TestSchemaFailureTextIsDeterministic(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	texts := map[string]bool{}
	for i := 0; i < 30; i++ {
		r := call(e, bg, "Echo", `{"n":"x","b":"maybe","list":[1,"two"],"extra1":1,"extra2":2}`)
		texts[r.Block.Content.String()] = true
	}
	if len(texts) != 1 {
		t.Errorf("one input gave %d different error texts", len(texts))
	}
}

func TestCoercionAndDefaultsBeforeCall(t *testing.T) {
	e, rec := pipelineEngine(t, Options{})
	r := call(e, bg, "Coerce", `{"n":"12","x":"1.5","b":"true","s":"12","obj":{"level":"3"}}`)
	wantOK(t, r, "number:12 number:1.5 boolean:true string:12 string:dflt number:7 string:fast number:3")
	if !reflect.DeepEqual(r.Input, map[string]any{"n": 12.0, "x": 1.5, "b": true, "s": "12", "d": "dflt", "k": 7.0,
		"obj": map[string]any{"mode": "fast", "level": 3.0}}) {
		t.Errorf("Result.Input = %#v", r.Input)
	}
	wantOK(t, call(e, bg, "Coerce", `{"b":"false","d":"given","k":1}`), "nil:nil nil:nil boolean:false nil:nil string:given number:1 nil:nil nil:nil")

	// The Go tool sees the coerced input and the default.
	wantOK(t, call(e, bg, "Echo", `{"n":"-4","b":"false","list":["1","2.5"]}`), `{"b":false,"d":"dflt","list":[1,2.5],"n":-4}`)
	in := rec.Inputs()
	if len(in) != 1 || !reflect.DeepEqual(in[0], map[string]any{"n": -4.0, "b": false, "d": "dflt", "list": []any{1.0, 2.5}}) {
		t.Errorf("Echo was called with %#v", in)
	}

	// Strings that are not numbers or booleans are not coerced, and fail validation.
	for _, bad := range []string{`{"n":"1.5"}`, `{"n":"twelve"}`, `{"b":"yes"}`, `{"b":"1"}`} {
		if r := call(e, bg, "Coerce", bad); !r.Block.IsError || r.Stage != StageInput {
			t.Errorf("%s: %q, want an input validation error", bad, r.Block.Content.String())
		}
	}
}

func TestValidateInputFailure(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	wantError(t, call(e, bg, "Guard", `{"path":"relative"}`), StageValidate, "<tool_use_error>path must be absolute</tool_use_error>")
}

func TestPermissionDenyIsPlain(t *testing.T) {
	asked := false
	e, _ := pipelineEngine(t, Options{CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
		asked = true
		return PermissionDecision{Behavior: rules.Allow}, nil
	}})
	wantError(t, call(e, bg, "Guard", `{"path":"/etc"}`), StagePermission, "no writing to /etc")
	if asked {
		t.Error("CanUseTool was asked about a call the tool denied")
	}
	// The tool's allow needs no one, and its updatedInput reaches call.
	r := call(e, bg, "Guard", `{"path":"/upd"}`)
	wantOK(t, r, "wrote /upd/x")
	if r.Input["path"] != "/upd/x" {
		t.Errorf("Result.Input = %v, want the updated input", r.Input)
	}
	wantOK(t, call(e, bg, "Guard", `{"path":"/ok"}`), "wrote /ok")
	if asked {
		t.Error("CanUseTool was asked about a call the tool allowed")
	}
}

func TestAskWithoutCanUseToolIsDeny(t *testing.T) {
	e, rec := pipelineEngine(t, Options{})
	for _, tt := range []struct{ tool, input string }{
		{"Guard", `{"path":"/tmp/a"}`},   // the tool asks
		{"GoWrite", `{"path":"/tmp/a"}`}, // default: not read-only, so ask
	} {
		r := call(e, bg, tt.tool, tt.input)
		if !r.Block.IsError || r.Stage != StagePermission {
			t.Errorf("%s: %q at %s, want a permission error", tt.tool, r.Block.Content.String(), r.Stage)
		}
		if strings.Contains(r.Block.Content.String(), "<tool_use_error>") {
			t.Errorf("%s: a deny must not be wrapped: %q", tt.tool, r.Block.Content.String())
		}
	}
	if len(rec.Inputs()) != 0 {
		t.Error("GoWrite ran without permission")
	}
	// A read-only Go tool is allowed by the default checkPermissions.
	wantOK(t, call(e, bg, "Echo", `{}`), `{"d":"dflt"}`)
}

func TestCanUseTool(t *testing.T) {
	type answer struct {
		d   PermissionDecision
		err error
	}
	tests := []struct {
		name   string
		answer answer
		want   string
		stage  Stage
	}{
		{"allow", answer{d: PermissionDecision{Behavior: rules.Allow}}, "wrote /tmp/a", StageDone},
		{"allow with updated input", answer{d: PermissionDecision{Behavior: rules.Allow, UpdatedInput: map[string]any{"path": "/tmp/b"}}}, "wrote /tmp/b", StageDone},
		{"deny", answer{d: PermissionDecision{Behavior: rules.Deny}}, "Permission to use Guard has been denied.", StagePermission},
		{"deny with feedback", answer{d: PermissionDecision{Behavior: rules.Deny, Message: "use /tmp/c instead"}},
			"The user doesn't want to proceed with this tool use. The tool use was rejected. The user said:\nuse /tmp/c instead", StagePermission},
		{"an answer that is not allow", answer{d: PermissionDecision{Behavior: "sure"}}, "Permission to use Guard has been denied.", StagePermission},
		{"callback error", answer{err: errors.New("no terminal")}, "Permission to use Guard was not granted: no terminal", StagePermission},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []PermissionRequest
			e, _ := pipelineEngine(t, Options{CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
				got = append(got, req)
				return tt.answer.d, tt.answer.err
			}})
			r := e.Call(bg, ToolUse{ID: "toolu_perm", Name: "Guard", Input: []byte(`{"path":"/tmp/a"}`)})
			if tt.stage == StageDone {
				wantOK(t, r, tt.want)
			} else {
				wantError(t, r, tt.stage, tt.want)
			}
			if len(got) != 1 {
				t.Fatalf("CanUseTool called %d times, want once", len(got))
			}
			req := got[0]
			if req.Tool == nil || req.Tool.Name() != "Guard" || req.ToolUseID != "toolu_perm" ||
				req.Description != "Write to /tmp/a" || req.Message != "Guard wants to write /tmp/a" ||
				!reflect.DeepEqual(req.Input, map[string]any{"path": "/tmp/a"}) {
				t.Errorf("request = %+v", req)
			}
		})
	}
	t.Run("updated input is validated", func(t *testing.T) {
		e, _ := pipelineEngine(t, Options{CanUseTool: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{Behavior: rules.Allow, UpdatedInput: map[string]any{"path": 5.0}}, nil
		}})
		r := call(e, bg, "Guard", `{"path":"/tmp/a"}`)
		if !r.Block.IsError || !strings.HasPrefix(r.Block.Content.String(), "<tool_use_error>InputValidationError: Guard") {
			t.Errorf("%q", r.Block.Content.String())
		}
	})
	t.Run("Go tool description", func(t *testing.T) {
		var desc string
		e, rec := pipelineEngine(t, Options{CanUseTool: func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
			desc = req.Description
			return PermissionDecision{Behavior: rules.Allow}, nil
		}})
		wantOK(t, call(e, bg, "GoWrite", `{"path":"/x"}`), "wrote /x")
		if desc != "Write /x" || len(rec.Inputs()) != 1 {
			t.Errorf("description %q, calls %d", desc, len(rec.Inputs()))
		}
	})
	t.Run("modes", func(t *testing.T) {
		asked := 0
		can := func(context.Context, PermissionRequest) (PermissionDecision, error) {
			asked++
			return PermissionDecision{Behavior: rules.Allow}, nil
		}
		e, _ := pipelineEngine(t, Options{CanUseTool: can, Mode: rules.ModeDontAsk})
		if r := call(e, bg, "Guard", `{"path":"/tmp/a"}`); !r.Block.IsError || asked != 0 {
			t.Errorf("dontAsk: %q, asked %d times", r.Block.Content.String(), asked)
		}
		e, _ = pipelineEngine(t, Options{Mode: rules.ModeBypassPermissions})
		wantOK(t, call(e, bg, "Guard", `{"path":"/tmp/a"}`), "wrote /tmp/a")
		// bypassPermissions does not override the tool's own deny.
		wantError(t, call(e, bg, "Guard", `{"path":"/etc"}`), StagePermission, "no writing to /etc")
	})
}

// TestGoCallTimeoutAndTheEngineKeepsServing: a call that outlives the timeout is
// stopped with the engine's words, and the engine serves the next calls
// (TestCallTimeoutAndTheEngineKeepsServing does it with Lua code that never yields).
func TestGoCallTimeoutAndTheEngineKeepsServing(t *testing.T) {
	e, _ := pipelineEngine(t, Options{Timeout: 300 * time.Millisecond})
	wantError(t, call(e, bg, "GoSlow", `{}`), StageCall, "GoSlow timed out after 300ms and was stopped.")
	wantOK(t, call(e, bg, "Coerce", `{}`), "nil:nil nil:nil nil:nil nil:nil string:dflt number:7 nil:nil nil:nil")
	wantError(t, call(e, bg, "GoSlow", `{}`), StageCall, "GoSlow timed out after 300ms and was stopped.")
}

// TestCancelWhileRunningIsAnInterrupt: cancelling the caller's context while the
// tool runs gives the interrupt result, and the engine serves the next call.
func TestCancelWhileRunningIsAnInterrupt(t *testing.T) {
	started := make(chan struct{})
	wait := ToolDef{
		Name:        "Wait",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "waits until stopped", nil },
		InputSchema: objectSchema(nil),
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(ctx context.Context, _ map[string]any, _ *CallContext) (*ToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	e, _ := pipelineEngine(t, Options{Tools: []ToolDef{wait}})
	ctx, cancel := context.WithCancel(bg)
	go func() {
		<-started
		cancel()
	}()
	wantError(t, call(e, ctx, "Wait", `{}`), StageCall, interruptMessage)
	wantOK(t, call(e, bg, "Sized", `{"n":4}`), "yyyy")
}

func TestEmptyResult(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	for _, kind := range []string{"string", "nil", "space", "no result"} {
		wantOK(t, call(e, bg, "Empty", fmt.Sprintf(`{"kind":%q}`, kind)), "(Empty completed with no output)")
	}
	for kind, want := range map[string]string{"object": "{}", "array": "[]", "zero": "0", "false": "false"} {
		wantOK(t, call(e, bg, "Empty", `{"kind":"`+kind+`"}`), want)
	}
}

func TestLargeResultIsPersisted(t *testing.T) {
	results := t.TempDir()
	e, _ := pipelineEngine(t, Options{ResultsDir: results})
	var lines []string
	for i := 1; i <= 500; i++ {
		lines = append(lines, fmt.Sprintf("line %05d of the result", i))
	}
	full := strings.Join(lines, "\n")

	r := e.Call(bg, ToolUse{ID: "toolu_big", Name: "Big", Input: []byte(`{"n":500}`)})
	if r.Block.IsError || r.Stage != StageDone {
		t.Fatalf("result: %q", r.Block.Content.String())
	}
	text := r.Block.Content.String()
	if r.PersistedPath == "" || filepath.Dir(r.PersistedPath) != results {
		t.Fatalf("PersistedPath = %q, want a file in %s", r.PersistedPath, results)
	}
	saved, err := os.ReadFile(r.PersistedPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != full {
		t.Errorf("the saved file holds %d bytes, want the whole %d-byte result", len(saved), len(full))
	}
	for _, want := range []string{
		"<persisted-output>\n",
		"Output too large (",
		"Full output saved to: " + r.PersistedPath + "\n",
		"Preview (first 2KB):\n" + lines[0] + "\n",
		"\n...\n</persisted-output>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("persisted text lacks %q:\n%.400s", want, text)
		}
	}
	if strings.Contains(text, lines[499]) || len(text) > 2600 {
		t.Errorf("the model got more than the preview (%d chars)", len(text))
	}
	// The preview ends at a line boundary.
	preview := text[strings.Index(text, "Preview (first 2KB):\n")+len("Preview (first 2KB):\n") : strings.Index(text, "\n...\n</persisted-output>")]
	if !strings.HasSuffix(preview, "of the result") || len(preview) > 2000 {
		t.Errorf("preview is not whole lines within 2000 chars: %d chars ending %q", len(preview), preview[len(preview)-20:])
	}

	// Within the threshold: inline.
	wantOK(t, call(e, bg, "Big", `{"n":3}`), "line 00001 of the result\nline 00002 of the result\nline 00003 of the result")
}

func TestDefaultThresholdIs50000(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	r := call(e, bg, "Sized", `{"n":50000}`)
	if r.PersistedPath != "" || len(r.Block.Content.String()) != 50000 {
		t.Errorf("50000 chars: persisted %q, inline %d chars", r.PersistedPath, len(r.Block.Content.String()))
	}
	r = call(e, bg, "Sized", `{"n":50001}`)
	if r.PersistedPath == "" || !strings.HasPrefix(r.Block.Content.String(), "<persisted-output>") {
		t.Errorf("50001 chars were not persisted")
	}
}

func TestInfiniteThresholdNeverPersists(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	r := call(e, bg, "Inf", `{}`)
	if r.PersistedPath != "" || r.Block.Content.String() != strings.Repeat("z", 60000) {
		t.Errorf("MaxResultSizeChars = +Inf: persisted %q", r.PersistedPath)
	}
}

// TestGoCallErrorIsTheMessageAlone: the text of a call's or mapResult's error is what
// the model is told, unwrapped; the error itself goes to the host in Result.Err
// (TestCallErrorPositionGoesToTheHost checks the positions of Lua errors).
func TestGoCallErrorIsTheMessageAlone(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	r := call(e, bg, "GoFail", `{}`)
	wantError(t, r, StageCall, "go failed")
	if r.Err == nil || r.Err.Error() != "go failed" {
		t.Errorf("Result.Err = %v, want the tool's error", r.Err)
	}
	r = call(e, bg, "MapFail", `{}`)
	wantError(t, r, StageResult, "no map for data")
	if r.Err == nil || r.Err.Error() != "no map for data" || r.Data != "data" {
		t.Errorf("mapResult error: Err %v, Data %#v", r.Err, r.Data)
	}
}

func TestLongErrorTextIsTruncatedInTheMiddle(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	for _, tt := range []struct{ tool, input, head, tail string }{
		{"GoFail", `{"long":true}`, "aaaa", "bbbb"},
		{"GoFail", `{"n":25000}`, "eeee", "eeee"},
	} {
		r := call(e, bg, tt.tool, tt.input)
		text := r.Block.Content.String()
		if !r.Block.IsError {
			t.Errorf("%s: not an error", tt.tool)
		}
		if len(text) > 10100 || !strings.Contains(text, "characters truncated] ...") {
			t.Errorf("%s: %d chars, want about 10000 with a truncation marker", tt.tool, len(text))
		}
		if !strings.HasSuffix(text, strings.Repeat(tt.tail[:1], 4900)) || !strings.Contains(text[:5000], strings.Repeat(tt.head[:1], 4900)) {
			t.Errorf("%s: the start and end of the text must both be kept", tt.tool)
		}
	}
	// 10000 characters exactly are kept whole.
	r := call(e, bg, "GoFail", `{"n":10000}`)
	if r.Block.Content.String() != strings.Repeat("e", 10000) {
		t.Errorf("a 10000-char error was changed (%d chars)", len(r.Block.Content.String()))
	}
}

// TestEveryFailureIsOneErrorResult runs every kind of failure and checks the shape of
// the one result it gives.
func TestEveryFailureIsOneErrorResult(t *testing.T) {
	e, _ := pipelineEngine(t, Options{Timeout: 200 * time.Millisecond})
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	tests := []struct {
		name, tool, input string
		ctx               context.Context
		stage             Stage
	}{
		{"unknown tool", "Nope", `{}`, bg, StageLookup},
		{"cancelled", "Echo", `{}`, cancelled, StageAbort},
		{"not JSON", "Echo", `{`, bg, StageInput},
		{"not an object", "Echo", `"str"`, bg, StageInput},
		{"schema", "Echo", `{"n":"x"}`, bg, StageInput},
		{"validateInput", "Guard", `{"path":"x"}`, bg, StageValidate},
		{"tool deny", "Guard", `{"path":"/etc"}`, bg, StagePermission},
		{"ask without callback", "Guard", `{"path":"/a"}`, bg, StagePermission},
		{"Go error", "GoFail", `{}`, bg, StageCall},
		{"timeout", "GoSlow", `{}`, bg, StageCall},
		{"mapResult error", "MapFail", `{}`, bg, StageResult},
	}
	for _, tt := range tests {
		id := "toolu_" + strings.ReplaceAll(tt.name, " ", "_")
		r := e.Call(tt.ctx, ToolUse{ID: id, Name: tt.tool, Input: []byte(tt.input)})
		if r == nil {
			t.Errorf("%s: no result", tt.name)
			continue
		}
		b := r.Block
		if !b.IsError || b.Type != "tool_result" || b.ToolUseID != id || strings.TrimSpace(b.Content.String()) == "" || r.Stage != tt.stage {
			t.Errorf("%s: block %+v at stage %s, want one is_error tool_result for %s at %s", tt.name, b, r.Stage, id, tt.stage)
		}
		if len(b.Content) != 1 || b.Content[0].Type != "text" {
			t.Errorf("%s: an error result must be one text block: %+v", tt.name, b.Content)
		}
		if r.PersistedPath != "" || (r.Data != nil && tt.stage != StageResult) {
			t.Errorf("%s: a failed call has data or a persisted file", tt.name)
		}
	}
}

// TestGoToolReturningNilResult exposes a bug: a Go tool whose Call returns (nil, nil)
// makes the pipeline dereference a nil *ToolResult and panic, so the host dies and
// the tool_use gets no tool_result.
func TestGoToolReturningNilResult(t *testing.T) {
	def := ToolDef{
		Name:        "GoNil",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "nil", nil },
		InputSchema: map[string]any{"type": "object"},
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call:        func(context.Context, map[string]any, *CallContext) (*ToolResult, error) { return nil, nil },
	}
	e, _ := pipelineEngine(t, Options{Tools: []ToolDef{def}})
	r := callRecovering(t, e, "GoNil")
	if r != nil && r.Block.Content.String() != "(GoNil completed with no output)" {
		t.Errorf("result %q", r.Block.Content.String())
	}
}

// TestGoToolPanicBecomesErrorResult exposes a missing recovery: a Go tool that panics
// takes the host down instead of giving its tool_use an is_error result.
func TestGoToolPanicBecomesErrorResult(t *testing.T) {
	def := ToolDef{
		Name:        "GoPanic",
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "panics", nil },
		InputSchema: map[string]any{"type": "object"},
		IsReadOnly:  func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			var m map[string]int
			m["x"] = 1
			return nil, nil
		},
	}
	e, _ := pipelineEngine(t, Options{Tools: []ToolDef{def}})
	r := callRecovering(t, e, "GoPanic")
	if r != nil && (!r.Block.IsError || r.Stage != StageCall) {
		t.Errorf("result %+v, want an is_error result at the call stage", r.Block)
	}
}

// callRecovering calls tool and turns a panic of Engine.Call into a test failure.
func callRecovering(t *testing.T, e *Engine, tool string) (r *Result) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("Engine.Call panicked: %v", p)
			r = nil
		}
	}()
	return call(e, bg, tool, `{}`)
}

// TestGoProgressAndLog: what a tool logs is in Result.Log, in order, and its progress
// reaches OnProgress with the call's id and tool (TestProgressAndLog does it from Lua).
func TestGoProgressAndLog(t *testing.T) {
	var mu sync.Mutex
	var events []ProgressEvent
	e, _ := pipelineEngine(t, Options{OnProgress: func(ev ProgressEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	r := e.Call(bg, ToolUse{ID: "toolu_chat", Name: "Chatty", Input: []byte(`{}`)})
	wantOK(t, r, "ok")
	if want := []string{"first line", "second line"}; !reflect.DeepEqual(r.Log, want) {
		t.Errorf("Result.Log = %q, want %q", r.Log, want)
	}
	want := []ProgressEvent{
		{ToolUseID: "toolu_chat", Tool: "Chatty", Data: map[string]any{"pct": 50.0}},
		{ToolUseID: "toolu_chat", Tool: "Chatty", Data: "done"},
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(events, want) {
		t.Errorf("progress events = %+v, want %+v", events, want)
	}
}

// TestGoStateIsSharedAcrossCalls: every call sees the session's State
// (TestStateIsSharedAcrossCalls does it from Lua).
func TestGoStateIsSharedAcrossCalls(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	state := e.State(bg)
	state.Set("count", 10.0)
	for _, want := range []string{"11", "12", "13"} {
		wantOK(t, call(e, bg, "Counter", `{}`), want)
	}
	if v, _, _ := state.Get("history"); !reflect.DeepEqual(v, map[string]any{"last": 13.0, "list": []any{1.0, 2.0}}) {
		t.Errorf("state history = %#v", v)
	}
	// Concurrent calls share it safely (run with -race).
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if r := call(e, bg, "Counter", `{}`); r.Block.IsError {
				t.Errorf("concurrent call: %q", r.Block.Content.String())
			}
		})
	}
	wg.Wait()
}

// TestCallContext: a call's CallContext holds its tool_use id, the working
// directory, roots and mode, the snapshot's tool names and the deadline
// (TestLuaContext checks ctx in Lua).
func TestCallContext(t *testing.T) {
	var got *CallContext
	spy := readOnlyTool("Spy", objectSchema(nil), func(_ map[string]any, cc *CallContext) (*ToolResult, error) {
		got = cc
		return data("seen")
	})
	cwd := t.TempDir()
	e, _ := pipelineEngine(t, Options{Cwd: cwd, Roots: []string{cwd, "/other"}, Mode: rules.ModeAcceptEdits, Tools: []ToolDef{spy}})
	before := time.Now()
	wantOK(t, e.Call(bg, ToolUse{ID: "toolu_ctx", Name: "Spy", Input: []byte(`{}`)}), "seen")
	if got.ToolUseID != "toolu_ctx" || got.Cwd != cwd || got.Mode != rules.ModeAcceptEdits ||
		!reflect.DeepEqual(got.Roots, []string{cwd, "/other"}) || !reflect.DeepEqual(got.Tools, e.Registry().Names()) {
		t.Errorf("CallContext: id %q, cwd %q, mode %q, roots %q, tools %q", got.ToolUseID, got.Cwd, got.Mode, got.Roots, got.Tools)
	}
	if !got.Deadline.After(before) || got.State == nil || got.Files == nil {
		t.Errorf("deadline %v (the call started after %v), state %p, files %v", got.Deadline, before, got.State, got.Files)
	}
	if got.Registry() != e.Registry() || got.Writable() {
		t.Error("the call's registry is not the snapshot, or a read-only tool's call may write")
	}
}

func TestNewMessagesAndMapResultID(t *testing.T) {
	e, _ := pipelineEngine(t, Options{})
	r := e.Call(bg, ToolUse{ID: "toolu_msg", Name: "Messages", Input: []byte(`{}`)})
	wantOK(t, r, "n=1 id=toolu_msg")
	if !reflect.DeepEqual(r.NewMessages, []any{map[string]any{"type": "text", "text": "extra"}}) {
		t.Errorf("NewMessages = %#v", r.NewMessages)
	}
	if !reflect.DeepEqual(r.Data, map[string]any{"n": 1.0}) {
		t.Errorf("Data = %#v", r.Data)
	}
}

// TestAddTools: Go tools added to a running engine are served as those of
// Options.Tools (the subscribers hear of them); a name a Go tool has, or a definition
// Build refuses, is an error and adds none of the batch.
func TestAddTools(t *testing.T) {
	e := newTestEngine(t, Options{Tools: []ToolDef{readOnlyTool("First", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("first") })}})
	var events []string
	e.Subscribe(func(ev Event) { events = append(events, ev.String()) })
	second := readOnlyTool("Second", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("second") })
	if err := e.AddTools(second); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(e, context.Background(), "Second", `{}`), "second")
	if want := []string{"added: Second (go:Second)"}; !slices.Equal(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
	third := readOnlyTool("Third", objectSchema(nil), func(map[string]any, *CallContext) (*ToolResult, error) { return data("third") })
	if err := e.AddTools(third, second); err == nil || err.Error() != "tool Second: two Go tools have this name" {
		t.Errorf("a name taken: %v", err)
	}
	if err := e.AddTools(ToolDef{Name: "Bad"}); err == nil || !strings.HasPrefix(err.Error(), "tool Bad: ") {
		t.Errorf("a definition Build refuses: %v", err)
	}
	if got := e.Registry().Names(); !slices.Equal(got, []string{"First", "Second"}) {
		t.Errorf("tools %v, want First and Second: a failed AddTools adds none", got)
	}
}

// TestCoerceInputOnlyWhenRefused: a tool's coerceInput is asked only about an input
// its schema refuses, with the input as sent (no default filled in), and what it
// mends is validated again; a valid input costs no call into it.
func TestCoerceInputOnlyWhenRefused(t *testing.T) {
	var asked []map[string]any
	mend := ToolDef{
		Name:   "Mend",
		Prompt: func(context.Context, PromptOptions) (string, error) { return "mend", nil },
		InputSchema: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"id"},
			"properties": map[string]any{"id": map[string]any{"type": "integer"}, "mode": map[string]any{"type": "string", "default": "plain"}}},
		CoerceInput: func(_ context.Context, in map[string]any) (map[string]any, string, error) {
			asked = append(asked, maps.Clone(in))
			if old, ok := in["old"]; ok {
				return map[string]any{"id": old}, "renamed old", nil
			}
			return nil, "", nil
		},
		IsReadOnly: func(context.Context, map[string]any) (bool, error) { return true, nil },
		Call: func(_ context.Context, in map[string]any, _ *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: fmt.Sprintf("id %v %v", in["id"], in["mode"])}, nil
		},
	}
	e, _ := pipelineEngine(t, Options{Tools: []ToolDef{mend}})
	if r := call(e, bg, "Mend", `{"id":1}`); r.Block.IsError || r.Block.Content.String() != "id 1 plain" || len(asked) != 0 {
		t.Fatalf("valid input: %q, coerceInput asked %v", r.Block.Content.String(), asked)
	}
	if r := call(e, bg, "Mend", `{"old":2}`); r.Block.IsError || r.Block.Content.String() != "id 2 plain\n\nrenamed old" {
		t.Errorf("mended input: %q", r.Block.Content.String())
	}
	if r := call(e, bg, "Mend", `{"id":"x"}`); !r.Block.IsError || r.Stage != StageInput {
		t.Errorf("input neither valid nor mended: %q at %s", r.Block.Content.String(), r.Stage)
	}
	want := []map[string]any{{"old": 2.0}, {"id": "x"}}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("coerceInput was asked about %v, want %v (the refused inputs as sent)", asked, want)
	}
}
