package luapattern

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzMatch compares this package with stock gopher-lua on small random subjects and
// patterns, through the same Lua code. It skips what gopher-lua is known to do
// differently from Lua 5.1 (see gopherComparable and the notes in cases_test.go) and
// inputs on which backtracking would take long; TestRandomOraclePUC covers all of it
// against Lua 5.1 itself.
func FuzzMatch(f *testing.F) {
	for _, c := range []struct {
		s, p string
		init int
	}{
		{"hello world", "(%w+)", 1},
		{"key = value", "^(%w+)%s*=%s*(%w+)$", 1},
		{"a(b(c)d)e", "%b()", 2},
		{"abcabc", "(a)(b)(c)%3", -4},
		{"  x  ", "^%s*(.-)%s*$", 1},
		{"a,b,,c", "([^,]*)", 1},
		{"]]b", "[^]]+", 1},
		{"aaa", "a-b", 0},
		{"x1y22z333", "()%d+()", 3},
		{"", "", 1},
	} {
		f.Add(c.s, c.p, c.init)
	}
	f.Fuzz(func(t *testing.T, s, p string, init int) {
		// tooComplex runs this package on every input, comparable or not.
		if len(s) > 64 || len(p) > 24 || tooComplex(s, p) || !gopherComparable(p) {
			return
		}
		exprs := comparableExprs(s, p, init)
		stock := runGopher(t, exprs, nil)
		ours := runGopher(t, exprs, &Matcher{})
		for i := range exprs {
			want := stock[i]
			if want == "" {
				want = "nil" // gopher-lua's string.match returns nothing instead of nil
			}
			if ours[i] != want {
				t.Errorf("%s\n got: %s\ngopher-lua: %s", exprs[i], ours[i], want)
			}
		}
	})
}

// comparableExprs returns the calls on which gopher-lua and Lua 5.1 agree for s, p and
// init, given that p passed gopherComparable.
func comparableExprs(s, p string, init int) []string {
	qs, qp := luaQuote(s), luaQuote(p)
	var exprs []string
	// gopher-lua does not clamp init to the subject and ignores it for "".
	if init <= len(s)+1 && (p != "" || init == 1) {
		exprs = append(exprs,
			fmt.Sprintf("string.find(%s, %s, %d)", qs, qp, init),
			fmt.Sprintf("string.match(%s, %s, %d)", qs, qp, init))
	}
	// gopher-lua's gmatch anchors on '^'.
	if !strings.HasPrefix(p, "^") {
		exprs = append(exprs, fmt.Sprintf("gm(%s, %s)", qs, qp))
	}
	exprs = append(exprs,
		fmt.Sprintf("string.gsub(%s, %s, %q)", qs, qp, "<%0|%1>"),
		fmt.Sprintf("string.gsub(%s, %s, %q)", qs, qp, "%%%2"),
		fmt.Sprintf("string.gsub(%s, %s, function(...) return select('#', ...) .. tostring((...)) end)", qs, qp),
		fmt.Sprintf("string.gsub(%s, %s, {a = 'A', [1] = 'one'})", qs, qp))
	// gopher-lua's gsub replaces everything for n <= 0.
	if n := init%5 + 1; n >= 1 {
		exprs = append(exprs, fmt.Sprintf("string.gsub(%s, %s, 'x', %d)", qs, qp, n))
	}
	return exprs
}

// gopherComparable reports whether gopher-lua handles p as Lua 5.1 does. It rejects
// patterns that Lua would reject somewhere (gopher-lua rejects them eagerly and with
// other messages), unfinished captures (gopher-lua rejects them), back-references to
// position captures, frontiers (gopher-lua has none) and sets where a '-' meets an
// escape or another range (gopher-lua builds other ranges).
func gopherComparable(p string) bool {
	for _, anchor := range []bool{true, false} {
		prog := compile(p, anchor)
		for _, o := range prog.ops {
			if o.kind == opError || o.kind == opNever || o.kind == opFrontier {
				return false
			}
		}
		for _, k := range prog.caps {
			if k == capUnfinished {
				return false
			}
		}
	}
	for _, body := range setBodies(p) {
		if strings.Count(body, "-") > 1 || strings.Contains(body, "-") && strings.Contains(body, "%") {
			return false
		}
	}
	return true
}

// setBodies returns the insides of the bracket sets of a well-formed pattern.
func setBodies(p string) []string {
	c := &compiler{pat: p}
	var bodies []string
	for i := 0; i < len(p); {
		switch {
		case p[i] == '%' && i+1 < len(p) && p[i+1] == 'b':
			i += 4
		case p[i] == '%':
			i += 2
		case p[i] == '[':
			end, msg := c.classEnd(i)
			if msg != "" {
				return bodies
			}
			bodies = append(bodies, p[i+1:end-1])
			i = end
		default:
			i++
		}
	}
	return bodies
}

// tooComplex reports whether some call on s and p takes more than a few thousand
// steps, which gopher-lua, without a budget, could take long over.
func tooComplex(s, p string) bool {
	m := Matcher{Limits: Limits{MaxSteps: 20000}}
	ctx := context.Background()
	_, err1 := m.Find(ctx, s, p, 1, false)
	_, _, err2 := m.Gsub(ctx, s, p, "", AllMatches)
	it := m.Gmatch(s, p)
	var err3 error
	for r := (&Result{}); r != nil && err3 == nil; {
		r, err3 = it.Next(ctx)
	}
	for _, err := range []error{err1, err2, err3} {
		if errors.Is(err, ErrTooComplex) {
			return true
		}
	}
	return false
}
