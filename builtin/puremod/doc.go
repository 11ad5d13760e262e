// Package puremod holds the pure modules Lua tools require: re (regular
// expressions), time (the clock, sleeping, dates and durations), base64, hex, url,
// crypto (digests and HMAC) and uuid. They compute and reach nothing on the host, no
// file, no network, no environment, so they need no confinement and run in every
// phase, the load phase included (time.sleep alone refuses there). [Modules] builds
// the seven; the Lua loader (engine/luaload) offers them to every tool beside the
// host's modules.
//
// # Conventions
//
// As in package hostmod: wrong arguments raise in the standard wording,
//
//	bad argument #1 to 're.find' (string expected, got nil)
//
// options tables reject unknown keys with a did-you-mean and the list of keys,
// failures a script is expected to handle (input that does not parse) return nil,
// a message and a code, and lists come back as tables marked as JSON arrays. The
// codes are "badpattern" (re: a pattern that does not compile or is too large),
// "badtime" (time: a date, duration or zone that does not parse), "badencoding"
// (base64, hex: input that does not decode) and "badurl" (url: a URL, escape or
// query that does not parse). Strings are bytes: positions are 1-based byte
// offsets, as in Lua's string library. No function takes or makes a string longer
// than the sandbox's string limit (bindings.Limits.MaxStringBytes, 16 MiB by
// default): past it they raise "re.gsub: the result would be over N bytes, the
// limit" or "re.find: the subject is N bytes, over the limit of M".
//
// # re
//
// Go's regexp (RE2 syntax, https://github.com/google/re2/wiki/Syntax) on Lua
// strings. Unlike Lua patterns, which backtrack and so take exponential time on
// some patterns (luatool counts their steps and stops them, see package
// bindings/luapattern), RE2 matches in time linear in the subject by construction:
// no pattern can make a match slow beyond its size times the subject's. Matches too
// large to finish in a few milliseconds read the subject through a reader that
// checks the call's context, so a deadline or cancellation stops them at once.
//
//	re.find(s, pattern [, init])   -> start, end, captures... | nil
//	re.match(s, pattern [, init])  -> captures... | nil
//	re.gmatch(s, pattern)          -> iterator over the captures of each match
//	re.gsub(s, pattern, repl [, n]) -> result, number of matches
//	re.split(s, pattern [, n])     -> list of pieces
//	re.escape(s)                   -> s with every metacharacter escaped
//	re.compile(pattern)            -> rx, with rx.pattern and rx:find(s [, init]),
//	                                  rx:match, rx:gmatch, rx:gsub, rx:split
//
// Every function taking a pattern returns nil, message, "badpattern" when it does
// not compile ("regex parse error: missing closing ): `(`"), is over 16 KiB, or
// compiles to over 32,768 instructions.
//
// The captures are what string.match returns: one value per group, nil for a
// group that took no part in the match; the whole match when the pattern has no
// group (find then returns only the positions). A pattern that names a group,
// (?P<name>...) or (?<name>...), gives one table of the named groups by name
// instead (a group that took no part is absent; unnamed groups are left out).
//
// init, as in string.find, is where the search starts: 1 by default, negative
// counts from the end, clamped into the subject. The text before init still counts:
// ^ and \A match only at the start of s (or of a line with (?m)), \b looks at the
// byte before init. gmatch, gsub and split find successive matches as Go's FindAll
// functions do: each search goes on where the previous match ended, and an empty
// match right where the previous match ended does not count (re.gsub("abc", "x*",
// "-") is "-a-b-c-").
//
// gsub's repl is, as in string.gsub, a string, a table or a function, and n bounds
// the number of replacements. A string is a template: $1 or ${1} stands for group 1
// ($0 for the whole match), $name or ${name} for a named group, and $$ for a dollar
// sign; a name is the longest run of letters, digits and underscores, so write
// ${1}x for group 1 followed by x. A reference to a group the pattern does not have,
// and a $ that starts none, raise (Go's Expand would read them as empty text and
// "$"). A table is indexed by the text of group 1 (the whole match without groups);
// a function is called with the captures. A value of nil or false keeps the match; a
// string or number replaces it. The count returned is the number of matches.
//
// split cuts s at every match, except an empty match at the very start or end of s:
// re.split("a,b,", ",") is {"a", "b", ""}, re.split("abc", "") is {"a", "b", "c"},
// and an empty s gives {""}. With n, at most n pieces are made, the last holding the
// rest. Groups in the pattern add nothing to the pieces.
//
// Compiled patterns are cached, the 256 most recently used (and at most 2^20
// instructions in all), shared by every VM of a module set: re.find(s, "...") in a
// loop compiles once. re.compile returns a table whose methods close over the
// compiled pattern; they raise when called with a dot (rx.find(s)) rather than a
// colon.
//
// # time
//
//	time.now()                         -> milliseconds since the Unix epoch (an integer)
//	time.monotonic()                   -> milliseconds, with a fraction, from an arbitrary
//	                                      start: for measuring how long something takes
//	time.sleep(ms)                     -> nothing, after ms milliseconds (a fraction is
//	                                      allowed)
//	time.format(ms [, layout [, zone]]) -> the time as text | nil, message, "badtime"
//	time.parse(s [, layout [, zone]])  -> milliseconds since the epoch | nil, message, "badtime"
//	time.duration(s)                   -> a Go duration ("1h30m", "250ms") in ms | nil,
//	                                      message, "badtime"
//	time.formatduration(ms)            -> ms as Go writes a duration ("1h30m0s")
//
// time.sleep never outlives the call: it waits without using a CPU and, when the
// call's deadline passes or the call is cancelled first, raises at that moment, so
// the call ends there with its usual "execution stopped" error. Sleeping in a tool
// file's main chunk is refused (nothing happens while a file loads but building
// it). A sleeping call keeps its place among the calls allowed to run at once.
//
// Layouts are Go's (the reference time Mon Jan 2 15:04:05 MST 2006, see package
// time), or the name of one of Go's layout constants: "RFC3339", "RFC3339Nano",
// "RFC1123", "RFC1123Z", "RFC822", "RFC822Z", "RFC850", "ANSIC", "UnixDate",
// "RubyDate", "Kitchen", "Stamp", "StampMilli", "StampMicro", "StampNano",
// "DateTime", "DateOnly", "TimeOnly". format's default is RFC 3339 with
// milliseconds when there are some ("2024-05-01T12:00:00.25Z"); parse's is RFC 3339,
// which accepts fractional seconds. The zone is "UTC" (the default), an offset
// ("+05:30") or an IANA name ("Europe/Paris", from the system's database or the copy
// built into the program); format writes the time in it, and parse reads a time
// that states no zone in it. The host's local zone is not offered: it is the host's
// setting. Times are within 8.64e15 ms of the epoch (JavaScript's range).
//
// # base64, hex
//
//	base64.encode(s [, {url=, pad=}])  -> text; url: the URL alphabet (- and _),
//	                                      pad: end with = padding (default true)
//	base64.decode(s [, {url=}])        -> bytes | nil, message, "badencoding";
//	                                      padding is optional, line breaks are skipped
//	hex.encode(s)                      -> lowercase hex
//	hex.decode(s)                      -> bytes | nil, message, "badencoding"
//
// # url
//
//	url.parse(s)              -> {scheme=, username=, password=, host=, port=, path=,
//	                             rawpath=, query=, fragment=, opaque=} | nil, message, "badurl"
//	url.build(t)              -> the URL of a table shaped like parse's (every key optional;
//	                             query may be a table, encoded as by encodequery)
//	url.resolve(base, ref)    -> ref resolved against base (RFC 3986) | nil, message, "badurl"
//	url.escape(s [, {path=}]) -> s escaped for a query (space as +) or, with path, for
//	                             one path segment (space as %20, / escaped)
//	url.unescape(s [, {path=}]) -> the reverse | nil, message, "badurl"
//	url.encodequery(t)        -> "a=1&b=x+y", names sorted; a value is a string, number,
//	                             boolean or a list of them (the name repeated)
//	url.decodequery(s)        -> first, all: each name's first value, and each name's
//	                             values as a list | nil, message, "badurl"
//
// In parse's table every key but port is a string, "" when the URL has no such
// part; host is the name or address without brackets or port, port a number (absent
// when the URL has none), path the decoded path and rawpath its escaped form.
//
// # crypto, uuid
//
//	crypto.sha256(s [, {raw=}])  -> the digest in lowercase hex, or its bytes with raw;
//	                                likewise crypto.sha1, crypto.md5, crypto.sha512
//	crypto.hmac(hash, key, message [, {raw=}]) -> the HMAC; hash is "sha256", "sha1",
//	                                "md5" or "sha512"
//	crypto.equal(a, b)           -> whether a and b are equal, in time that does not
//	                                depend on where they differ (to check a signature)
//	uuid.v4()                    -> a random UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"
//	uuid.v7()                    -> a time-ordered UUID (RFC 9562): those one module set
//	                                makes sort in the order they were made
//
// Modules are safe for use by any number of VMs at once.
package puremod
