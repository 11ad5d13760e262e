package luapattern

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Pieces of random patterns: every kind of item, quantifier, anchor and capture, and
// malformed ones.
var patternPieces = []string{
	"a", "b", "c", "1", " ", ".", "%a", "%d", "%s", "%w", "%p", "%W", "%z", "%%", "%.",
	"[ab]", "[^a]", "[a-c]", "[%d%s]", "[]a]", "[^]b]", "[a-]", "[%a-]",
	"(", ")", "()", "*", "+", "-", "?", "^", "$",
	"%b()", "%b[]", "%f[%w]", "%f[%W]", "%1", "%2", "%", "[", "]", "x", "%f", "%b", "%0",
}

// Bytes of random subjects.
const subjectBytes = "aabbc1  ()[]-x%.\t"

// Replacement strings for random gsub calls (no final '%': see the package doc).
var templates = []string{"<%0>", "%1", "[%2]", "x", "%%", "%1%1", "%a"}

func randomPattern(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(7); n >= 0; n-- {
		b.WriteString(patternPieces[r.IntN(len(patternPieces))])
	}
	return b.String()
}

func randomSubject(r *rand.Rand) string {
	b := make([]byte, r.IntN(12))
	for i := range b {
		b[i] = subjectBytes[r.IntN(len(subjectBytes))]
	}
	return string(b)
}

// luaQuote returns s as a Lua string literal readable by every Lua version.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// randomExpr returns a call of one of the four functions with random arguments.
func randomExpr(r *rand.Rand) string {
	s, p := luaQuote(randomSubject(r)), luaQuote(randomPattern(r))
	init := r.IntN(17) - 8
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("string.find(%s, %s, %d)", s, p, init)
	case 1:
		return fmt.Sprintf("string.match(%s, %s, %d)", s, p, init)
	case 2:
		return fmt.Sprintf("gm(%s, %s)", s, p)
	case 3:
		return fmt.Sprintf("string.gsub(%s, %s, %s)", s, p, luaQuote(templates[r.IntN(len(templates))]))
	case 4:
		return fmt.Sprintf("string.gsub(%s, %s, %s, %d)", s, p, luaQuote(templates[r.IntN(len(templates))]), init)
	default:
		return fmt.Sprintf("string.gsub(%s, %s, function(...) return select('#', ...) .. tostring((...)) end)", s, p)
	}
}

// TestRandomOraclePUC compares thousands of random calls with PUC Lua 5.1 when it is
// installed.
func TestRandomOraclePUC(t *testing.T) {
	bin := lua51(t)
	n := 10000
	if testing.Short() {
		n = 1000
	}
	r := rand.New(rand.NewPCG(1, 2))
	exprs := make([]string, n)
	for i := range exprs {
		exprs[i] = randomExpr(r)
	}
	puc := runPUC(t, bin, exprs)
	ours := runGopher(t, exprs, &Matcher{})
	bad := 0
	for i := range exprs {
		if ours[i] != puc[i] {
			bad++
			if bad <= 20 {
				t.Errorf("%s\n got: %s\nlua5.1: %s", exprs[i], ours[i], puc[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d random calls differ from Lua 5.1", bad, n)
	}
}
