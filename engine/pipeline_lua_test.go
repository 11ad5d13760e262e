package engine_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/session"
)

// The behaviour of Lua tools through the pipeline: what a Lua tool sees of its input
// and ctx, and what its results, errors and members become. pipeline_test.go checks
// the stages themselves with Go-native tools.

// luaPipelineTools are the Lua tools of the pipeline tests, by file name.
var luaPipelineTools = map[string]string{
	"coerce.lua": `return {
  name = "Coerce",
  prompt = "shows the types of its input",
  isReadOnly = true,
  inputSchema = {
    type = "object",
    properties = {
      n = {type = "integer"},
      x = {type = "number"},
      b = {type = "boolean"},
      s = {type = "string"},
      d = {type = "string", default = "dflt"},
      k = {type = "integer", default = 7},
      obj = {type = "object", properties = {mode = {type = "string", default = "fast"}, level = {type = "integer"}}},
    },
  },
  call = function(input)
    local function show(v) return type(v) .. ":" .. tostring(v) end
    local obj = input.obj or {}
    return table.concat({show(input.n), show(input.x), show(input.b), show(input.s), show(input.d), show(input.k),
      show(obj.mode), show(obj.level)}, " ")
  end,
}
`,
	"mend.lua": `return {
  name = "Mend",
  prompt = "takes an old name for its parameter",
  isReadOnly = true,
  inputSchema = {
    type = "object",
    properties = {id = {type = "integer"}},
    required = {"id"},
    additionalProperties = false,
  },
  coerceInput = function(input)
    if input.boom then error("mending failed") end
    if input.old ~= nil and input.id == nil then
      input.id, input.old = input.old, nil
      return input, input.id == "7" and "Note: Mend's parameter is named id." or nil
    end
  end,
  validationErrorSteer = function(input)
    if input.prompt ~= nil then return "Mend takes an id, not a prompt." end
    return ""
  end,
  call = function(input) return "id " .. tostring(input.id) end,
}
`,
	"guard.lua": `return {
  name = "Guard",
  prompt = "writes somewhere",
  inputSchema = {type = "object", properties = {path = {type = "string"}}, required = {"path"}},
  description = function(input) return "Write to " .. input.path end,
  validateInput = function(input, ctx)
    if input.path:sub(1, 1) ~= "/" then
      return {result = false, message = "path must be absolute", errorCode = 1}
    end
    return true
  end,
  checkPermissions = function(input, ctx)
    if input.path == "/etc" then return {behavior = "deny", message = "no writing to /etc"} end
    if input.path == "/upd" then return {behavior = "allow", updatedInput = {path = "/upd/x"}} end
    if input.path == "/ok" then return {behavior = "allow"} end
    return {behavior = "ask", message = "Guard wants to write " .. input.path}
  end,
  call = function(input) return "wrote " .. input.path end,
}
`,
	"spin.lua": `return {
  name = "Spin",
  prompt = "spins when asked",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {spin = {type = "boolean"}}},
  call = function(input, ctx)
    if input.spin then while true do end end
    return "fast"
  end,
}
`,
	"empty.lua": `local json = require("json")
return {
  name = "Empty",
  prompt = "returns nothing much",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {kind = {type = "string"}}},
  call = function(input)
    local k = input.kind
    if k == "string" then return "" end
    if k == "nil" then return nil end
    if k == "space" then return " \n\t " end
    if k == "data-nil" then return {data = nil} end
    if k == "null" then return {data = json.null} end
    if k == "object" then return {data = {}} end
    if k == "array" then return {data = json.array()} end
    if k == "zero" then return 0 end
    if k == "false" then return false end
    return "?"
  end,
}
`,
	"inf.lua": `return {
  name = "Inf",
  prompt = "never persisted (1/0)",
  isReadOnly = true,
  maxResultSizeChars = 1/0,
  inputSchema = {type = "object"},
  call = function() return string.rep("z", 60000) end,
}
`,
	"huge.lua": `return {
  name = "Huge",
  prompt = "never persisted (math.huge)",
  isReadOnly = true,
  maxResultSizeChars = math.huge,
  inputSchema = {type = "object"},
  call = function() return string.rep("h", 60000) end,
}
`,
	"fail.lua": `return {
  name = "Fail",
  prompt = "fails",
  isReadOnly = true,
  inputSchema = {type = "object", properties = {long = {type = "boolean"}}},
  call = function(input)
    if input.long then error(string.rep("a", 6000) .. string.rep("b", 6000)) end
    error("kaput")
  end,
}
`,
	"chatty.lua": `return {
  name = "Chatty",
  prompt = "talks",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function(input, ctx)
    print("hello from print", 42)
    ctx:progress({pct = 50})
    ctx:log("from ctx:log")
    ctx:progress("done")
    return "ok"
  end,
}
`,
	"counter.lua": `return {
  name = "Counter",
  prompt = "counts calls in the session state",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function(input, ctx)
    local n = ctx.state:get("count") or 0
    ctx.state:set("count", n + 1)
    ctx.state:set("history", {last = n + 1, list = {1, 2}})
    return tostring(n + 1)
  end,
}
`,
	"ctx.lua": `local json = require("json")
return {
  name = "Ctx",
  prompt = "shows its context",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function(input, ctx)
    return json.encode({
      toolUseId = ctx.toolUseId, cwd = ctx.cwd, mode = ctx.mode, roots = ctx.roots, tools = ctx.tools,
      hasDeadline = type(ctx.deadline) == "number" and ctx.deadline > os.time() - 5, aborted = ctx:aborted(),
    })
  end,
}
`,
	"mapfail.lua": `return {
  name = "MapFail",
  prompt = "cannot map",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function() return "data" end,
  mapResult = function(data) error("no map for " .. data) end,
}
`,
	"messages.lua": `return {
  name = "Messages",
  prompt = "adds messages",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function() return {data = {n = 1}, newMessages = {{type = "text", text = "extra"}}} end,
  mapResult = function(data, id) return {{type = "text", text = "n=" .. data.n .. " id=" .. id}} end,
}
`,
}

// luaPipelineEngine builds an engine with the Lua tools above.
func luaPipelineEngine(t *testing.T, opts engine.Options) *engine.Engine {
	t.Helper()
	return luaEngine(t, opts, luaPipelineTools)
}

// TestLuaCoercionAndDefaultsBeforeCall: a Lua tool gets the input coerced and with
// its defaults, numbers as numbers and booleans as booleans, nested objects too.
func TestLuaCoercionAndDefaultsBeforeCall(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	r := engine.CallTool(e, bg, "Coerce", `{"n":"12","x":"1.5","b":"true","s":"12","obj":{"level":"3"}}`)
	engine.WantOK(t, r, "number:12 number:1.5 boolean:true string:12 string:dflt number:7 string:fast number:3")
	if !reflect.DeepEqual(r.Input, map[string]any{"n": 12.0, "x": 1.5, "b": true, "s": "12", "d": "dflt", "k": 7.0,
		"obj": map[string]any{"mode": "fast", "level": 3.0}}) {
		t.Errorf("Result.Input = %#v", r.Input)
	}
	engine.WantOK(t, engine.CallTool(e, bg, "Coerce", `{"b":"false","d":"given","k":1}`), "nil:nil nil:nil boolean:false nil:nil string:given number:1 nil:nil nil:nil")
	for _, bad := range []string{`{"n":"1.5"}`, `{"n":"twelve"}`, `{"b":"yes"}`, `{"b":"1"}`} {
		if r := engine.CallTool(e, bg, "Coerce", bad); !r.Block.IsError || r.Stage != engine.StageInput {
			t.Errorf("%s: %q, want an input validation error", bad, r.Block.Content.String())
		}
	}
}

// TestLuaCoerceInputAndSteer: coerceInput's table is what the schema validates (and
// coerces) instead of the input, and its note ends the result; nil, or a coerceInput
// that fails, leaves the input as given; validationErrorSteer's sentence comes before
// the schema's problems.
func TestLuaCoerceInputAndSteer(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	r := engine.CallTool(e, bg, "Mend", `{"old":"7"}`)
	engine.WantOK(t, r, "id 7\n\nNote: Mend's parameter is named id.")
	engine.WantOK(t, engine.CallTool(e, bg, "Mend", `{"old":8}`), "id 8")
	engine.WantError(t, engine.CallTool(e, bg, "Mend", `{"old":7,"x":1}`), engine.StageInput,
		"<tool_use_error>InputValidationError: Mend failed due to the following issue:\nAn unexpected parameter `x` was provided</tool_use_error>")
	if !reflect.DeepEqual(r.Input, map[string]any{"id": 7.0}) {
		t.Errorf("Result.Input = %#v", r.Input)
	}
	engine.WantOK(t, engine.CallTool(e, bg, "Mend", `{"id":3}`), "id 3")
	for input, want := range map[string]string{
		`{"old":1,"id":2}`:     "InputValidationError: Mend failed due to the following issue:\nAn unexpected parameter `old` was provided",
		`{"boom":true,"id":1}`: "InputValidationError: Mend failed due to the following issue:\nAn unexpected parameter `boom` was provided",
		`{"prompt":"x"}`: "InputValidationError: Mend takes an id, not a prompt.\n\nMend failed due to the following issues:\n" +
			"The required parameter `id` is missing\nAn unexpected parameter `prompt` was provided",
	} {
		r := engine.CallTool(e, bg, "Mend", input)
		if got := r.Block.Content.String(); !r.Block.IsError || r.Stage != engine.StageInput || got != "<tool_use_error>"+want+"</tool_use_error>" {
			t.Errorf("%s: %q at %s, want %q", input, got, r.Stage, want)
		}
	}
}

// TestLuaGuardThroughThePipeline: what a Lua tool's description, validateInput and
// checkPermissions return (a table with result and message, a behavior with a message
// or an updatedInput) is what the pipeline acts on.
func TestLuaGuardThroughThePipeline(t *testing.T) {
	var asked []engine.PermissionRequest
	e := luaPipelineEngine(t, engine.Options{CanUseTool: func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		asked = append(asked, req)
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}})
	engine.WantError(t, engine.CallTool(e, bg, "Guard", `{"path":"relative"}`), engine.StageValidate, "<tool_use_error>path must be absolute</tool_use_error>")
	engine.WantError(t, engine.CallTool(e, bg, "Guard", `{"path":"/etc"}`), engine.StagePermission, "no writing to /etc")
	r := engine.CallTool(e, bg, "Guard", `{"path":"/upd"}`)
	engine.WantOK(t, r, "wrote /upd/x")
	if r.Input["path"] != "/upd/x" {
		t.Errorf("Result.Input = %v, want the updated input", r.Input)
	}
	engine.WantOK(t, engine.CallTool(e, bg, "Guard", `{"path":"/ok"}`), "wrote /ok")
	if len(asked) != 0 {
		t.Errorf("CanUseTool was asked about calls the tool decided: %+v", asked)
	}
	engine.WantOK(t, engine.CallTool(e, bg, "Guard", `{"path":"/tmp/a"}`), "wrote /tmp/a")
	if len(asked) != 1 || asked[0].Description != "Write to /tmp/a" || asked[0].Message != "Guard wants to write /tmp/a" {
		t.Errorf("asks = %+v, want one with the tool's description and message", asked)
	}
}

// TestCallTimeoutAndTheEngineKeepsServing: Lua code that never yields is stopped at
// the deadline, and the tool's states serve the next calls.
func TestCallTimeoutAndTheEngineKeepsServing(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{Timeout: 300 * time.Millisecond})
	start := time.Now()
	engine.WantError(t, engine.CallTool(e, bg, "Spin", `{"spin":true}`), engine.StageCall, "Spin timed out after 300ms and was stopped.")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	engine.WantOK(t, engine.CallTool(e, bg, "Spin", `{"spin":false}`), "fast")
	engine.WantOK(t, engine.CallTool(e, bg, "Coerce", `{}`), "nil:nil nil:nil nil:nil nil:nil string:dflt number:7 nil:nil nil:nil")
	// Again, on whatever state the pool hands out now.
	engine.WantError(t, engine.CallTool(e, bg, "Spin", `{"spin":true}`), engine.StageCall, "Spin timed out after 300ms and was stopped.")
	engine.WantOK(t, engine.CallTool(e, bg, "Spin", `{}`), "fast")
}

// TestLuaCancelWhileRunningIsAnInterrupt: cancelling the call stops Lua code that
// never yields, with the interrupt result, and the tool serves the next call.
func TestLuaCancelWhileRunningIsAnInterrupt(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	ctx, cancel := context.WithCancel(bg)
	time.AfterFunc(100*time.Millisecond, cancel)
	engine.WantError(t, engine.CallTool(e, ctx, "Spin", `{"spin":true}`), engine.StageCall, "[Request interrupted by user for tool use]")
	engine.WantOK(t, engine.CallTool(e, bg, "Spin", `{}`), "fast")
}

// TestLuaEmptyResult: what a Lua call returns that is empty (nothing, "", blanks, a
// result table without data, json.null) is the no-output text; an empty object or
// array, zero and false are not empty.
func TestLuaEmptyResult(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	for _, kind := range []string{"string", "nil", "space", "data-nil", "null"} {
		engine.WantOK(t, engine.CallTool(e, bg, "Empty", `{"kind":"`+kind+`"}`), "(Empty completed with no output)")
	}
	for kind, want := range map[string]string{"object": "{}", "array": "[]", "zero": "0", "false": "false"} {
		engine.WantOK(t, engine.CallTool(e, bg, "Empty", `{"kind":"`+kind+`"}`), want)
	}
}

// TestMathHugeNeverPersists: a Lua tool's maxResultSizeChars of math.huge or 1/0 is
// the infinite threshold, never persisted (math.huge once was not).
func TestMathHugeNeverPersists(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	for tool, text := range map[string]string{"Huge": strings.Repeat("h", 60000), "Inf": strings.Repeat("z", 60000)} {
		r := engine.CallTool(e, bg, tool, `{}`)
		if r.PersistedPath != "" || r.Block.Content.String() != text {
			t.Errorf("%s: the result was persisted to %q", tool, r.PersistedPath)
		}
	}
}

// TestCallErrorPositionGoesToTheHost: the model is told what went wrong; where in
// the tool file it went wrong is for the tool's author, in Result.Err.
func TestCallErrorPositionGoesToTheHost(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	r := engine.CallTool(e, bg, "Fail", `{}`)
	if !r.Block.IsError || r.Stage != engine.StageCall || r.Block.Content.String() != "kaput" {
		t.Errorf("result %q at %s, want the message alone", r.Block.Content.String(), r.Stage)
	}
	if r.Err == nil || !strings.HasSuffix(r.Err.Error(), "fail.lua:8: kaput") {
		t.Errorf("Result.Err = %v, want the position fail.lua:8", r.Err)
	}
	if strings.Contains(r.Block.Content.String(), "<tool_use_error>") || len(r.Block.Content) != 1 || r.Block.Type != "tool_result" {
		t.Errorf("a call error must be one plain text block: %+v", r.Block)
	}
	r = engine.CallTool(e, bg, "MapFail", `{}`)
	if !r.Block.IsError || r.Stage != engine.StageResult || r.Block.Content.String() != "no map for data" || !strings.Contains(r.Err.Error(), "mapfail.lua:7: no map for data") {
		t.Errorf("mapResult error: %q at %s (%v)", r.Block.Content.String(), r.Stage, r.Err)
	}
}

// captureStdout runs fn with os.Stdout redirected to a pipe and returns what was
// written to it.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = pw
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		done <- string(b)
	}()
	func() {
		defer func() { os.Stdout = saved }()
		fn()
	}()
	pw.Close()
	out := <-done
	pr.Close()
	return out
}

// TestProgressAndLog: print and ctx:log go to the call's log, never to stdout, and
// ctx:progress reaches OnProgress.
func TestProgressAndLog(t *testing.T) {
	var mu sync.Mutex
	var events []engine.ProgressEvent
	e := luaPipelineEngine(t, engine.Options{OnProgress: func(ev engine.ProgressEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	var r *engine.Result
	out := captureStdout(t, func() {
		r = e.Call(bg, engine.ToolUse{ID: "toolu_chat", Name: "Chatty", Input: []byte(`{}`)})
	})
	engine.WantOK(t, r, "ok")
	if out != "" {
		t.Errorf("the tool wrote %q to stdout", out)
	}
	if want := []string{"hello from print\t42", "from ctx:log"}; !reflect.DeepEqual(r.Log, want) {
		t.Errorf("Result.Log = %q, want %q", r.Log, want)
	}
	want := []engine.ProgressEvent{
		{ToolUseID: "toolu_chat", Tool: "Chatty", Data: map[string]any{"pct": 50.0}},
		{ToolUseID: "toolu_chat", Tool: "Chatty", Data: "done"},
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(events, want) {
		t.Errorf("progress events = %+v, want %+v", events, want)
	}
}

// TestStateIsSharedAcrossCalls: ctx.state is the session's State, JSON values in and
// out.
func TestStateIsSharedAcrossCalls(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	state := e.State(bg)
	state.Set("count", 10.0)
	for _, want := range []string{"11", "12", "13"} {
		engine.WantOK(t, engine.CallTool(e, bg, "Counter", `{}`), want)
	}
	if v, _, _ := state.Get("count"); v != 13.0 {
		t.Errorf("state count = %v, want 13", v)
	}
	if v, _, _ := state.Get("history"); !reflect.DeepEqual(v, map[string]any{"last": 13.0, "list": []any{1.0, 2.0}}) {
		t.Errorf("state history = %#v", v)
	}
	// Concurrent calls share it safely (run with -race).
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := engine.CallTool(e, bg, "Counter", `{}`); r.Block.IsError {
				t.Errorf("concurrent call: %q", r.Block.Content.String())
			}
		}()
	}
	wg.Wait()
}

// TestLuaContext: the fields and methods of ctx in a Lua call.
func TestLuaContext(t *testing.T) {
	cwd := t.TempDir()
	e := luaPipelineEngine(t, engine.Options{Cwd: cwd, Roots: []string{cwd, "/other"}, Mode: rules.ModeAcceptEdits})
	r := e.Call(bg, engine.ToolUse{ID: "toolu_ctx", Name: "Ctx", Input: []byte(`{}`)})
	if r.Block.IsError {
		t.Fatal(r.Block.Content.String())
	}
	text := r.Block.Content.String()
	for _, want := range []string{
		`"toolUseId":"toolu_ctx"`, `"cwd":"` + cwd + `"`, `"mode":"acceptEdits"`, `"roots":["` + cwd + `","/other"]`,
		`"hasDeadline":true`, `"aborted":false`, `"tools":["Chatty","Coerce","Counter","Ctx",`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ctx lacks %s: %s", want, text)
		}
	}
}

// TestConcurrentCallsOnOneLuaTool: calls of one Lua tool side by side each get their
// own state and their own input.
func TestConcurrentCallsOnOneLuaTool(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := engine.CallTool(e, bg, "Coerce", fmt.Sprintf(`{"n":%d}`, i))
			if want := fmt.Sprintf("number:%d ", i); r.Block.IsError || !strings.HasPrefix(r.Block.Content.String(), want) {
				t.Errorf("call %d: %q", i, r.Block.Content.String())
			}
		}(i)
	}
	wg.Wait()
}

// TestLuaNewMessagesAndMapResultID: a Lua result table's newMessages follow the
// result, and mapResult gets the data and the tool_use id.
func TestLuaNewMessagesAndMapResultID(t *testing.T) {
	e := luaPipelineEngine(t, engine.Options{})
	r := e.Call(bg, engine.ToolUse{ID: "toolu_msg", Name: "Messages", Input: []byte(`{}`)})
	engine.WantOK(t, r, "n=1 id=toolu_msg")
	if !reflect.DeepEqual(r.NewMessages, []any{map[string]any{"type": "text", "text": "extra"}}) {
		t.Errorf("NewMessages = %#v", r.NewMessages)
	}
	if !reflect.DeepEqual(r.Data, map[string]any{"n": 1.0}) {
		t.Errorf("Data = %#v", r.Data)
	}
}

// interloper is a session store on which another writer changes a key between each
// of the first few reads and the compare-and-put that follows, as another instance
// would.
type interloper struct {
	session.Store
	key    string
	writes int
}

func (s *interloper) CompareAndPut(ctx context.Context, sess string, b session.Bucket, key string, old, value []byte) (bool, error) {
	if key == s.key && s.writes > 0 {
		s.writes--
		s.Store.Put(ctx, sess, b, key, []byte("100"))
	}
	return s.Store.CompareAndPut(ctx, sess, b, key, old, value)
}

// TestStateUpdate: ctx.state:update is a read-modify-write that loses no concurrent
// call's write, runs its function again on the value another writer stored in
// between, and stores nothing when the function fails or returns no JSON value.
func TestStateUpdate(t *testing.T) {
	files := map[string]string{"bump.lua": `return {
  name = "Bump",
  prompt = "adds to n",
  isReadOnly = true,
  isConcurrencySafe = true,
  inputSchema = {type = "object", properties = {how = {type = "string"}}},
  call = function(input, ctx)
    local v = ctx.state:update("n", function(old)
      if input.how == "fail" then error("no bump") end
      if input.how == "function" then return print end
      return (old or 0) + 1
    end)
    return tostring(v)
  end,
}
`}
	e := luaEngine(t, engine.Options{}, files)
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			if r := engine.CallTool(e, bg, "Bump", `{}`); r.Block.IsError {
				t.Errorf("concurrent call: %q", r.Block.Content.String())
			}
		})
	}
	wg.Wait()
	if v, _, _ := e.State(bg).Get("n"); v != 40.0 {
		t.Errorf("after 40 concurrent updates n = %v", v)
	}
	r := engine.CallTool(e, bg, "Bump", `{"how":"fail"}`)
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "no bump") {
		t.Errorf("a failing function: %q", r.Block.Content.String())
	}
	r = engine.CallTool(e, bg, "Bump", `{"how":"function"}`)
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "ctx.state:update: the function returned a value that is not JSON") {
		t.Errorf("a function returning a function: %q", r.Block.Content.String())
	}
	if v, _, _ := e.State(bg).Get("n"); v != 40.0 {
		t.Errorf("failed updates changed n to %v", v)
	}

	e = luaEngine(t, engine.Options{Sessions: &interloper{Store: session.NewMemory(0), key: "n", writes: 2}}, files)
	engine.WantOK(t, engine.CallTool(e, bg, "Bump", `{}`), "101")
}
