package hostile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestFaults covers section 6.3 of the catalogue: F1-F29 (F20-F27 belong to hot
// reload, F29 to the concurrency suite; see the table in doc_test.go).
func TestFaults(t *testing.T) {
	runRows(t, faultRows())
}

func faultRows() []row {
	done := engine.StageDone
	denied := want{stage: engine.StagePermission, anyOf: []string{"not granted", "denied"}, not: []string{"LEAK"}}
	return []row{
		{"F1", []variant{
			{name: "nil-index", body: `local t = nil return t.x`, want: errAt(nilAccess...), check: luaPosition},
			{name: "nil-call", body: `local f = nil return f()`, want: errAt(nilAccess...), check: luaPosition},
			{name: "arith", body: `return {} + 1`, want: errAt("arith", "operation"), check: luaPosition},
			{name: "in-helper", body: `local function helper(x) return x.y.z end return helper({})`, want: errAt(nilAccess...), check: luaPosition},
		}},
		{"F2", []variant{
			{name: "table", body: `error({code = 42, msg = "boom"})`, want: errAt(`{"code":42,"msg":"boom"}`), check: deterministic},
			{name: "nested", body: `error({code = 1, detail = {b = 2, a = 1}, list = {3, 2, 1}})`, want: errAt(`{"code":1,"detail":{"a":1,"b":2},"list":[3,2,1]}`), check: deterministic},
			{name: "unconvertible", body: `error({f = print})`, want: want{stage: engine.StageCall, contains: []string{"error object"}, not: []string{"table: 0x", "0x"}}, check: deterministic},
			{name: "number", body: `error(42)`, want: errAt("42")},
		}},
		{"F3", []variant{
			{name: "nil", body: `error(nil)`, want: want{stage: engine.StageCall, contains: []string{"without a message"}, not: []string{"nil"}}},
			{name: "none", body: `error()`, want: want{stage: engine.StageCall, anyOf: []string{"without a message", "value expected"}, not: []string{"nil"}}},
			{name: "false", body: `error(false)`, want: want{stage: engine.StageCall, contains: []string{"without a message"}, not: []string{"false"}}},
			{name: "empty-string", body: `error("")`, want: want{stage: engine.StageCall}},
			{name: "return-nil-nil", body: `return nil, nil`, want: want{stage: done}},
		}},
		{"F4", []variant{
			{name: "tostring-loop", cfg: hostConfig{timeout: 2 * time.Second}, body: `error(setmetatable({}, {__tostring = function() while true do end end}))`,
				want: want{stage: engine.StageCall, contains: []string{"error object"}, not: []string{"timed out"}}},
			{name: "tostring-yield", cfg: hostConfig{timeout: 2 * time.Second}, body: `error(setmetatable({}, {__tostring = function() coroutine.yield() end}))`,
				want: want{stage: engine.StageCall, contains: []string{"error object"}, not: []string{"timed out"}}},
			{name: "index-loop", cfg: hostConfig{timeout: 2 * time.Second}, body: `error(setmetatable({a = 1}, {__index = function() while true do end end, __len = function() while true do end end}))`,
				want: want{stage: engine.StageCall, contains: []string{"error object"}, not: []string{"timed out"}}},
			{name: "thread", body: `error(coroutine.create(function() end))`, want: errAt("error object: (thread)")},
			{name: "function", body: `error(print)`, want: errAt("error object: (function)")},
			{name: "json-null", body: `error(require("json").null)`, want: errAt("error object")},
		}},
		{"F5", []variant{
			{name: "__index", body: `return setmetatable({}, {__index = function() error("index failed") end}).x`, want: errAt("index failed")},
			{name: "__newindex", body: `local t = setmetatable({}, {__newindex = function() error("newindex failed") end}) t.x = 1`, want: errAt("newindex failed")},
			{name: "__tostring", body: `return tostring(setmetatable({}, {__tostring = function() error("tostring failed") end}))`, want: errAt("tostring failed")},
			{name: "__eq", body: `local mt = {__eq = function() error("eq failed") end} return setmetatable({}, mt) == setmetatable({}, mt)`, want: errAt("eq failed")},
			{name: "__lt", body: `local mt = {__lt = function() error("lt failed") end} return setmetatable({}, mt) < setmetatable({}, mt)`, want: errAt("lt failed")},
			{name: "__call", body: `return setmetatable({}, {__call = function() error("call failed") end})()`, want: errAt("call failed")},
			{name: "__concat", body: `return setmetatable({}, {__concat = function() error("concat failed") end}) .. "x"`, want: errAt("concat failed")},
			{name: "print", body: `print(setmetatable({}, {__tostring = function() error("print failed") end})) return "printed"`, want: errAt("print failed")},
		}},
		{"F6", []variant{
			hostmodCheck("panic", `return require("hostmod").panic()`, errAt("panicked"), 0, hostPanicCause),
			// The script catches the panic: the call succeeds, but the state is not reused.
			hostmodCheck("caught", `local ok, err = pcall(require("hostmod").panic) return "caught:" .. tostring(ok)`, want{stage: done, contains: []string{"caught:false"}}, 1, nil),
			hostmodCheck("caught-twice", `pcall(require("hostmod").panic) local ok = pcall(require("hostmod").panic) return "caught:" .. tostring(ok)`, want{stage: done, contains: []string{"caught:false"}}, 1, nil),
		}},
		{"F8", []variant{
			{name: "yield-in-pcall", body: `
    local co = coroutine.create(function() pcall(function() coroutine.yield(1) end) return "finished" end)
    local r = {}
    for i = 1, 3 do local ok, v = coroutine.resume(co) r[#r + 1] = tostring(ok) .. ":" .. tostring(v) end
    return table.concat(r, " ")`, want: want{not: []string{".go:", "goroutine", "runtime error"}}, after: anyState},
			{name: "yield-in-xpcall", body: `
    local co = coroutine.wrap(function() xpcall(function() coroutine.yield(1) end, function(e) return e end) return "finished" end)
    co() return co()`, want: want{not: []string{".go:", "goroutine", "runtime error"}}, after: anyState},
			{name: "yield-in-metamethod", body: `
    local co = coroutine.wrap(function() local t = setmetatable({}, {__index = function() coroutine.yield(1) end}) return t.x end)
    co() return tostring(co())`, want: want{not: []string{".go:", "goroutine", "runtime error"}}, after: anyState},
		}},
		{"F9", []variant{
			{name: "top-level", body: `coroutine.yield(1) return "yielded"`, want: errAt("yield")},
			{name: "in-pcall", body: `local ok, e = pcall(coroutine.yield, 1) return tostring(ok) .. " " .. tostring(e)`, want: want{stage: done, contains: []string{"false", "yield"}}, after: anyState},
		}},
		{"F10", []variant{
			{name: "fs.read-table", body: `return require("fs").read({})`, want: errAt("bad argument #1 to 'fs.read'")},
			{name: "fs.read-none", body: `return require("fs").read()`, want: errAt("bad argument #1 to 'fs.read'")},
			{name: "fs.lines-option", body: `return require("fs").lines("data.txt", {bogus = 1})`, want: errAt("bad argument #2 to 'fs.lines'")},
			{name: "glob-number", body: `return require("glob").find(123)`, want: errAt("bad argument #1 to 'glob.find'")},
			{name: "grep-options", body: `return require("grep").files("x", "not a table")`, want: errAt("bad argument #2 to 'grep.files'")},
			{name: "json.encode", body: `return require("json").encode(print)`, want: errAt("json.encode")},
			{name: "ctx-dot", body: `ctx.log("x") return "logged"`, want: errAt("with a colon")},
			{name: "state-key", body: `return ctx.state:get({})`, want: errAt("bad argument")},
			hostmodCheck("luar-type", `return require("hostmod").add("x", 1)`, errAt("bad argument", "cannot use", "invalid"), 0, nil),
			hostmodCheck("luar-count", `return require("hostmod").add(1)`, errAt("bad argument", "invalid number", "arguments"), 0, nil),
			hostmodCheck("luar-table", `return require("hostmod").small({})`, errAt("bad argument", "cannot use", "invalid"), 0, nil),
		}},
		{"F11", []variant{
			hostmodCheck("int8-300", `return require("hostmod").small(300)`, errAt("does not fit in int8"), 0, nil),
			hostmodCheck("int8-minus-129", `return require("hostmod").small(-129)`, errAt("does not fit in int8"), 0, nil),
			hostmodCheck("int8-fraction", `return require("hostmod").small(2.5)`, errAt("does not fit in int8"), 0, nil),
			hostmodCheck("int8-nan", `return require("hostmod").small(0/0)`, errAt("does not fit in int8"), 0, nil),
			hostmodCheck("int64-1e20", `return require("hostmod").big(1e20)`, errAt("does not fit in int64"), 0, nil),
			hostmodCheck("int64-2^63", `return require("hostmod").big(2^63)`, errAt("does not fit in int64"), 0, nil),
			hostmodCheck("int64-inf", `return require("hostmod").big(math.huge)`, errAt("does not fit in int64"), 0, nil),
			hostmodCheck("int-overflow", `return require("hostmod").add(2^63, 1)`, errAt("does not fit in int"), 0, nil),
			hostmodCheck("int8-ok", `return require("hostmod").small(-128)`, want{stage: done, contains: []string{"-128"}}, 0, nil),
			{name: "fs.lines-offset-1e20", body: `return require("fs").lines("data.txt", {offset = 1e20})`, want: errAt("bad argument")},
			{name: "fs.lines-limit-nan", body: `return require("fs").lines("data.txt", {limit = 0/0})`, want: errAt("bad argument")},
			{name: "fs.read-maxbytes-inf", body: `return require("fs").read("data.txt", {maxBytes = math.huge})`, want: errAt("bad argument")},
			{name: "string.rep-nan", body: `return #("x"):rep(0/0)`, want: want{}, after: anyState},
			{name: "string.sub-huge", body: `return ("abc"):sub(-2^63, 2^63)`, want: want{}, after: anyState},
			{name: "string.char-300", body: `return string.char(300)`, want: errAt("bad argument", "out of range", "value")},
			{name: "math.floor-inf", body: `return math.floor(math.huge)`, want: errAt("NaN", "infinity")},
		}},
		{"F12", []variant{
			{name: "function", body: `return print`, want: errAt("function")},
			{name: "thread", body: `return coroutine.create(function() end)`, want: errAt("thread")},
			{name: "data-function", body: `return {data = print}`, want: errAt("function")},
			{name: "data-thread", body: `return {data = {co = coroutine.create(function() end)}}`, want: errAt("thread")},
			{name: "json-null", body: `return require("json").null`, want: errAt("userdata")},
			{name: "metatable", cfg: hostConfig{timeout: 2 * time.Second}, body: `return {data = setmetatable({a = 1}, {__index = function() while true do end end, __tostring = function() while true do end end, __pairs = function() while true do end end})}`,
				want: want{stage: done, contains: []string{`{"a":1}`}}},
			{name: "mixed-keys", body: `return {data = {1, 2, x = 3}}`, want: errAt("mixed", "key")},
			{name: "sparse", body: `return {data = {[1] = 1, [3] = 3}}`, want: errAt("sparse", "key")},
			{name: "unknown-key", body: `return {data = 1, extra = 2}`, want: errAt("extra")},
			{name: "nil-with-output-schema", extra: `outputSchema = { type = { "object", "string" }, required = { "x" } },`, body: `return nil`,
				want: want{stage: engine.StageResult, contains: []string{"does not match its outputSchema", "got null"}}, check: outputInvalid},
			{name: "wrong-data-with-output-schema", extra: `outputSchema = { type = { "object", "string" }, required = { "x" } },`, body: `return {data = {y = 1}}`,
				want: want{stage: engine.StageResult, contains: []string{"does not match its outputSchema", "missing property 'x'"}}, check: outputInvalid},
			{name: "mapResult-function", extra: `mapResult = function(data) if data == "alive:1" or data == "alive:2" then return data end return print end,`, body: `return "x"`,
				want: want{stage: engine.StageResult, contains: []string{"mapResult"}}},
			{name: "mapResult-blocks", extra: `mapResult = function(data) if data ~= "x" then return data end return {{type = "script", text = "x"}} end,`, body: `return "x"`,
				want: want{stage: engine.StageResult, contains: []string{"mapResult"}}},
		}},
		{"F13", []variant{
			{name: "nan", body: `return 0/0`, want: errAt("NaN")},
			{name: "inf", body: `return math.huge`, want: errAt("NaN", "infinity")},
			{name: "nested-minus-inf", body: `return {data = {x = {-math.huge}}}`, want: errAt("NaN", "infinity")},
			{name: "progress-nan", body: `ctx:progress({x = 0/0}) return "sent"`, want: errAt("NaN", "infinity")},
			{name: "state-inf", body: `ctx.state:set("k", math.huge) return "kept"`, want: errAt("NaN", "infinity")},
			{name: "invalid-utf8", body: `return "\255\254abc"`, want: want{}},
			{name: "invalid-utf8-value", body: `return {data = {k = "\255"}}`, want: want{}},
			{name: "invalid-utf8-key", body: `return {data = {["\255"] = 1}}`, want: want{}},
			{name: "invalid-utf8-error", body: `error("bad \255\254 bytes")`, want: errAt("bad")},
			{name: "invalid-utf8-error-table", body: `error({msg = "\255"})`, want: errAt("error object")},
		}},
		{"F14", []variant{
			{name: "string", readOnly: `function(input) if input.probe then return true end return "yes" end`, body: `return "LEAK: called"`, want: denied, after: anyState},
			{name: "nil", readOnly: `function(input) if input.probe then return true end end`, body: `return "LEAK: called"`, want: denied, after: anyState},
			{name: "error", readOnly: `function(input) if input.probe then return true end error("boom") end`, body: `return "LEAK: called"`, want: denied, after: anyState},
			{name: "timeout", cfg: shortHost, readOnly: `function(input) if input.probe then return true end while true do end end`, body: `return "LEAK: called"`, want: denied, after: anyState},
			{name: "table", readOnly: `function(input) if input.probe then return true end return {} end`, body: `return "LEAK: called"`, want: denied, after: anyState},
		}},
		{"F15", []variant{
			f15("nil", `return nil`),
			f15("string", `return "allow"`),
			f15("unknown-behavior", `return {behavior = "ALLOW"}`),
			f15("error", `error("boom")`),
			f15("timeout", `while true do end`),
			f15("bad-updated-input", `return {behavior = "allow", updatedInput = "everything"}`),
			f15("updated-input-function", `return {behavior = "allow", updatedInput = {x = print}}`),
			f15("mutate-ctx", `ctx.mode = "bypassPermissions" return {behavior = "allow"}`),
			{name: "mutate-input", extra: `checkPermissions = function(input, ctx) input.secret = "/etc/passwd" input.injected = true return {behavior = "allow"} end,`,
				body: `return tostring(input.secret) .. "|" .. tostring(input.injected)`, want: want{stage: done},
				check: func(t *testing.T, h *host, r *engine.Result) {
					if got := r.Block.Content.String(); got != h.secret+"|nil" {
						t.Errorf("call saw the input checkPermissions changed: %q", got)
					}
				}},
		}},
		{"F16", []variant{
			badLoad("missing-schema", `return { name = "hostile", prompt = "p", call = function() return "x" end }`, "inputSchema"),
			badLoad("schema-string", `return { name = "hostile", prompt = "p", inputSchema = "object", call = function() return "x" end }`, "inputSchema"),
			badLoad("schema-function", `return { name = "hostile", prompt = "p", inputSchema = function() return {type = "object"} end, call = function() return "x" end }`, "inputSchema"),
			badLoad("schema-array-root", `return { name = "hostile", prompt = "p", inputSchema = {type = "array"}, call = function() return "x" end }`, "object"),
			badLoad("schema-not-json", `return { name = "hostile", prompt = "p", inputSchema = {type = "object", default = print}, call = function() return "x" end }`, "inputSchema"),
			badLoad("returns-nil", `return nil`, "must return a table"),
			badLoad("returns-string", `return "hostile"`, "must return a table"),
			badLoad("errors", `error("load failed")`, "load failed"),
			badLoad("no-name", `return { prompt = "p", inputSchema = {type = "object"}, call = function() return "x" end }`, "name"),
		}},
		{"F17", []variant{
			badLoad("invalid-keyword", `return { name = "hostile", prompt = "p", inputSchema = {type = "object", properties = {x = {type = 12}}}, call = function() return "x" end }`, "invalid schema", "inputSchema"),
			badLoad("invalid-pattern", `return { name = "hostile", prompt = "p", inputSchema = {type = "object", properties = {x = {type = "string", pattern = "("}}}, call = function() return "x" end }`, "pattern", "inputSchema"),
			badLoad("deep-schema", `local s = {type = "object"} local c = s for i = 1, 1000 do c.properties = {x = {type = "object"}} c = c.properties.x end
return { name = "hostile", prompt = "p", inputSchema = s, call = function() return "x" end }`, "nested deeper", "inputSchema"),
			badLoad("cyclic-schema", `local s = {type = "object"} s.properties = {x = s}
return { name = "hostile", prompt = "p", inputSchema = s, call = function() return "x" end }`, "cycle", "inputSchema"),
			{name: "remote-ref", cfg: hostConfig{noLoad: true}, run: runRemoteRef},
			{name: "huge-schema", cfg: hostConfig{noLoad: true}, run: runHugeSchema},
			{name: "ref-cycle", src: `return { name = "hostile", prompt = "p", isReadOnly = true,
  inputSchema = {type = "object", ["$defs"] = {a = {["$ref"] = "#/$defs/b"}, b = {["$ref"] = "#/$defs/a"}}, properties = {x = {["$ref"] = "#/$defs/a"}}},
  call = function(input) if input.probe then return "alive:0" end return "called" end }`, run: runRefCycle},
		}},
		{"F18", []variant{
			{name: "same-source", cfg: hostConfig{noLoad: true}, run: runDuplicateNames},
			{name: "existing-stays", cfg: hostConfig{noLoad: true}, run: runDuplicateKeepsExisting},
			{name: "go-tool", cfg: hostConfig{noLoad: true, goTools: []engine.ToolDef{goTool("hostile")}}, run: runGoToolCollision},
			{name: "alias-of-other", extra: `aliases = { "healthy" },`, run: runAliasCollision},
		}},
		{"F19", []variant{
			badLoad("empty", nameTool(""), "name"),
			badLoad("space", nameTool("has space"), "name"),
			// Names follow MCP's rule, up to 128 characters (longer than 64 only with a
			// warning, since the Anthropic and OpenAI APIs stop at 64).
			badLoad("too-long", nameTool(strings.Repeat("a", 129)), "name"),
			badLoad("non-ascii", nameTool("naïve"), "name"),
			badLoad("leading-digit", nameTool("1abc"), "name"),
			badLoad("slash", nameTool("a/b"), "name"),
			badLoad("newline", nameTool("a\\nb"), "name"),
			badLoad("nul", nameTool("a\\0b"), "name"),
			badLoad("number", `return { name = 12, prompt = "p", inputSchema = {type = "object"}, call = function() return "x" end }`, "name"),
			badLoad("bad-alias", `return { name = "hostile", aliases = {"has space"}, prompt = "p", inputSchema = {type = "object"}, call = function() return "x" end }`, "alias"),
		}},
		{"F28", bothModes(variant{cfg: hostConfig{noLoad: true}, run: runF28})},
	}
}

// luaPosition checks that a runtime error names the tool file and line for the host,
// and that what the model sees has neither the position nor a Go stack.
func luaPosition(t *testing.T, h *host, r *engine.Result) {
	text := r.Block.Content.String()
	if strings.Contains(text, "hostile.lua") {
		t.Errorf("the model is told the file and line: %q", text)
	}
	for _, s := range []string{".go:", "goroutine", "stack traceback"} {
		if strings.Contains(text, s) {
			t.Errorf("the error shows %q: %q", s, text)
		}
	}
	se, ok := isScriptError(r.Err)
	if !ok || se.File != "tools/hostile.lua" || se.Line <= 0 {
		t.Errorf("the host's error is %#v, want a ScriptError with the file and line", r.Err)
	}
}

// deterministic calls the hostile tool again and requires the same text.
func deterministic(t *testing.T, h *host, r *engine.Result) {
	again, _ := h.call("hostile", h.paths(nil))
	if again != nil && again.Block.Content.String() != r.Block.Content.String() {
		t.Errorf("the error text changed between calls: %q then %q", r.Block.Content.String(), again.Block.Content.String())
	}
}

// hostPanicCause checks that the host gets the panic with its Go stack.
func hostPanicCause(t *testing.T, h *host, r *engine.Result) {
	var hp *bindings.HostPanic
	if !errors.As(r.Err, &hp) || !strings.Contains(hp.Stack, "goroutine") || hp.Func != "hostmod.panic" {
		t.Errorf("the host's error %v does not carry the HostPanic with its stack", r.Err)
	}
}

// hostmodCheck is hostmodVariant with a state expectation and a further check.
func hostmodCheck(name, body string, w want, after int, check func(*testing.T, *host, *engine.Result)) variant {
	v := hostmodVariant(name, body, w)
	v.after = after
	if check != nil {
		inner := v.check
		v.check = func(t *testing.T, h *host, r *engine.Result) {
			inner(t, h, r)
			check(t, h, r)
		}
	}
	return v
}

// outputInvalid checks that the host can reject the data with the output schema
// (the pipeline itself does not: by design the output schema is checked by luatool
// test and by hosts that ask).
func outputInvalid(t *testing.T, h *host, r *engine.Result) {
	if r.Tool == nil || r.Tool.ValidateOutput(r.Data) == nil {
		t.Errorf("ValidateOutput accepts %v against the output schema", r.Data)
	}
}

// f15 is a checkPermissions that misbehaves: the call must be denied, never run.
func f15(name, check string) variant {
	v := variant{name: name, extra: `checkPermissions = function(input, ctx) if input.probe then return {behavior = "allow"} end ` + check + ` end,`,
		body: `return "LEAK: called"`, want: want{stage: engine.StagePermission, anyOf: []string{"denied", "not granted"}}, after: anyState}
	if name == "timeout" {
		v.cfg = shortHost
	}
	return v
}

// badLoad loads src as a later version of the hostile tool: see runBadLoad.
func badLoad(name, src string, anyOf ...string) variant {
	return variant{name: name, cfg: hostConfig{noLoad: true}, run: func(t *testing.T, h *host) { runBadLoad(t, h, src, anyOf) }}
}

func nameTool(name string) string {
	return `return { name = "` + name + `", prompt = "p", inputSchema = {type = "object"}, call = function() return "x" end }`
}

func runRemoteRef(t *testing.T, h *host) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	runBadLoad(t, h, `return { name = "hostile", prompt = "p", inputSchema = {type = "object", properties = {x = {["$ref"] = "`+srv.URL+`/s.json"}}}, call = function() return "x" end }`,
		[]string{"not available"})
	if hits.Load() != 0 {
		t.Errorf("the schema compiler made %d requests", hits.Load())
	}
}

// runHugeSchema loads a tool whose schema, built at load time, is 10 MB of JSON.
func runHugeSchema(t *testing.T, h *host) {
	n := 20000
	if raceEnabled {
		n = 4000 // 2 MB: the compiler is slow under -race
	}
	runBadLoad(t, h, fmt.Sprintf(`local props = {} for i = 1, %d do props["p" .. i] = {type = "string", description = ("x"):rep(500)} end
return { name = "hostile", prompt = "p", isReadOnly = true, inputSchema = {type = "object", properties = props}, call = function() return "x" end }`, n),
		[]string{"too large", "limit", "size", "bytes"})
}

// runRefCycle validates inputs against a schema whose references loop.
func runRefCycle(t *testing.T, h *host) {
	r, took := h.call("hostile", h.paths(map[string]any{"x": 1}))
	h.check(r, took, want{})
	t.Logf("%v: stage %s %.200q", took, r.Stage, r.Block.Content.String())
	h.healthy()
}

func runDuplicateNames(t *testing.T, h *host) {
	files := map[string]string{"healthy.lua": healthyTool,
		"a.lua": hostileSource("", `return "a"`, "", ""),
		"b.lua": hostileSource("", `return "b"`, "", "")}
	first := h.load(files)
	second := h.load(files)
	text := fmt.Sprint(first)
	if !diag.HasErrors(first) || !strings.Contains(text, "tools/a.lua") || !strings.Contains(text, "tools/b.lua") {
		t.Errorf("duplicate names not reported with both files: %s", text)
	}
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("not deterministic:\n%s\n%s", first, fmt.Sprint(second))
	}
	if _, ok := h.e.Registry().Lookup("hostile"); ok {
		t.Error("one of the duplicates is registered")
	}
	h.healthy()
}

func runDuplicateKeepsExisting(t *testing.T, h *host) {
	base := source("base", map[string]string{"hostile.lua": hostileSource("", `return "base"`, "", "")})
	later := source("later", map[string]string{
		"a.lua": hostileSource("", `return "a"`, "", ""),
		"b.lua": hostileSource("", `return "b"`, "", "")})
	diags := h.load(map[string]string{"healthy.lua": healthyTool}, base, later)
	if !diag.HasErrors(diags) {
		t.Errorf("duplicates not reported: %v", diags)
	}
	r, took := h.call("hostile", h.paths(nil))
	h.check(r, took, want{stage: engine.StageDone, contains: []string{"base"}})
	h.healthy()
}

func goTool(name string) engine.ToolDef {
	return engine.ToolDef{Name: name, InputSchema: map[string]any{"type": "object"},
		Prompt: func(context.Context, engine.PromptOptions) (string, error) { return "go", nil },
		Call: func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: "go tool"}, nil
		}}
}

// runGoToolCollision: a Lua tool named like a Go-native tool overrides it with a
// notice (the documented precedence), the same way every time.
func runGoToolCollision(t *testing.T, h *host) {
	files := map[string]string{"healthy.lua": healthyTool, "hostile.lua": hostileSource("", `return "lua"`, "", "")}
	first, second := h.load(files), h.load(files)
	if fmt.Sprint(first) != fmt.Sprint(second) || !strings.Contains(fmt.Sprint(first), "overrides") {
		t.Errorf("diagnostics %v then %v, want the same override notice", first, second)
	}
	r, took := h.call("hostile", h.paths(nil))
	h.check(r, took, want{stage: engine.StageDone, contains: []string{"lua"}})
	h.healthy()
}

// runAliasCollision: an alias equal to another tool's name is ignored with a warning.
func runAliasCollision(t *testing.T, h *host) {
	tool, ok := h.e.Registry().Lookup("healthy")
	if !ok || tool.Source() != "tools/healthy.lua" {
		t.Errorf("the alias took over the healthy tool's name")
	}
	h.healthy()
	h.probe(1)
}

// runF28: after a timeout, a host panic, a call that returned nothing or too much,
// the next call of the same tool succeeds at once, on a fresh state after a failure.
func runF28(t *testing.T, h *host) {
	m := newHostModule()
	h2 := newHost(t, hostConfig{timeout: short, limits: bindings.Limits{MaxIdleStates: 1, FreshStates: h.fresh}, modules: []*bindings.Module{m.module()},
		tools: map[string]string{"hostile.lua": hostileSource("", `
    if input.phase == "loop" then while true do end end
    if input.phase == "panic" then return require("hostmod").panic() end
    if input.phase == "nothing" then return end
    if input.phase == "many" then return "a", "b", "c" end
    if input.phase == "deep" then local function f(n) if n == 0 then error("deep") end return 1 + f(n - 1) end return f(200) end
    if input.phase == "caught" then local ok = pcall(function() local t = {} for i = 1, 1e3 do t[i] = i end error(t) end) return "caught" end
    return "unknown phase"`, "", "")}})
	h = h2
	steps := []struct {
		phase string
		want  want
		next  int // the probe's expected count afterwards
	}{
		{"loop", timedOut, 1},
		{"panic", errAt("panicked"), 1},
		{"nothing", want{stage: engine.StageDone, contains: []string{"completed with no output"}}, 2},
		{"many", want{stage: engine.StageDone, contains: []string{"a"}, not: []string{"b", "c"}}, 3},
		{"deep", errAt("deep"), 1},
		{"caught", want{stage: engine.StageDone, contains: []string{"caught"}}, 2},
	}
	h.probe(1)
	for _, s := range steps {
		r, took := h.call("hostile", h.paths(map[string]any{"phase": s.phase}))
		h.check(r, took, s.want)
		h.probe(s.next)
	}
	if msg := m.intact(); msg != "" {
		t.Error(msg)
	}
	h.healthy()
}
