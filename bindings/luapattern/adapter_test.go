package luapattern

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/internal/extdata"
)

// This file holds a complete binding of the package into gopher-lua's string library,
// as luatool's bindings would write it, and the harness that runs the same Lua code
// through stock gopher-lua, through the binding and, when it is installed, through
// PUC Lua 5.1.

// installStringLib replaces string.find, match, gmatch and gsub in L with the
// package's functions. The string metatable's __index is the same table, so method
// calls (s:find) use them too.
func installStringLib(L *lua.LState, m Matcher) {
	str := L.GetGlobal("string").(*lua.LTable)
	for name, fn := range StringFunctions(m) {
		L.SetField(str, name, L.NewFunction(fn))
	}
}

// prelude defines, in any of the three Lua implementations, ser (one line for the
// results of a pcall), gm (all the iterations of a gmatch loop, which ser prints
// as they are) and emit. It uses no
// pattern function, so it does not depend on the implementation under test.
const prelude = `
if not emit then emit = print end
local function esc(s)
  local out = {}
  for i = 1, #s do
    local b = string.byte(s, i)
    if b < 32 or b > 126 or b == 34 or b == 92 then out[#out+1] = "\\" .. b
    else out[#out+1] = string.char(b) end
  end
  return '"' .. table.concat(out) .. '"'
end
function ser(ok, ...)
  local t = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if type(v) == 'string' then t[#t+1] = esc(v)
    elseif type(v) == 'table' and v.gm then t[#t+1] = v.gm
    else t[#t+1] = tostring(v) end
  end
  if not ok then return "ERR " .. t[1] end
  return table.concat(t, ",")
end
function gm(s, p)
  local out = {}
  for a, b, c in string.gmatch(s, p) do
    out[#out+1] = ser(true, a, b, c)
    if #out > 100 then break end
  end
  return {gm = "[" .. table.concat(out, " | ") .. "]"}
end
`

// script returns a Lua program that emits one line per expression.
func script(exprs []string) string {
	var b strings.Builder
	b.WriteString(prelude)
	for _, e := range exprs {
		fmt.Fprintf(&b, "emit(ser(pcall(function() return %s end)))\n", e)
	}
	return b.String()
}

// location matches the "chunk:line: " prefix of an error message, which differs
// between implementations and call sites.
var location = regexp.MustCompile(`^ERR "[^":]*:\d+: `)

func normalize(line string) string { return location.ReplaceAllString(line, `ERR "`) }

// runGopher runs exprs in a fresh gopher-lua state, with this package's string
// functions when m is not nil, and returns one normalized line per expression.
func runGopher(t testing.TB, exprs []string, m *Matcher) []string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	if m != nil {
		installStringLib(L, *m)
	}
	var out []string
	L.SetGlobal("emit", L.NewFunction(func(L *lua.LState) int {
		out = append(out, normalize(L.CheckString(1)))
		return 0
	}))
	if err := L.DoString(script(exprs)); err != nil {
		t.Fatalf("gopher-lua: %v", err)
	}
	if len(out) != len(exprs) {
		t.Fatalf("gopher-lua emitted %d lines for %d expressions", len(out), len(exprs))
	}
	return out
}

// lua51 returns the path of a PUC Lua 5.1 interpreter, recording its use (see
// extdata.Record); when none is installed it skips t.
func lua51(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"lua5.1", "lua51"} {
		if p, err := exec.LookPath(name); err == nil {
			extdata.Record(t, "lua5.1")
			return p
		}
	}
	t.Skip("lua5.1 not installed (apt-get install lua5.1)")
	return ""
}

// runPUC runs exprs in PUC Lua 5.1 and returns one normalized line per expression.
func runPUC(t testing.TB, bin string, exprs []string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cases.lua")
	if err := os.WriteFile(file, []byte(script(exprs)), 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := exec.Command(bin, file).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("lua5.1: %v\n%s", err, exit.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != len(exprs) {
		t.Fatalf("lua5.1 emitted %d lines for %d expressions", len(lines), len(exprs))
	}
	for i := range lines {
		lines[i] = normalize(lines[i])
	}
	return lines
}
