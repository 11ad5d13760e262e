// Package luapattern implements Lua 5.1 pattern matching — the engine behind
// string.find, string.match, string.gmatch and string.gsub — with bounded,
// interruptible work.
//
// # Why it exists
//
// gopher-lua runs its pattern functions in the pure-Go pm package, which never looks
// at the state's context: string.find(("a"):rep(3000), ".-.-.-b$") backtracks for
// minutes while the call's deadline passes unnoticed (yuin/gopher-lua#521). pm also
// departs from Lua 5.1 in many places (no %f, eager and differently worded errors,
// gmatch treating "^" as an anchor, replacement strings, init handling). This package
// is a from-scratch matcher that follows PUC Lua 5.1.5 and:
//
//   - counts its work in steps (see [Limits.MaxSteps]) and fails with [ErrTooComplex]
//     past a budget;
//   - checks a context every [Limits.CheckEvery] steps and fails with an error that
//     matches [ErrCancelled] and the context's own error, so a deadline is honoured
//     within microseconds of matching time;
//   - refuses subjects, patterns and gsub results beyond fixed sizes;
//   - never recurses: backtracking uses an explicit stack whose depth is bounded by the
//     pattern's length, so long subjects cannot exhaust the Go stack.
//
// # Using it from Lua bindings
//
// A [Matcher] holds [Limits] and is safe for concurrent use. Its methods take Lua's own
// arguments (1-based, possibly negative init; gsub's max n) and return byte offsets and
// [Capture] values that convert directly to Lua values:
//
//	string.find(s, p, init, plain)  -> Matcher.Find; push r.Start+1, r.End, then r.Captures()
//	string.match(s, p, init)        -> Matcher.Match; push r.Values()
//	string.gmatch(s, p)             -> Matcher.Gmatch; each iteration calls Iterator.Next
//	string.gsub(s, p, repl, n)      -> Matcher.Gsub (string or number repl) or
//	                                   Matcher.GsubFunc (table or function repl)
//
// A nil *Result with a nil error means "no match" (Lua's nil). A Capture is a string
// or, for a position capture "()", a number ([Capture.IsPosition]). Errors that Lua
// itself raises for bad patterns are [*PatternError] values whose text is exactly PUC
// Lua 5.1's ("malformed pattern (missing ']')", "invalid capture index", ...); raise
// them with the caller's location prefix as any other library error. The tests hold a
// complete adapter that installs these functions into a gopher-lua state.
//
// # Deliberate differences from PUC Lua 5.1
//
//   - A NUL byte in a pattern is an ordinary character, as in Lua 5.2+ and gopher-lua.
//     Lua 5.1 reads patterns as C strings and silently stops at the first NUL.
//   - A '%' at the very end of a gsub replacement string is copied as '%'. Lua 5.1
//     copies the string's terminating NUL byte instead (reading past the end); Lua 5.2+
//     raises an error.
//   - The limits above: past them a call fails where Lua would keep going.
//
// Everything else — including the lazy, position-dependent raising of pattern errors
// (string.find("abc", "x[") is nil, string.find("abc", "a[") is an error), the 32
// capture limit, empty-match advancement in gmatch and gsub, and init clamping —
// follows Lua 5.1.5.
package luapattern
