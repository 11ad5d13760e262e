package luapattern

import (
	"testing"
)

func caseExprs() []string {
	exprs := make([]string, len(diffCases))
	for i, c := range diffCases {
		exprs[i] = c.expr
	}
	return exprs
}

// TestDifferential runs every case through stock gopher-lua and through this package
// bound into gopher-lua, and requires the same results, error messages included.
// Where gopher-lua departs from Lua 5.1 the case holds Lua 5.1's result and says why.
func TestDifferential(t *testing.T) {
	exprs := caseExprs()
	stock := runGopher(t, exprs, nil)
	ours := runGopher(t, exprs, &Matcher{})
	agree := 0
	for i, c := range diffCases {
		want := c.want
		if want == "" {
			want = stock[i]
			if want == "" { // gopher-lua's string.match returns nothing instead of nil
				want = "nil"
			}
			agree++
		} else if stock[i] == want {
			t.Logf("%s: gopher-lua now gives %s too; the note %q may be stale", c.expr, want, c.note)
		}
		if ours[i] != want {
			t.Errorf("%s\n got: %s\nwant: %s (gopher-lua: %s)", c.expr, ours[i], want, stock[i])
		}
	}
	t.Logf("%d cases, %d identical to gopher-lua, %d documented differences", len(diffCases), agree, len(diffCases)-agree)
}

// TestOraclePUC runs every case through PUC Lua 5.1 when it is installed and requires
// this package's results to be Lua 5.1's, except for the documented differences.
func TestOraclePUC(t *testing.T) {
	bin := lua51(t)
	exprs := caseExprs()
	puc := runPUC(t, bin, exprs)
	ours := runGopher(t, exprs, &Matcher{})
	for i, c := range diffCases {
		switch {
		case c.noPUC && ours[i] == puc[i]:
			t.Errorf("%s: marked as differing from Lua 5.1 but both give %s", c.expr, puc[i])
		case !c.noPUC && ours[i] != puc[i]:
			t.Errorf("%s\n got: %s\nlua5.1: %s", c.expr, ours[i], puc[i])
		}
	}
}
