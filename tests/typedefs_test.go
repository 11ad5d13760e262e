package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luatest"
)

// typeDefs is what scripts/tools/luatool.d.lua declares: for each class (the part
// after "luatool."), its fields and its functions or methods.
type typeDefs map[string]map[string]bool

var (
	classLine = regexp.MustCompile(`^---@class luatool\.(\w+)`)
	fieldLine = regexp.MustCompile(`^---@field (\w+)`)
	localLine = regexp.MustCompile(`^local (\w+) = \{\}`)
	funcLine  = regexp.MustCompile(`^function (\w+)[.:](\w+)\(`)
)

func readTypeDefs(t *testing.T) typeDefs {
	t.Helper()
	src, err := os.ReadFile("../scripts/tools/luatool.d.lua")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bindings.Compile("luatool.d.lua", src, bindings.Limits{}); err != nil {
		t.Errorf("luatool.d.lua is not valid Lua: %v", err)
	}
	defs := typeDefs{}
	classOf := map[string]string{} // local table name -> class
	class := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case classLine.MatchString(line):
			class = classLine.FindStringSubmatch(line)[1]
			defs[class] = map[string]bool{}
		case class != "" && fieldLine.MatchString(line):
			defs[class][fieldLine.FindStringSubmatch(line)[1]] = true
		case class != "" && localLine.MatchString(line):
			classOf[localLine.FindStringSubmatch(line)[1]] = class
			class = ""
		case funcLine.MatchString(line):
			m := funcLine.FindStringSubmatch(line)
			owner, ok := classOf[m[1]]
			if !ok {
				t.Errorf("luatool.d.lua: function %s.%s of a table with no class", m[1], m[2])
				continue
			}
			defs[owner][m[2]] = true
		case !strings.HasPrefix(line, "---"):
			class = ""
		}
	}
	return defs
}

// luaKeys probes what Lua code sees, with a tool that lists the keys of every module
// a tool can require and of ctx, and a test case that lists those of the test
// modules and of t. Each line is "what: key key ...".
const keysFn = `local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  table.sort(out)
  return table.concat(out, " ")
end
`

func luaKeys(t *testing.T, modules []string) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	var requires []string
	for _, m := range modules {
		requires = append(requires, `lines[#lines + 1] = "`+m+`: " .. keys(require("`+m+`"))`)
	}
	writeFile(t, filepath.Join(dir, "probe.lua"), keysFn+`return {
  name = "Probe", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(_, ctx)
    local lines = {}
    `+strings.Join(requires, "\n    ")+`
    lines[#lines + 1] = "Context: " .. keys(ctx)
    lines[#lines + 1] = "State: " .. keys(ctx.state)
    lines[#lines + 1] = "FileStates: " .. keys(ctx.readFileState)
    return table.concat(lines, "\n")
  end,
}`)
	writeFile(t, filepath.Join(dir, "probe_test.lua"), keysFn+`local test = require("test")
test.case("keys", function(t)
  print("test: " .. keys(require("test")))
  print("assert: " .. keys(require("assert")))
  print("TestContext: " .. keys(t))
end)`)

	root := t.TempDir()
	newEngine := func(root, _ string) (*engine.Engine, error) {
		mods, err := builtin.Standard([]string{root})
		if err != nil {
			return nil, err
		}
		eng, err := engine.New(engine.Options{Modules: mods, Cwd: root, Roots: []string{root}, ResultsDir: t.TempDir()})
		if err != nil {
			return nil, err
		}
		if diags := eng.Load(engine.DirSource(dir)); engine.HasErrors(diags) {
			t.Fatalf("probe: %v", diags)
		}
		return eng, nil
	}
	eng, err := newEngine(root, "")
	if err != nil {
		t.Fatal(err)
	}
	r := eng.Call(context.Background(), engine.ToolUse{ID: "toolu_probe", Name: "Probe", Input: []byte(`{}`)})
	if r.Block.IsError {
		t.Fatalf("probe: %s", r.Block.Content)
	}
	lines := strings.Split(r.Block.Content.String(), "\n")
	res := luatest.RunFile(context.Background(), filepath.Join(dir, "probe_test.lua"), luatest.Options{NewEngine: newEngine})
	if res.Failed() {
		t.Fatalf("test probe: %+v", res)
	}
	lines = append(lines, res.Cases[0].Log...)
	out := map[string][]string{}
	for _, line := range lines {
		what, keys, _ := strings.Cut(line, ": ")
		out[what] = strings.Fields(keys)
	}
	return out
}

// TestTypeDefinitionsMatchGo fails when the Lua definitions and the Go code disagree:
// a member of the tool contract, a function or value of a module, a field or method
// of ctx, ctx.state, ctx.readFileState or a test's t that one side has and the other
// has not.
func TestTypeDefinitionsMatchGo(t *testing.T) {
	defs := readTypeDefs(t)

	contract := setOf(engine.MemberNames())
	compareKeys(t, "the Tool contract (engine.MemberNames)", "luatool.Tool", contract, defs["Tool"])
	compareKeys(t, "engine.ToolResultFields", "luatool.ToolResult", setOf(engine.ToolResultFields()), defs["ToolResult"])
	compareKeys(t, "engine.ContextChangeFields", "luatool.ContextChange", setOf(engine.ContextChangeFields()), defs["ContextChange"])

	mods, err := builtin.Standard([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	modules := []string{engine.ToolsModuleName, "json"}
	for _, m := range mods {
		modules = append(modules, m.Name)
	}
	seen := luaKeys(t, modules)
	for _, name := range append(modules, "test", "assert", "Context", "State", "FileStates", "TestContext") {
		keys := map[string]bool{}
		for _, k := range seen[name] {
			keys[k] = true
		}
		if len(keys) == 0 {
			t.Errorf("Lua sees nothing in %s", name)
		}
		compareKeys(t, "Lua's "+name, "luatool."+name, keys, defs[name])
	}

	// Every module class of the definitions is a module Go offers.
	known := append(slices.Clone(modules), "test", "assert")
	for class := range defs {
		if strings.ToLower(class[:1]) == class[:1] && !slices.Contains(known, class) {
			t.Errorf("luatool.d.lua defines module %s, which Go does not offer", class)
		}
	}
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
