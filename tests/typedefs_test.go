package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/client"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/luatest"
	"github.com/luatool/luatool/engine/netpolicy"
	"github.com/luatool/luatool/engine/rules"
)

// luaDefs is what scripts/tools/luatool.d.lua declares: its classes (by the name
// after "luatool.") and its string aliases.
type luaDefs struct {
	classes map[string]*luaClass
	aliases map[string][]string // alias -> its string literals
}

// A luaClass is a ---@class: its fields and the functions or methods of the table
// declared with it.
type luaClass struct {
	parent string
	fields map[string]luaField
	funcs  map[string]*luaFunc
}

type luaField struct {
	typ      string
	optional bool
}

// A luaFunc is a function or method of a class, with the ---@param and ---@return
// annotations above it.
type luaFunc struct {
	owner, name string
	method      bool
	params      []luaParam
	returns     []string // types
}

type luaParam struct {
	name, typ string
}

// qualified is the function's name as Lua code calls it: "fs.read", "TestContext:call".
func (f *luaFunc) qualified() string {
	if f.method {
		return f.owner + ":" + f.name
	}
	return f.owner + "." + f.name
}

var (
	classLine  = regexp.MustCompile(`^---@class luatool\.(\w+)(?:\s*:\s*luatool\.(\w+))?`)
	fieldLine  = regexp.MustCompile(`^---@field (\w+)(\??) (\S+)`)
	paramLine  = regexp.MustCompile(`^---@param (\w+|\.\.\.)\?? (\S+)`)
	returnLine = regexp.MustCompile(`^---@return (\S+)`)
	aliasLine  = regexp.MustCompile(`^---@alias luatool\.(\w+) (.+)$`)
	localLine  = regexp.MustCompile(`^local (\w+) = \{\}`)
	funcLine   = regexp.MustCompile(`^function (\w+)([.:])(\w+)\(`)
	stringLit  = regexp.MustCompile(`"([^"]*)"`)
)

func readTypeDefs(t *testing.T) *luaDefs {
	t.Helper()
	src, err := os.ReadFile("../scripts/tools/luatool.d.lua")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bindings.Compile("luatool.d.lua", src, bindings.Limits{}); err != nil {
		t.Errorf("luatool.d.lua is not valid Lua: %v", err)
	}
	defs := &luaDefs{classes: map[string]*luaClass{}, aliases: map[string][]string{}}
	classOf := map[string]string{} // local table name -> class
	class := ""
	var params []luaParam
	var returns []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case classLine.MatchString(line):
			m := classLine.FindStringSubmatch(line)
			class = m[1]
			defs.classes[class] = &luaClass{parent: m[2], fields: map[string]luaField{}, funcs: map[string]*luaFunc{}}
			params, returns = nil, nil
		case class != "" && fieldLine.MatchString(line):
			m := fieldLine.FindStringSubmatch(line)
			defs.classes[class].fields[m[1]] = luaField{typ: m[3], optional: m[2] == "?"}
		case aliasLine.MatchString(line):
			m := aliasLine.FindStringSubmatch(line)
			for _, lit := range stringLit.FindAllStringSubmatch(m[2], -1) {
				defs.aliases[m[1]] = append(defs.aliases[m[1]], lit[1])
			}
		case paramLine.MatchString(line):
			m := paramLine.FindStringSubmatch(line)
			params = append(params, luaParam{name: m[1], typ: m[2]})
		case returnLine.MatchString(line):
			returns = append(returns, returnLine.FindStringSubmatch(line)[1])
		case class != "" && localLine.MatchString(line):
			classOf[localLine.FindStringSubmatch(line)[1]] = class
			class = ""
		case funcLine.MatchString(line):
			m := funcLine.FindStringSubmatch(line)
			owner, ok := classOf[m[1]]
			if !ok {
				t.Errorf("luatool.d.lua: function %s%s%s of a table with no class", m[1], m[2], m[3])
				continue
			}
			defs.classes[owner].funcs[m[3]] = &luaFunc{owner: owner, name: m[3], method: m[2] == ":", params: params, returns: returns}
			params, returns = nil, nil
		case !strings.HasPrefix(line, "---"):
			class = ""
			params, returns = nil, nil
		}
	}
	return defs
}

// members returns the names of a class's own fields and functions.
func (d *luaDefs) members(class string) map[string]bool {
	out := map[string]bool{}
	if c := d.classes[class]; c != nil {
		for k := range c.fields {
			out[k] = true
		}
		for k := range c.funcs {
			out[k] = true
		}
	}
	return out
}

// fields returns a class's fields, its ancestors' included.
func (d *luaDefs) fields(class string) map[string]luaField {
	out := map[string]luaField{}
	for seen := map[string]bool{}; class != "" && !seen[class] && d.classes[class] != nil; class = d.classes[class].parent {
		seen[class] = true
		for k, f := range d.classes[class].fields {
			if _, ok := out[k]; !ok {
				out[k] = f
			}
		}
	}
	return out
}

// classOfType finds the class a type names, as in "luatool.ReadInfo|string" or
// "luatool.GrepLine[]?": its name, and whether the type is a list of it.
func (d *luaDefs) classOfType(typ string) (class string, list, ok bool) {
	for _, part := range strings.Split(strings.TrimSuffix(typ, "?"), "|") {
		name, isClass := strings.CutPrefix(part, "luatool.")
		name, list = strings.CutSuffix(name, "[]")
		if _, found := d.classes[name]; isClass && found {
			return name, list, true
		}
	}
	return "", false, false
}

// Where Lua code reaches what luatool.d.lua declares: the modules are required; the
// other classes are reached from a tool's ctx or a test's t.
var (
	toolSide = map[string]string{"Context": "ctx", "State": "ctx.state", "FileStates": "ctx.readFileState", "Regexp": `require("re").compile("x")`}
	testSide = map[string]string{"test": `require("test")`, "assert": `require("assert")`, "TestContext": "t"}
)

// probeKey is the unknown key every options probe passes.
const probeKey = "zzUnknownOption"

// An optionProbe is one call of a declared function with an options table holding
// probeKey: where luatool.d.lua says the options go, or after the declared
// arguments when it says the function takes none.
type optionProbe struct {
	fn   *luaFunc
	pos  int    // the options' position among the Lua arguments (self counts)
	opts string // the class of the declared options; "" when none are declared
}

// optionProbes writes the Lua code that calls every function of the classes in recv
// with made-up arguments and an options table holding probeKey, recording each
// call's error in the table refused. root is a Lua expression for a directory inside
// the roots.
func optionProbes(t *testing.T, defs *luaDefs, recv map[string]string, root string, probes map[string]optionProbe) string {
	var code strings.Builder
	code.WriteString(`local refused = {}
local function refuses(name, fn)
  local ok, err = pcall(fn, { ` + probeKey + ` = true })
  refused[name] = ok and "" or tostring(err)
end
`)
	for _, class := range slices.Sorted(maps.Keys(recv)) {
		c := defs.classes[class]
		if c == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(c.funcs)) {
			f := c.funcs[name]
			p := optionProbe{fn: f, pos: len(f.params) + 1}
			var args []string
			variadic := false
			for i, prm := range f.params {
				switch {
				case prm.name == "...":
					variadic = true
				case prm.name == "opts":
					cls, list, ok := defs.classOfType(prm.typ)
					if !ok || list {
						t.Errorf("luatool.d.lua: the opts of %s are %s; declare them with a ---@class", f.qualified(), prm.typ)
					}
					p.pos, p.opts = i+1, cls
					args = append(args, "o")
				default:
					args = append(args, madeUpArg(prm, root))
				}
			}
			if variadic {
				continue // options cannot follow a variable number of arguments
			}
			if p.opts == "" {
				args = append(args, "o")
			}
			sep := "."
			if f.method {
				p.pos, sep = p.pos+1, ":"
			}
			probes[f.qualified()] = p
			fmt.Fprintf(&code, "refuses(%q, function(o) return %s%s%s(%s) end)\n", f.qualified(), recv[class], sep, f.name, strings.Join(args, ", "))
		}
	}
	return code.String()
}

// madeUpArg is a Lua value of a parameter's declared type, good enough to get past
// the argument checks that come before the options.
func madeUpArg(p luaParam, root string) string {
	typ := strings.TrimSuffix(p.typ, "?")
	switch {
	case p.name == "rel":
		return `"probe.txt"`
	case typ == "string", typ == "any":
		return root
	case typ == "integer", typ == "number":
		return "1"
	case typ == "boolean":
		return "true"
	case typ == "function", strings.HasPrefix(typ, "fun("):
		return "function() end"
	default:
		return "{}" // tables, lists and classes
	}
}

// The probes of what functions return. These say how to call each function that
// returns a table of a declared class; which class, and so which fields to expect,
// comes from luatool.d.lua's ---@return, and the fields from the call. returned
// records value n of a call, or the error when it failed; failed records the code
// of a call that must fail.
const returnsFn = `local returns, failures = {}, {}
local function returned(name, n, ...)
  local first, err = ...
  if first == nil then
    returns[name] = { err = tostring(err) }
  else
    returns[name] = { n = n, value = (select(n, ...)) }
  end
end
local function failed(name, ...)
  local first, err, code = ...
  failures[#failures + 1] = { name = name, ok = first ~= nil, err = tostring(err), code = code }
end
`

const toolReturns = `local fs, glob, grep, shell, tools, http = require("fs"), require("glob"), require("grep"), require("shell"), require("tools"), require("http")
returned("fs.read", 2, fs.read("a.txt"))
returned("fs.lines", 2, fs.lines("a.txt", { offset = 2 }))
returned("fs.stat", 1, fs.stat("a.txt"))
returned("fs.lstat", 1, fs.lstat("a.txt"))
returned("fs.write", 1, fs.write("b.txt", "written"))
returned("grep.count", 1, grep.count("one"))
returned("grep.content", 1, grep.content("one", { after = 1 }))
returned("shell.run", 1, shell.run("echo hi"))
local bg = shell.start("sleep 1000")
returned("shell.task", 1, shell.task(bg))
returned("shell.stop", 1, shell.stop(bg))
failed("shell.stop", shell.stop(bg))
returned("tools.list", 1, tools.list())
returned("http.request", 1, http.request{ url = SERVER .. "/json" })
returned("http.get", 1, http.get(SERVER .. "/json"))
returned("http.post", 1, http.post(SERVER .. "/json", "body"))
returned("FileStates:get", 1, ctx.readFileState:get(ctx.cwd .. "/b.txt")) -- fs.write recorded it
returned("Context:sample", 1, ctx:sample("hi"))
returned("Context:elicit", 1, ctx:elicit("who?", { properties = { name = { type = "string" } } }))
failed("fs.read", fs.read("missing.txt"))
failed("fs.read", fs.read("/"))
failed("fs.read", fs.read("."))
failed("fs.read", fs.read("a.txt", { maxBytes = 1 }))
failed("fs.list", fs.list("a.txt"))
failed("fs.write", fs.write("a.txt", "x", { ifAbsent = true }))
failed("fs.write", fs.write("a.txt", "x", { ifHash = "0" }))
failed("glob.find", glob.find("["))
failed("grep.files", grep.files("(", {}))
failed("grep.files", grep.files("x", { type = "nosuchtype" }))
failed("shell.split", shell.split("echo 'unclosed"))
returned("shell.writes", 1, shell.writes("cp -r a.txt sub > c.txt"))
failed("shell.writes", shell.writes("echo 'unclosed"))
failed("http.get", http.get("http://undeclared.invalid/"))
failed("http.get", http.get("ftp://127.0.0.1/"))
failed("http.get", http.get(SERVER .. "/json", { maxBytes = 1 }))
local re, time, url = require("re"), require("time"), require("url")
returned("url.parse", 1, url.parse("https://u:p@h:8080/a?q=1#f"))
-- A compiled pattern holds functions, which JSON cannot: its fields are probed.
local rx = re.compile("(a)")
returned("re.compile", 1, { pattern = rx.pattern })
failed("re.find", re.find("x", "("))
failed("re.match", re.match("x", "("))
failed("re.gmatch", re.gmatch("x", "("))
failed("re.gsub", re.gsub("x", "(", ""))
failed("re.split", re.split("x", "("))
failed("re.compile", re.compile("("))
failed("time.format", time.format(0, nil, "Nowhere/Land"))
failed("time.parse", time.parse("never"))
failed("time.duration", time.duration("1d"))
failed("base64.decode", require("base64").decode("!"))
failed("hex.decode", require("hex").decode("x"))
failed("url.parse", url.parse("%zz"))
failed("url.resolve", url.resolve("%zz", "x"))
failed("url.unescape", url.unescape("%zz"))
failed("url.decodequery", url.decodequery("%zz"))
`

const testReturns = `returned("TestContext:call", 1, t:call("Nop", {}))
`

// probeClient answers the probe's ctx:sample and ctx:elicit, so that what they
// return is probed.
type probeClient struct{ client.None }

func (probeClient) Sample(context.Context, *client.SamplingRequest) (*client.SamplingResult, error) {
	return &client.SamplingResult{Role: "assistant", Model: "probe", StopReason: "endTurn",
		Content: client.Content{Type: "text", Text: "answer"}}, nil
}

func (probeClient) Elicit(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
	return &client.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
}

// A probeResult is what the probes saw.
type probeResult struct {
	Keys     map[string][]string    `json:"keys"`    // what -> the keys Lua sees in it
	Refused  map[string]string      `json:"refused"` // function -> the error of its options probe
	Returns  map[string]probeReturn `json:"returns"`
	Failures []probeFailure         `json:"failures"`
}

type probeReturn struct {
	N     int    `json:"n"`
	Value any    `json:"value"`
	Err   string `json:"err"`
}

type probeFailure struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Err  string `json:"err"`
	Code string `json:"code"`
}

// keysFn lists the keys of a table, sorted.
const keysFn = `local json = require("json")
local function keysOf(t)
  local out = json.array()
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  table.sort(out)
  return out
end
`

// runProbe runs a probe tool, which looks at every module a tool can require and at
// ctx, and a probe test case, which looks at the test modules and t. modules are
// the modules a tool can require.
func runProbe(t *testing.T, defs *luaDefs, modules []string) (probeResult, map[string]optionProbe) {
	t.Helper()
	dir := t.TempDir()
	probes := map[string]optionProbe{}
	toolRecv := map[string]string{}
	lines := []string{}
	for _, m := range modules {
		toolRecv[m] = `require("` + m + `")`
		lines = append(lines, fmt.Sprintf("keys[%q] = keysOf(require(%q))", m, m))
	}
	for class, expr := range toolSide {
		toolRecv[class] = expr
		lines = append(lines, fmt.Sprintf("keys[%q] = keysOf(%s)", class, expr))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	}))
	t.Cleanup(srv.Close)
	writeFile(t, filepath.Join(dir, "probe.lua"), keysFn+`local SERVER = "`+srv.URL+`"
return {
  name = "Probe", prompt = "p", inputSchema = { type = "object" }, isReadOnly = false, network = { "127.0.0.1" },
  call = function(_, ctx)
    local keys = {}
    `+strings.Join(lines, "\n    ")+`
    `+optionProbes(t, defs, toolRecv, "ctx.cwd", probes)+returnsFn+toolReturns+`
    return json.encode({ keys = keys, refused = refused, returns = returns, failures = failures })
  end,
}`)
	writeFile(t, filepath.Join(dir, "nop.lua"), `return {
  name = "Nop", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(_, ctx) ctx:log("logged"); return { data = { n = 1 } } end,
}`)
	lines = nil
	for class, expr := range testSide {
		lines = append(lines, fmt.Sprintf("keys[%q] = keysOf(%s)", class, expr))
	}
	writeFile(t, filepath.Join(dir, "probe_test.lua"), keysFn+`local test = require("test")
test.case("probe", function(t)
  local keys = {}
  `+strings.Join(lines, "\n  ")+`
  `+optionProbes(t, defs, testSide, "t.root", probes)+returnsFn+testReturns+`
  print(json.encode({ keys = keys, refused = refused, returns = returns }))
end)`)

	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "one\ntwo\nthree\n")
	loopbackOK, err := netpolicy.NewPolicy(nil, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	newEngine := func(root, scratch string) (*engine.Engine, error) {
		mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root}, HTTP: hostmod.HTTPOptions{Policy: loopbackOK}})
		if err != nil {
			return nil, err
		}
		eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Cwd: root, Roots: []string{root}, ResultsDir: scratch,
			Mode: rules.ModeBypassPermissions, Client: probeClient{}})
		if err != nil {
			return nil, err
		}
		if diags := eng.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
			return nil, fmt.Errorf("probe: %v", diags)
		}
		return eng, nil
	}
	eng, err := newEngine(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close() // the probe's background command and its output file
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_probe", Name: "Probe", Input: []byte(`{}`)})
	if r.Block.IsError {
		t.Fatalf("probe: %s", r.Block.Content)
	}
	var res probeResult
	if err := json.Unmarshal([]byte(r.Block.Content.String()), &res); err != nil {
		t.Fatalf("probe: %v\n%s", err, r.Block.Content)
	}
	fr := luatest.RunFile(context.Background(), filepath.Join(dir, "probe_test.lua"), luatest.Options{NewEngine: newEngine})
	if fr.Failed() || len(fr.Cases[0].Log) != 1 {
		t.Fatalf("test probe: %+v", fr)
	}
	var testRes probeResult
	if err := json.Unmarshal([]byte(fr.Cases[0].Log[0]), &testRes); err != nil {
		t.Fatalf("test probe: %v\n%s", err, fr.Cases[0].Log[0])
	}
	for k, v := range testRes.Keys {
		res.Keys[k] = v
	}
	for k, v := range testRes.Refused {
		res.Refused[k] = v
	}
	for k, v := range testRes.Returns {
		res.Returns[k] = v
	}
	return res, probes
}

// reachable returns the module names a tool can require, as Go offers them: the
// standard host modules and what the Lua loader adds.
func reachable(t *testing.T) []string {
	t.Helper()
	mods, err := hostmod.Standard([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	modules := []string{luaload.ToolsModuleName, luaload.EnvModuleName, "json"}
	for _, m := range luaload.New(luaload.Options{Modules: mods}).Modules() {
		modules = append(modules, m.Name)
	}
	return modules
}

// TestTypeDefinitionsMatchGo fails when the Lua definitions and the Go code disagree:
// a member of the tool contract, a function or value of a module, a field or method
// of ctx, ctx.state, ctx.readFileState or a test's t that one side has and the other
// has not.
func TestTypeDefinitionsMatchGo(t *testing.T) {
	defs := readTypeDefs(t)

	var members []string
	for _, m := range engine.Members() {
		members = append(members, m.Name)
	}
	compareKeys(t, "the Tool contract (engine.Members)", "luatool.Tool", setOf(members), defs.members("Tool"))
	result, contextChange := engine.ResultFields()
	compareKeys(t, "engine.ResultFields", "luatool.ToolResult", setOf(result), defs.members("ToolResult"))
	compareKeys(t, "engine.ResultFields", "luatool.ContextChange", setOf(contextChange), defs.members("ContextChange"))

	modules := reachable(t)
	seen, _ := runProbe(t, defs, modules)
	for _, name := range append(modules, "test", "assert", "Context", "State", "FileStates", "TestContext") {
		keys := setOf(seen.Keys[name])
		if len(keys) == 0 {
			t.Errorf("Lua sees nothing in %s", name)
		}
		compareKeys(t, "Lua's "+name, "luatool."+name, keys, defs.members(name))
	}

	// Every module class of the definitions is a module Go offers.
	known := append(slices.Clone(modules), "test", "assert")
	for class := range defs.classes {
		if strings.ToLower(class[:1]) == class[:1] && !slices.Contains(known, class) {
			t.Errorf("luatool.d.lua defines module %s, which Go does not offer", class)
		}
	}
}

// refusal is how bindings.Args.Options refuses the probe's unknown key: the
// argument's position, the function, and the options it accepts.
var refusal = regexp.MustCompile(`bad argument #(\d+) to '([^']+)' \(unknown option '` + probeKey +
	`'(?:, did you mean '[^']*'\?|;) (?:options: ([^)]*)|no options are accepted)\)`)

// TestTypeDefinitionsOptions fails when a function's options table, as luatool.d.lua
// declares it (the fields of the ---@class of its opts parameter), and the keys the
// function accepts differ. Every function Lua code can reach is called with an
// options table holding an unknown key, where the definitions put its options or,
// for a function they declare without, after its arguments: bindings.Args.Options
// refuses the key and lists the options the function accepts.
func TestTypeDefinitionsOptions(t *testing.T) {
	defs := readTypeDefs(t)
	seen, probes := runProbe(t, defs, reachable(t))
	withOptions := 0
	for _, name := range slices.Sorted(maps.Keys(probes)) {
		p := probes[name]
		msg, ran := seen.Refused[name]
		if !ran {
			t.Errorf("the options probe of %s did not run", name)
			continue
		}
		m := refusal.FindStringSubmatch(msg)
		switch {
		case p.opts == "" && m != nil:
			t.Errorf("%s takes an options table as argument #%s (%s), which luatool.d.lua does not declare", name, m[1], m[3])
		case p.opts == "":
		case m == nil:
			t.Errorf("luatool.d.lua declares options (luatool.%s) as argument #%d of %s, but a call with an unknown option there gave %q",
				p.opts, p.pos, name, msg)
		case m[1] != strconv.Itoa(p.pos):
			t.Errorf("%s takes its options as argument #%s; luatool.d.lua puts them at #%d", name, m[1], p.pos)
		default:
			withOptions++
			if !p.fn.method && m[2] != name {
				t.Errorf("%s calls itself %q in its argument errors", name, m[2])
			}
			accepted := map[string]bool{}
			for _, k := range strings.Split(m[3], ", ") {
				if k != "" {
					accepted[k] = true
				}
			}
			declared := map[string]bool{}
			for k := range defs.fields(p.opts) {
				declared[k] = true
			}
			compareKeys(t, "the option list of "+name+" (Go)", "luatool."+p.opts, accepted, declared)
		}
	}
	if withOptions == 0 {
		t.Error("no function with options was checked")
	}
}

// TestTypeDefinitionsReturns fails when what a function returns and the class
// luatool.d.lua declares for it differ: a field the function returns that the class
// (with its ancestors) lacks, or a field the class requires (declared without ?)
// that the function leaves out, at any depth where a field's type is a class. It
// also checks that the failure codes functions return are those of
// luatool.ErrorCode, and that every function declared to return a class is probed.
func TestTypeDefinitionsReturns(t *testing.T) {
	defs := readTypeDefs(t)
	seen, _ := runProbe(t, defs, reachable(t))
	for _, class := range slices.Sorted(maps.Keys(defs.classes)) {
		for _, name := range slices.Sorted(maps.Keys(defs.classes[class].funcs)) {
			f := defs.classes[class].funcs[name]
			for i, typ := range f.returns {
				if _, _, ok := defs.classOfType(typ); !ok {
					continue
				}
				r, probed := seen.Returns[f.qualified()]
				switch {
				case !probed:
					t.Errorf("%s returns %s (value #%d), but the returns probe does not call it", f.qualified(), typ, i+1)
				case r.Err != "":
					t.Errorf("the returns probe's call of %s failed: %s", f.qualified(), r.Err)
				case r.N != i+1:
					t.Errorf("luatool.d.lua declares value #%d of %s as %s, but the returns probe looks at value #%d", i+1, f.qualified(), typ, r.N)
				default:
					checkValue(t, defs, fmt.Sprintf("%s's value #%d", f.qualified(), i+1), typ, r.Value)
				}
			}
		}
	}

	codes := setOf(defs.aliases["ErrorCode"])
	if len(codes) == 0 {
		t.Fatal("luatool.d.lua has no luatool.ErrorCode alias")
	}
	for _, f := range seen.Failures {
		owner, name, _ := strings.Cut(f.Name, ".")
		fn := defs.classes[owner].funcs[name]
		switch {
		case f.OK:
			t.Errorf("the failures probe's call of %s did not fail", f.Name)
		case !codes[f.Code]:
			t.Errorf("%s failed with code %q (%s), which luatool.d.lua's luatool.ErrorCode lacks", f.Name, f.Code, f.Err)
		case len(fn.returns) < 3 || !strings.Contains(fn.returns[2], "luatool.ErrorCode"):
			t.Errorf("%s fails with nil, message, code, but luatool.d.lua declares its returns as %v", f.Name, fn.returns)
		}
	}
}

// checkValue compares v, a value a function returned (as JSON), with typ, its type
// in luatool.d.lua, where typ names a class or a list of one.
func checkValue(t *testing.T, defs *luaDefs, where, typ string, v any) {
	t.Helper()
	class, list, ok := defs.classOfType(typ)
	if !ok {
		return
	}
	if list {
		items, isList := v.([]any)
		if !isList {
			t.Errorf("%s is %s, not a list", where, describe(v))
			return
		}
		if len(items) == 0 {
			t.Errorf("%s is an empty list: the probe checks nothing", where)
		}
		for i, item := range items {
			checkValue(t, defs, fmt.Sprintf("%s[%d]", where, i+1), "luatool."+class, item)
		}
		return
	}
	m, isTable := v.(map[string]any)
	if !isTable {
		t.Errorf("%s is %s, not a table (luatool.%s)", where, describe(v), class)
		return
	}
	fields := defs.fields(class)
	var extra, missing []string
	for k := range m {
		if _, ok := fields[k]; !ok {
			extra = append(extra, k)
		}
	}
	for k, f := range fields {
		if _, ok := m[k]; !ok && !f.optional {
			missing = append(missing, k)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	if len(extra) > 0 {
		t.Errorf("%s has %v, which luatool.d.lua's luatool.%s lacks", where, extra, class)
	}
	if len(missing) > 0 {
		t.Errorf("luatool.d.lua's luatool.%s requires %v, which %s lacks (mark a field that may be absent with ?)", class, missing, where)
	}
	for k, val := range m {
		if f, ok := fields[k]; ok {
			checkValue(t, defs, where+"."+k, f.typ, val)
		}
	}
}

func describe(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func setOf(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func compareKeys(t *testing.T, goSide, luaSide string, want, got map[string]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s has %v, which luatool.d.lua's %s lacks", goSide, missing, luaSide)
	}
	if len(extra) > 0 {
		t.Errorf("luatool.d.lua's %s has %v, which %s lacks", luaSide, extra, goSide)
	}
}

// TestLuarcPointsAtTheDefinitions checks the repository's .luarc.json: Lua 5.1, and a
// library that exists.
func TestLuarcPointsAtTheDefinitions(t *testing.T) {
	b, err := os.ReadFile("../.luarc.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Runtime string   `json:"runtime.version"`
		Library []string `json:"workspace.library"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Runtime != "Lua 5.1" || len(cfg.Library) == 0 {
		t.Errorf(".luarc.json: %+v", cfg)
	}
	for _, lib := range cfg.Library {
		if _, err := os.Stat(filepath.Join("..", lib)); err != nil {
			t.Errorf(".luarc.json library %s: %v", lib, err)
		}
	}
}
