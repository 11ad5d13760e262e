package luapattern

import (
	"context"
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// benchText returns about 64 KiB of prose-like text with key=value pairs, runs of
// spaces and lines, ending with "END42".
func benchText() string {
	words := []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "lorem", "ipsum", "dolor", "sit", "amet"}
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(words[i%len(words)])
		switch {
		case i%17 == 0:
			b.WriteString(" key")
			b.WriteString(words[i%5])
			b.WriteString("=value")
			b.WriteString(words[i%7])
			b.WriteString("  ")
		case i%11 == 0:
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
	}
	b.WriteString("END42")
	return b.String()
}

// benchCase calls a Lua function (a string library function or a chunk) with args.
type benchCase struct {
	name string
	fn   string // a string library function, or Lua source of a function
	args []lua.LValue
}

func benchCases() []benchCase {
	text := lua.LString(benchText())
	line := lua.LString(strings.Repeat(" ", 50) + "some words in the middle of a line" + strings.Repeat(" ", 50))
	return []benchCase{
		{"gsub %s+", "gsub", []lua.LValue{text, lua.LString("%s+"), lua.LString(" ")}},
		{"gsub (%w+)=(%w+)", "gsub", []lua.LValue{text, lua.LString("(%w+)=(%w+)"), lua.LString("%2=%1")}},
		{"gsub %w+ func", "gsub", []lua.LValue{text, lua.LString("%w+"), nil}},
		{"find END%d+", "find", []lua.LValue{text, lua.LString("END%d+")}},
		{"find [%d]+$", "find", []lua.LValue{text, lua.LString("[%d]+$")}},
		{"find plain", "find", []lua.LValue{text, lua.LString("END42"), lua.LNumber(1), lua.LTrue}},
		{"gmatch %a+ loop", "local s = ...; local n = 0; for w in s:gmatch('%a+') do n = n + 1 end; return n", []lua.LValue{text}},
		{"match trim", "match", []lua.LValue{line, lua.LString("^%s*(.-)%s*$")}},
		{"match small", "match", []lua.LValue{lua.LString("key=value"), lua.LString("(%w+)=(%w+)")}},
		{"find small", "find", []lua.LValue{lua.LString("hello world"), lua.LString("o w.")}},
	}
}

// BenchmarkLua compares stock gopher-lua (gopher) with this package bound into
// gopher-lua (luapattern), calling the Lua functions as a script would.
func BenchmarkLua(b *testing.B) {
	for _, c := range benchCases() {
		for _, impl := range []string{"gopher", "luapattern"} {
			b.Run(c.name+"/"+impl, func(b *testing.B) {
				L := lua.NewState()
				defer L.Close()
				if impl == "luapattern" {
					installStringLib(L, Matcher{})
				}
				fn := benchFunction(b, L, c)
				args := append([]lua.LValue(nil), c.args...)
				for i, a := range args {
					if a == nil { // the replacement function of "gsub %w+ func"
						if err := L.DoString("return function(w) return w:upper() end"); err != nil {
							b.Fatal(err)
						}
						args[i] = L.Get(-1)
						L.Pop(1)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...); err != nil {
						b.Fatal(err)
					}
					L.SetTop(0)
				}
			})
		}
	}
}

func benchFunction(b *testing.B, L *lua.LState, c benchCase) lua.LValue {
	if !strings.Contains(c.fn, " ") {
		return L.GetField(L.GetGlobal("string"), c.fn)
	}
	fn, err := L.LoadString(c.fn)
	if err != nil {
		b.Fatal(err)
	}
	return fn
}

// BenchmarkDefaultStepLimit measures how long a catastrophic pattern runs, without a
// deadline, before the default step budget stops it.
func BenchmarkDefaultStepLimit(b *testing.B) {
	s := strings.Repeat("a", 3000)
	for i := 0; i < b.N; i++ {
		_, err := Matcher{}.Find(context.Background(), s, ".-.-.-b$", 1, false)
		if !errors.Is(err, ErrTooComplex) {
			b.Fatalf("err = %v, want ErrTooComplex", err)
		}
	}
}
