package puremod

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// Modules returns the pure modules: re, time, base64, hex, url, crypto and uuid, in
// that order. Each call builds a new set (with its own cache of compiled patterns);
// a set is immutable apart from that cache and safe for use by any number of VMs at
// once.
func Modules() []*bindings.Module {
	return []*bindings.Module{newRe(reLimits{}), newTime(), newBase64(), newHex(), newURL(), newCrypto(), newUUID()}
}

// The failure codes of the pure modules' functions, the third value of a failure.
const (
	codeBadPattern  = "badpattern"  // a regular expression that does not compile, or is too large
	codeBadTime     = "badtime"     // a time, duration or time zone that does not parse
	codeBadEncoding = "badencoding" // base64 or hex that does not decode
	codeBadURL      = "badurl"      // a URL, escape or query that does not parse
)

// fail returns a failure a script is expected to handle: nil, the message, the code.
// The result is the number of values pushed.
func fail(L *lua.LState, code, format string, args ...any) int {
	L.Push(lua.LNil)
	L.Push(lua.LString(fmt.Sprintf(format, args...)))
	L.Push(lua.LString(code))
	return 3
}

// checkSize raises the error for an argument of fn longer than the sandbox's string
// limit, which bounds what the pure modules take as they bound what they make.
func checkSize(L *lua.LState, fn, what string, n int) {
	if max := bindings.VMOf(L).Limits().MaxStringBytes; n > max {
		L.RaiseError("%s: the %s is %d bytes, over the limit of %d", fn, what, n, max)
	}
}

// tooLong raises the error for a result of fn that would pass the string limit.
func tooLong(L *lua.LState, fn string) {
	L.RaiseError("%s: the result would be over %d bytes, the limit", fn, bindings.VMOf(L).Limits().MaxStringBytes)
}
