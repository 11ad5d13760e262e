package puremod

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

func TestReFunctions(t *testing.T) {
	tests := []struct{ body, want string }{
		// find: 1-based inclusive positions, then the captures.
		{`return re.find("hello world", [[o (w)]])`, `[5,7,"w"]`},
		{`return re.find("hello world", [[o w]])`, `[5,7]`},
		{`return re.find("hello", [[z]])`, `[null]`},
		{`return re.find("abab", "ab", 2)`, `[3,4]`},
		{`return re.find("abab", "ab", -2)`, `[3,4]`},
		{`return re.find("abab", "ab", -100)`, `[1,2]`},
		{`return re.find("abc", "", 10)`, `[4,3]`},
		{`return re.find("ab", [[(x)?b]])`, `[2,2,null]`},
		// init keeps the text before it in view.
		{`return re.find("xab", "^a", 2)`, `[null]`},
		{`return re.find("x\na", "(?m)^a", 3)`, `[3,3]`},
		{`return re.find("foo bar", [[\bo]], 2)`, `[null]`},
		{`return re.find("foo bar", [[\bbar]], 2)`, `[5,7]`},
		// positions are byte offsets; . is a character.
		{`return re.find("héllo", "l+")`, `[4,5]`},
		{`return re.find("héllo", "h.l")`, `[1,4]`},
		{`return re.match("日本語", "本.")`, `["本語"]`},
		// match: the whole match, the groups, or the named groups.
		{`return re.match("key=val", [[\w+]])`, `["key"]`},
		{`return re.match("key=val", [[(\w+)=(\w+)]])`, `["key","val"]`},
		{`return re.match("2024-05", [[(?P<year>\d+)-(?<month>\d+)(-(?P<day>\d+))?]])`, `[{"month":"05","year":"2024"}]`},
		{`return re.match("a1", [[(?P<l>[a-z])(\d)]])`, `[{"l":"a"}]`},
		{`return re.match("abc", "d")`, `[null]`},
		{`return re.match("aXbX", "X.", 2)`, `["Xb"]`},
		{`return re.match("aXbX", "X.", 3)`, `[null]`},
		{`return re.match("ABC", "(?i)b")`, `["B"]`},
		// gmatch
		{`local out = {} for w in re.gmatch("one two  three", [[\w+]]) do out[#out+1] = w end return out`, `[["one","two","three"]]`},
		{`local out = {} for k, v in re.gmatch("a=1, b=2", [[(\w)=(\d)]]) do out[#out+1] = k .. v end return out`, `[["a1","b2"]]`},
		{`local out = {} for m in re.gmatch("a=1, b=2", [[(?P<k>\w)=(?P<v>\d)]]) do out[#out+1] = m.k .. m.v end return out`, `[["a1","b2"]]`},
		{`local n = 0 for w in re.gmatch("abc", "x*") do n = n + 1 end return n`, `[4]`},
		{`local n = 0 for w in re.gmatch("ab cd", [[\b]]) do n = n + 1 end return n`, `[4]`},
		{`local out = {} for w in re.gmatch("héé", "") do out[#out+1] = w end return #out`, `[4]`},
		// gsub: templates, tables, functions, n, empty matches.
		{`return re.gsub("hello world", [[(\w+)]], "<$1>")`, `["\u003chello\u003e \u003cworld\u003e",2]`},
		{`return re.gsub("hello world", [[(?P<w>\w+)]], "${w}!")`, `["hello! world!",2]`},
		{`return re.gsub("ab", "(a)(b)", "${2}x$1$0")`, `["bxaab",1]`},
		{`return re.gsub("cost", "cost", "$$5")`, `["$5",1]`},
		{`return re.gsub("abc", "x*", "-")`, `["-a-b-c-",4]`},
		{`return re.gsub("abc", "", "-", 2)`, `["-a-bc",2]`},
		{`return re.gsub("aaa", "a", "b", 0)`, `["aaa",0]`},
		{`return re.gsub("a b c", " ", 7)`, `["a7b7c",2]`},
		{`return re.gsub("$x and $y", [[\$(\w)]], {x = "1", y = false})`, `["1 and $y",2]`},
		{`return re.gsub("cat dog", [[\w+]], {cat = 9})`, `["9 dog",2]`},
		{`return re.gsub("a1b2", [[\d]], function(d) return d * 2 end)`, `["a2b4",2]`},
		{`return re.gsub("k=v", [[(\w)=(\w)]], function(k, v) return v .. "=" .. k end)`, `["v=k",1]`},
		{`return re.gsub("k=v", [[(?P<a>\w)=(?P<b>\w)]], function(m) return m.b .. m.a end)`, `["vk",1]`},
		{`return re.gsub("keep", "e", function() return nil end)`, `["keep",2]`},
		{`return re.gsub("héllo", ".", "[$0]")`, `["[h][é][l][l][o]",5]`},
		{`return re.gsub("", "x*", "-")`, `["-",1]`},
		// split
		{`return re.split("a,b,,c", ",")`, `[["a","b","","c"]]`},
		{`return re.split("a,b,", ",")`, `[["a","b",""]]`},
		{`return re.split(",a", ",")`, `[["","a"]]`},
		{`return re.split("abc", "")`, `[["a","b","c"]]`},
		{`return re.split("héllo", "")`, `[["h","é","l","l","o"]]`},
		{`return re.split("", ",")`, `[[""]]`},
		{`return re.split("", "")`, `[[""]]`},
		{`return re.split("a1b22c", [[\d*]])`, `[["a","b","c"]]`},
		{`return re.split("a b  c d", " +", 3)`, `[["a","b","c d"]]`},
		{`return re.split("a b", " ", 1)`, `[["a b"]]`},
		{`return re.split("x(1)y", [[\((\d)\)]])`, `[["x","y"]]`},
		// escape and compile
		{`return re.escape("a.b*c[d]$")`, `["a\\.b\\*c\\[d\\]\\$"]`},
		{`return re.find("1+1=2", re.escape("1+1"))`, `[1,3]`},
		{`local rx = re.compile([[(\d+)]]) return rx.pattern, rx:match("x7"), rx:find("ab12")`, `["(\\d+)","7",3,4,"12"]`},
		{`local rx = re.compile(",") return rx:split("a,b"), rx:gsub("a,b", ";")`, `[["a","b"],"a;b",1]`},
		{`local rx = re.compile("o") local n = 0 for _ in rx:gmatch("foo") do n = n + 1 end return n`, `[2]`},
		{`local rx = re.compile("o") return rx:match("foo", -1), rx:find("foo", 3)`, `["o",3,3]`},
	}
	for _, tt := range tests {
		wantJSON(t, tt.body, tt.want)
	}
}

func TestReBadPatterns(t *testing.T) {
	for _, body := range []string{
		`return re.find("x", "(")`, `return re.match("x", "(")`, `return re.gmatch("x", "(")`,
		`return re.gsub("x", "(", "")`, `return re.split("x", "(")`, `return re.compile("(")`,
	} {
		wantJSON(t, body, `[null,"regex parse error: missing closing ): `+"`(`"+`","badpattern"]`)
	}
	wantJSON(t, `return re.find("x", "a{1001}")`, `[null,"regex parse error: invalid repeat count: `+"`{1001}`"+`","badpattern"]`)
	wantJSON(t, `return re.find("x", "(?<=a)b")`, `[null,"regex parse error: invalid named capture: `+"`(?\\u003c=a)b`"+`","badpattern"]`)
	wantJSON(t, `return re.find("x", ("a"):rep(16385))`, `[null,"the pattern is 16385 bytes, over the limit of 16384","badpattern"]`)
	// Short to write, large to run: 40 counted repeats of a class compile to 40,000
	// instructions.
	wantJSON(t, `return re.find("x", ("[a-z]{1000}"):rep(40))`, `[null,"the pattern compiles to 40002 instructions, over the limit of 32768","badpattern"]`)
	// A bad pattern is cached as such, and stays bad.
	wantJSON(t, `re.find("x", "[") return re.find("x", "[")`, `[null,"regex parse error: missing closing ]: `+"`[`"+`","badpattern"]`)
}

func TestReArgumentErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`re.find()`, "bad argument #1 to 're.find' (string expected, got nil)"},
		{`re.find("s")`, "bad argument #2 to 're.find' (string expected, got nil)"},
		{`re.find("s", "p", "1")`, "bad argument #3 to 're.find' (number expected, got string)"},
		{`re.find("s", "p", 1.5)`, "bad argument #3 to 're.find' (whole number expected, got 1.5)"},
		{`re.match(1, "p")`, "bad argument #1 to 're.match' (string expected, got number)"},
		{`re.gmatch("s", {})`, "bad argument #2 to 're.gmatch' (string expected, got table)"},
		{`re.gsub("s", "p")`, "bad argument #3 to 're.gsub' (string, table or function expected, got nil)"},
		{`re.gsub("s", "p", true)`, "bad argument #3 to 're.gsub' (string, table or function expected, got boolean)"},
		{`re.gsub("s", "p", "", -1)`, "bad argument #4 to 're.gsub' (non-negative number expected, got -1)"},
		{`re.gsub("s", "(p)", "$2")`, "bad argument #3 to 're.gsub' (the replacement refers to group 2, but the pattern has 1)"},
		{`re.gsub("s", "(p)", "$1x")`, `bad argument #3 to 're.gsub' (the replacement refers to group '1x', which the pattern does not name: write ${1}x for group 1 followed by "x")`},
		{`re.gsub("s", "(?P<n>p)", "$m")`, "bad argument #3 to 're.gsub' (the replacement refers to group 'm', which the pattern does not name)"},
		{`re.gsub("s", "p", "cost: $5")`, "bad argument #3 to 're.gsub' (the replacement refers to group 5, but the pattern has 0)"},
		{`re.gsub("s", "p", "a $ b")`, "bad argument #3 to 're.gsub' (the '$' at byte 3 of the replacement starts no group reference: write $$ for a dollar sign)"},
		{`re.gsub("s", "p", "${1")`, "bad argument #3 to 're.gsub' (the '$' at byte 1 of the replacement starts no group reference: write $$ for a dollar sign)"},
		{`re.gsub("s", "s", {s = {}})`, "re.gsub: invalid replacement value (a table)"},
		{`re.gsub("s", "s", function() return true end)`, "re.gsub: invalid replacement value (a boolean)"},
		{`re.split("s", "p", 0)`, "bad argument #3 to 're.split' (positive number expected, got 0)"},
		{`re.escape(nil)`, "bad argument #1 to 're.escape' (string expected, got nil)"},
		{`re.compile()`, "bad argument #1 to 're.compile' (string expected, got nil)"},
		{`re.compile("x").find("abc")`, "bad argument #1 to 'rx:find' (compiled pattern expected, got string: call it as rx:find(...))"},
		{`local rx = re.compile("x") rx:find()`, "bad argument #2 to 'rx:find' (string expected, got nil)"},
		{`local rx = re.compile("x") rx:gsub("s")`, "bad argument #3 to 'rx:gsub' (string, table or function expected, got nil)"},
	}
	for _, tt := range tests {
		raises(t, tt.body, tt.want)
	}
}

// TestReSizeBound: a subject, and a result, over the sandbox's string limit raise
// an error naming the limit.
func TestReSizeBound(t *testing.T) {
	limits := bindings.Limits{MaxStringBytes: 1000}
	// A string over the limit cannot be made in Lua: the host gives it.
	big := &bindings.Module{Name: "big", Values: map[string]any{"s": strings.Repeat("a", 1200)}}
	check := func(body, want string) {
		t.Helper()
		_, err := runConfig(t, nil, bindings.Config{Limits: limits, Modules: append(Modules(), big)}, body)
		var se *bindings.ScriptError
		if !errors.As(err, &se) || se.Message != want {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
	check(`return re.find(big.s, "b")`, "re.find: the subject is 1200 bytes, over the limit of 1000")
	check(`return re.compile("b"):split(big.s)`, "rx:split: the subject is 1200 bytes, over the limit of 1000")
	check(`return re.gsub(("a"):rep(600), "a", "bb")`, "re.gsub: the result would be over 1000 bytes, the limit")
	check(`return re.gsub(("a"):rep(600), "a", function() return "bb" end)`, "re.gsub: the result would be over 1000 bytes, the limit")
	check(`return re.escape(("."):rep(600))`, "re.escape: the result would be over 1000 bytes, the limit")
	out, err := runLimited(t, limits, `return #re.gsub(("a"):rep(1000), "a", "b")`)
	if err != nil || jsonOf(t, out) != `[1000]` {
		t.Errorf("a result at the limit: %v %v", out, err)
	}
}

// iterPatterns and iterSubjects are matched both by matchIter and by Go's FindAll:
// the two must find the same matches, through either path of the matcher.
var (
	iterPatterns = []string{
		``, `x*`, `a`, `a*`, `a+?`, `(a)|b`, `\b`, `\B`, `^`, `$`, `(?m)^`, `(?m)$`, `^a`, `(?m)^\w+`,
		`\bfoo\b`, `\w+`, `(\w)(\d)?`, `.`, `(?s).`, `[^a]`, `é|e`, `\pL+`, `(?i)AB`, `a|ab|abc`,
		`(a*)(b*)`, `foo\w*`, `(?P<x>o)+`, `\Bo`, `o\b`, `\Ao`, `(?U)a+`, `ab\b`,
		`\b(?P<w>\w)`, `(?m)^(\w)(\w)?`, `\b\Q.\E?o`, `(?i)\bA`, `(?U)\b\w+`,
	}
	iterSubjects = []string{
		"", "a", "aaa", "ab ab", "foo bar foobar", "a\nab\n\nb", "héllo wörld", "\xffa\xfe", "x y", "aabbab", "AbaB",
		"o foo oo", "a1b22c333",
	}
)

func TestMatchIterEqualsFindAll(t *testing.T) {
	for _, m := range []matcher{{inlineWork: defaultInlineWork}, {inlineWork: -1}} {
		for _, p := range iterPatterns {
			c, err := compilePattern(p)
			if err != nil {
				t.Fatalf("%q: %v", p, err)
			}
			rx := regexp.MustCompile(p)
			for _, s := range iterSubjects {
				want := rx.FindAllStringSubmatchIndex(s, -1)
				var got [][]int
				it := newMatchIter(m, c, s)
				for {
					loc, err := it.next(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					if loc == nil {
						break
					}
					got = append(got, loc)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
					t.Errorf("inline %d: %q in %q:\n got  %v\n want %v", m.inlineWork, p, s, got, want)
				}
			}
		}
	}
}

// TestFindAtSeesTheTextBefore: a search from a position finds what Go finds in the
// whole subject from there, through both paths.
func TestFindAtSeesTheTextBefore(t *testing.T) {
	for _, m := range []matcher{{inlineWork: defaultInlineWork}, {inlineWork: -1}} {
		for _, p := range iterPatterns {
			c, _ := compilePattern(p)
			rx := regexp.MustCompile(p)
			for _, s := range iterSubjects {
				all := rx.FindAllStringSubmatchIndex(s, -1)
				for pos := 0; pos <= len(s); pos++ {
					got, err := m.findAt(context.Background(), c, s, pos)
					if err != nil {
						t.Fatal(err)
					}
					// The leftmost match from pos is Go's first match starting there or
					// later when Go's search reached pos unhindered: pos starts a
					// character, and no match Go took ends at pos or later (one ending at
					// pos hides an empty match there).
					if pos < len(s) && !utf8.RuneStart(s[pos]) {
						continue
					}
					i := slices.IndexFunc(all, func(loc []int) bool { return loc[0] >= pos })
					if i > 0 && all[i-1][1] >= pos {
						continue
					}
					if i < 0 {
						if got != nil && (len(all) == 0 || all[len(all)-1][1] < pos) {
							t.Errorf("inline %d: %q in %q from %d: got %v, want no match", m.inlineWork, p, s, pos, got)
						}
						continue
					}
					if fmt.Sprint(got) != fmt.Sprint(all[i]) {
						t.Errorf("inline %d: %q in %q from %d: got %v, want %v", m.inlineWork, p, s, pos, got, all[i])
					}
				}
			}
		}
	}
}

// TestReReaderPathFromLua: the functions give the same results when every match
// reads the subject through the context-checking reader.
func TestReReaderPathFromLua(t *testing.T) {
	mods := []*bindings.Module{newRe(reLimits{inlineWork: -1})}
	out, err := run(t, nil, mods, `local t = {}
t[1] = table.concat({re.find("foo bar", [[\bbar]], 2)}, ",")
t[2] = (re.gsub("héllo wörld", [[\b\w]], "<$0>"))
t[3] = table.concat(re.split("a1b22c", [[\d*]]), ",")
t[4] = re.match("x\nab", "(?m)^a(.)")
return t`)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, out); got != `[["5,7","\u003ch\u003eé\u003cl\u003elo \u003cw\u003eö\u003cr\u003eld","a,b,c","b"]]` {
		t.Errorf("got %s", got)
	}
}

// TestReStopsWithTheCall: a match that would take minutes stops when the call's
// context ends in its middle, with the call's usual error.
func TestReStopsWithTheCall(t *testing.T) {
	for _, body := range []string{
		`return re.find(("ab"):rep(524288), [[[\p{L}\p{N}]{500}x]])`,
		`return re.gsub(("ab"):rep(524288), [[[\p{L}\p{N}]{500}x]], "")`,
		// Many short matches, each quick, in one Go loop.
		`return #re.gsub(("a"):rep(4194304), "", "")`,
	} {
		// vm.Call asks once before running; the match asks next.
		_, err := run(t, newFlipCtx(3), nil, body)
		var se *bindings.ScriptError
		if !errors.As(err, &se) || se.Message != "execution stopped: cancelled" || !errors.Is(err, context.Canceled) {
			t.Errorf("%.40s: error %v", body, err)
		}
	}
}

func TestPatternCacheIsBounded(t *testing.T) {
	pc := newPatternCache(cacheEntries, cacheInstructions)
	for i := range cacheEntries + 10 {
		if _, err := pc.get(fmt.Sprintf("a%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := cacheSize(pc); n != cacheEntries {
		t.Errorf("%d entries, want %d", n, cacheEntries)
	}
	if _, ok := pc.byText["a0"]; ok {
		t.Error("the least recently used pattern is still cached")
	}
	// Large programs: the weight bound evicts before the count does.
	pc = newPatternCache(100, 5000)
	for i := range 10 {
		if _, err := pc.get(fmt.Sprintf(`\pL{1000}%d`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if n, w := cacheSize(pc); n != 4 || w > 5000 {
		t.Errorf("%d entries weighing %d instructions, want 4 within 5000", n, w)
	}
	// A hit moves a pattern to the front.
	pc = newPatternCache(3, cacheInstructions)
	first, _ := pc.get("first")
	pc.get("second")
	pc.get("third")
	pc.get("first")
	pc.get("fourth")
	if again, _ := pc.get("first"); again != first {
		t.Error("a pattern used recently was evicted")
	}
	if _, ok := pc.byText["second"]; ok {
		t.Error("the least recently used pattern is still cached")
	}
}

// cacheSize returns the number of patterns a cache holds and their weight.
func cacheSize(pc *patternCache) (entries, weight int) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.order.Len(), pc.weight
}

// BenchmarkReFindCached is re.find from Lua with a pattern in the cache; the
// other benchmarks split its cost: the cache lookup alone, and the match alone.
func BenchmarkReFindCached(b *testing.B) {
	prog, err := bindings.Compile("b.lua", []byte(`local re = require("re")
return function(s) return re.find(s, [[(\w+)@(\w+)\.com]]) end`), bindings.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	vm := bindings.NewVM(bindings.Config{Modules: Modules()})
	defer vm.Close()
	if err := vm.Run(prog); err != nil {
		b.Fatal(err)
	}
	call := &bindings.Call{Context: context.Background(), Access: bindings.AccessRead}
	arg := lua.LString("write to someone@example.com today")
	for b.Loop() {
		if _, err := vm.Call(call, vm.Main, arg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPatternCacheHit(b *testing.B) {
	pc := newPatternCache(cacheEntries, cacheInstructions)
	pc.get(`(\w+)@(\w+)\.com`)
	for b.Loop() {
		pc.get(`(\w+)@(\w+)\.com`)
	}
}

func BenchmarkGoFindStringSubmatchIndex(b *testing.B) {
	rx := regexp.MustCompile(`(\w+)@(\w+)\.com`)
	for b.Loop() {
		rx.FindStringSubmatchIndex("write to someone@example.com today")
	}
}
