package puremod

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// reLimits tune the re module; the zero value is the default.
type reLimits struct {
	// inlineWork is matcher.inlineWork; 0 means defaultInlineWork, negative that
	// every match reads through a ctxReader (for tests of that path).
	inlineWork int
}

// reModule is the state the re module's functions share: the compiled patterns.
type reModule struct {
	cache *patternCache
	m     matcher
}

// A reOp is one of the functions that take a subject and a pattern: re.find(s,
// pattern, ...) and rx:find(s, ...) alike. Its own arguments start at index 3 in
// both forms. It checks them, then calls pattern for the compiled pattern.
type reOp func(r *reModule, L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int

var reOps = map[string]reOp{
	"find":   (*reModule).find,
	"match":  (*reModule).match,
	"gmatch": (*reModule).gmatch,
	"gsub":   (*reModule).gsub,
	"split":  (*reModule).split,
}

func newRe(lim reLimits) *bindings.Module {
	r := &reModule{cache: newPatternCache(cacheEntries, cacheInstructions), m: matcher{inlineWork: lim.inlineWork}}
	if r.m.inlineWork == 0 {
		r.m.inlineWork = defaultInlineWork
	}
	funcs := map[string]lua.LGFunction{
		"escape":  r.escape,
		"compile": r.compile,
	}
	for name, op := range reOps {
		funcs[name] = r.withPattern("re."+name, op)
	}
	return &bindings.Module{Name: "re", Doc: "regular expressions (RE2: linear time)", Pure: true, Funcs: funcs}
}

// withPattern makes op a module function: re.NAME(s, pattern, ...).
func (r *reModule) withPattern(fn string, op reOp) lua.LGFunction {
	return func(L *lua.LState) int {
		a := bindings.NewArgs(L, fn)
		s := a.String(1)
		p := a.String(2)
		checkSize(L, fn, "subject", len(s))
		return op(r, L, a, s, func() (*compiled, error) { return r.cache.get(p) })
	}
}

// method makes op a method of the compiled pattern self: rx:NAME(s, ...).
func (r *reModule) method(self *lua.LTable, c *compiled, name string, op reOp) lua.LGFunction {
	fn := "rx:" + name
	return func(L *lua.LState) int {
		a := bindings.NewArgs(L, fn)
		if L.Get(1) != self {
			a.Error(1, fmt.Sprintf("compiled pattern expected, got %s: call it as rx:%s(...)", L.Get(1).Type(), name))
		}
		s := a.String(2)
		checkSize(L, fn, "subject", len(s))
		return op(r, L, a, s, func() (*compiled, error) { return c, nil })
	}
}

// compile is re.compile(pattern): a table with the pattern and the methods.
func (r *reModule) compile(L *lua.LState) int {
	p := bindings.NewArgs(L, "re.compile").String(1)
	c, err := r.cache.get(p)
	if err != nil {
		return fail(L, codeBadPattern, "%v", err)
	}
	t := L.CreateTable(0, len(reOps)+1)
	t.RawSetString("pattern", lua.LString(p))
	for name, op := range reOps {
		t.RawSetString(name, L.NewFunction(r.method(t, c, name, op)))
	}
	L.Push(t)
	return 1
}

func (r *reModule) escape(L *lua.LState) int {
	s := bindings.NewArgs(L, "re.escape").String(1)
	q := regexp.QuoteMeta(s)
	if len(q) > bindings.VMOf(L).Limits().MaxStringBytes {
		tooLong(L, "re.escape")
	}
	L.Push(lua.LString(q))
	return 1
}

// startOf turns a Lua init (1-based, negative from the end) into a byte offset in
// a subject of n bytes, clamped into [0, n] as Lua 5.1's string.find does.
func startOf(init, n int) int {
	if init < 0 {
		init += n + 1
	}
	return min(max(init-1, 0), n)
}

// stopped raises the error of a match that the call's end interrupted.
func stopped(L *lua.LState, fn string, err error) {
	L.RaiseError("%s: stopped: %v", fn, err)
}

func (r *reModule) find(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int {
	return r.search(L, a, s, pattern, func(c *compiled, loc []int) int {
		L.Push(lua.LNumber(loc[0] + 1))
		L.Push(lua.LNumber(loc[1]))
		return 2 + pushCaptures(L, c, s, loc, false)
	})
}

func (r *reModule) match(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int {
	return r.search(L, a, s, pattern, func(c *compiled, loc []int) int {
		return pushCaptures(L, c, s, loc, true)
	})
}

// search finds the first match of pattern in s from the init of argument 3 and
// pushes what found makes of it, or nil when there is none; a pattern that does not
// compile fails with "badpattern".
func (r *reModule) search(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error), found func(c *compiled, loc []int) int) int {
	init := a.OptInt(3, 1)
	c, err := pattern()
	if err != nil {
		return fail(L, codeBadPattern, "%v", err)
	}
	loc, err := r.m.findAt(L.Context(), c, s, startOf(init, len(s)))
	if err != nil {
		stopped(L, a.Fn, err)
	}
	if loc == nil {
		L.Push(lua.LNil)
		return 1
	}
	return found(c, loc)
}

func (r *reModule) gmatch(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int {
	c, err := pattern()
	if err != nil {
		return fail(L, codeBadPattern, "%v", err)
	}
	it := newMatchIter(r.m, c, s)
	fn := a.Fn
	L.Push(L.NewFunction(func(L *lua.LState) int {
		loc, err := it.next(L.Context())
		if err != nil {
			stopped(L, fn, err)
		}
		if loc == nil {
			return 0
		}
		return pushCaptures(L, c, s, loc, true)
	}))
	return 1
}

func (r *reModule) gsub(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int {
	repl := L.Get(3)
	switch repl.(type) {
	case lua.LString, lua.LNumber, *lua.LTable, *lua.LFunction:
	default:
		a.Error(3, "string, table or function expected, got "+repl.Type().String())
	}
	n := a.OptInt(4, -1)
	if L.Get(4) != lua.LNil && n < 0 {
		a.Error(4, fmt.Sprintf("non-negative number expected, got %d", n))
	}
	c, err := pattern()
	if err != nil {
		return fail(L, codeBadPattern, "%v", err)
	}
	var tmpl template
	isTemplate := repl.Type() == lua.LTString || repl.Type() == lua.LTNumber
	if isTemplate {
		if tmpl, err = compileTemplate(lua.LVAsString(repl), c); err != nil {
			a.Error(3, err.Error())
		}
	}
	limit := bindings.VMOf(L).Limits().MaxStringBytes
	it := newMatchIter(r.m, c, s)
	var b strings.Builder
	last, count := 0, 0
	for n < 0 || count < n {
		loc, err := it.next(L.Context())
		if err != nil {
			stopped(L, a.Fn, err)
		}
		if loc == nil {
			break
		}
		count++
		b.WriteString(s[last:loc[0]])
		last = loc[1]
		if isTemplate {
			if b.Len()+tmpl.size(loc) > limit {
				tooLong(L, a.Fn)
			}
			tmpl.expand(&b, s, loc)
			continue
		}
		var v lua.LValue
		if t, ok := repl.(*lua.LTable); ok {
			key := lua.LValue(lua.LString(s[loc[0]:loc[1]]))
			if c.nsub > 0 {
				key = lua.LNil
				if loc[2] >= 0 {
					key = lua.LString(s[loc[2]:loc[3]])
				}
			}
			v = L.GetTable(t, key)
		} else {
			L.Push(repl)
			L.Call(pushCaptures(L, c, s, loc, true), 1)
			v = L.Get(-1)
			L.Pop(1)
		}
		switch v := v.(type) {
		case *lua.LNilType:
			b.WriteString(s[loc[0]:loc[1]])
		case lua.LBool:
			if v {
				L.RaiseError("%s: invalid replacement value (a boolean)", a.Fn)
			}
			b.WriteString(s[loc[0]:loc[1]])
		case lua.LString, lua.LNumber:
			b.WriteString(v.String())
		default:
			L.RaiseError("%s: invalid replacement value (a %s)", a.Fn, v.Type())
		}
		if b.Len() > limit {
			tooLong(L, a.Fn)
		}
	}
	if b.Len()+len(s)-last > limit {
		tooLong(L, a.Fn)
	}
	b.WriteString(s[last:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(count))
	return 2
}

func (r *reModule) split(L *lua.LState, a bindings.Args, s string, pattern func() (*compiled, error)) int {
	n := a.OptInt(3, -1)
	if L.Get(3) != lua.LNil && n < 1 {
		a.Error(3, fmt.Sprintf("positive number expected, got %d", n))
	}
	c, err := pattern()
	if err != nil {
		return fail(L, codeBadPattern, "%v", err)
	}
	pieces, _ := bindings.VMOf(L).ToLua([]any{})
	t := pieces.(*lua.LTable)
	it := newMatchIter(r.m, c, s)
	beg := 0
	for n < 0 || t.Len() < n-1 {
		loc, err := it.next(L.Context())
		if err != nil {
			stopped(L, a.Fn, err)
		}
		if loc == nil {
			break
		}
		if loc[1] == 0 || loc[0] == len(s) {
			continue // an empty match at the start or the end splits nothing off
		}
		t.Append(lua.LString(s[beg:loc[0]]))
		beg = loc[1]
	}
	t.Append(lua.LString(s[beg:]))
	L.Push(t)
	return 1
}

// pushCaptures pushes the captures of the match loc of c in s, as the functions
// return them: one value per group (nil for a group that took no part), or, when
// the pattern names a group, one table of the named groups by name (the unnamed ones
// are left out, so that the table is a JSON object). A pattern without groups gives the whole match when whole is set
// (match, gmatch, gsub), nothing otherwise (find). It returns the number pushed.
func pushCaptures(L *lua.LState, c *compiled, s string, loc []int, whole bool) int {
	switch {
	case c.named:
		t := L.CreateTable(0, c.nsub)
		for g := 1; g <= c.nsub; g++ {
			if name := c.names[g]; name != "" && loc[2*g] >= 0 {
				t.RawSetString(name, lua.LString(s[loc[2*g]:loc[2*g+1]]))
			}
		}
		L.Push(t)
		return 1
	case c.nsub == 0:
		if !whole {
			return 0
		}
		L.Push(lua.LString(s[loc[0]:loc[1]]))
		return 1
	}
	for g := 1; g <= c.nsub; g++ {
		if loc[2*g] < 0 {
			L.Push(lua.LNil)
		} else {
			L.Push(lua.LString(s[loc[2*g]:loc[2*g+1]]))
		}
	}
	return c.nsub
}
