package hostile

import (
	"testing"
	"time"
)

// TestDenialOfServicePatterns covers D10 and D11. It runs last (this file sorts last),
// because a pattern engine that cannot be interrupted leaves a goroutine spinning
// after the test gives up on it.
func TestDenialOfServicePatterns(t *testing.T) {
	runRows(t, patternRows())
}

func patternRows() []row {
	// The deadline is 300 ms; every call must end by 550 ms with an error.
	cfg := hostConfig{timeout: 300 * time.Millisecond}
	stopped := errAt("pattern", "too complex", "timed out", "steps", "limit")
	patterns := func(name, body string) variant {
		return variant{name: name, cfg: cfg, body: body, want: stopped, run: func(t *testing.T, h *host) {
			h.probe(1)
			// Wait at most one second past the bound before declaring the call hung.
			r, took := h.call("hostile", h.paths(nil), callOpts{hardLimit: h.timeout + stopBound})
			h.check(r, took, stopped)
			if r != nil {
				t.Logf("%v: %.200q", took, r.Block.Content.String())
			}
			h.healthy()
			h.probe(0)
		}}
	}
	return []row{
		{"D11", []variant{
			patterns("gsub-callback", `local s = ("a"):rep(8e6) return #(s:gsub(".", function(c) return c end))`),
			patterns("gmatch-loop", `local s = ("a"):rep(8e6) local n = 0 for c in s:gmatch(".") do n = n + 1 end return n`),
			patterns("gsub-callback-pattern", `local s = ("ab"):rep(4e6) return #(s:gsub("(a)(b)", function(a, b) return b .. a end))`),
			patterns("gsub-amplify", `return #(("a"):rep(1e7):gsub("a", "%0%0%0"))`),
			patterns("gsub-table", `return #(("a"):rep(1.6e7):gsub(".", {a = "bb"}))`),
			// RE2 through the re module: millions of short matches in one Go loop.
			patterns("re-gsub-empty", `return #(require("re").gsub(("a"):rep(8e6), "", ""))`),
			patterns("re-split-empty", `return #require("re").split(("a"):rep(8e6), "")`),
			patterns("re-gsub-callback", `return #(require("re").gsub(("a"):rep(8e6), ".", function(c) return c end))`),
		}},
		{"D10", []variant{
			patterns("find", `return string.find(("a"):rep(3000), ".-.-.-b$")`),
			patterns("match", `return string.match(("a"):rep(3000), ".-.-.-b$")`),
			patterns("gmatch", `for m in string.gmatch(("a"):rep(3000), ".-.-.-b$") do return m end return "none"`),
			patterns("gsub", `return (string.gsub(("a"):rep(3000), ".-.-.-b$", ""))`),
			patterns("captures", `return string.find(("a"):rep(3000), "(.-)(.-)(.-)(.-)b$")`),
			patterns("method", `return (("a"):rep(3000)):find(".-.-.-b$")`),
			patterns("optional-chain", `return string.find(("a"):rep(40), ("a?"):rep(40) .. ("a"):rep(40) .. "b")`),
			patterns("star-chain", `return string.find(("a"):rep(5000), ("a*"):rep(30) .. "b")`),
			patterns("long-pattern", `return string.find(("a"):rep(1e4), ("a-"):rep(5e3) .. "b")`),
			// RE2 never backtracks, but a large program over a long subject is slow
			// too (minutes here): the match must stop at the deadline.
			patterns("re-find", `return require("re").find(("ab"):rep(5e5), "[\\p{L}\\p{N}]{500}x")`),
			patterns("re-gmatch", `local re = require("re") for m in re.gmatch(("ab"):rep(5e5), "[\\p{L}\\p{N}]{500}x") do return m end return "none"`),
			{name: "pcall", cfg: cfg, body: `local ok, e = pcall(string.find, ("a"):rep(3000), ".-.-.-b$") while true do end`, want: stopped},
		}},
	}
}
