package luapattern

import (
	"context"
	"strconv"
	"strings"
)

// specials are the bytes that make Lua 5.1's string.find use the matcher instead of a
// plain substring search.
const specials = "^$*+?.([%-"

// Matcher runs Lua patterns within Limits. The zero value uses the default limits. A
// Matcher is a plain value: it is safe for concurrent use and cheap to copy.
//
// Every method takes a context; a nil context means no cancellation (gopher-lua's
// LState.Context returns nil when the state has none).
type Matcher struct {
	// Limits bound each call; zero fields take their defaults.
	Limits Limits
}

// Capture is the value of one capture: a string, or for a position capture "()" the
// position as Lua returns it.
type Capture struct {
	// Text is the captured substring; it is empty for a position capture.
	Text string
	// Pos is the 1-based position of a position capture, or 0 for a string capture.
	Pos int
}

// IsPosition reports whether c is a position capture, which Lua returns as a number.
func (c Capture) IsPosition() bool { return c.Pos != 0 }

// Result is one match.
type Result struct {
	// Start and End are the byte offsets of the whole match in the subject, 0-based
	// and half-open: string.find returns Start+1 and End.
	Start, End int

	subject string
	kinds   []capKind
	spans   []span
}

// Text returns the whole match.
func (r *Result) Text() string { return r.subject[r.Start:r.End] }

// Capture returns capture n as Lua numbers them in replacement strings: 0 is the whole
// match, and 1 is the whole match too when the pattern has no captures (so Capture(1)
// is the key a gsub replacement table is indexed with). Other indexes beyond the
// pattern's captures raise "invalid capture index"; a capture whose ')' the pattern
// lacks raises "unfinished capture".
func (r *Result) Capture(n int) (Capture, error) {
	if n == 0 || n == 1 && len(r.kinds) == 0 {
		return Capture{Text: r.Text()}, nil
	}
	if n < 0 || n > len(r.kinds) {
		return Capture{}, &PatternError{Msg: msgInvalidIndex}
	}
	return r.capture(n - 1)
}

func (r *Result) capture(i int) (Capture, error) {
	sp := r.spans[i]
	switch r.kinds[i] {
	case capPos:
		return Capture{Pos: sp.start + 1}, nil
	case capUnfinished:
		return Capture{}, &PatternError{Msg: msgUnfinished}
	}
	return Capture{Text: r.subject[sp.start:sp.end]}, nil
}

// Captures returns the pattern's captures, none when it has none: the values
// string.find returns after the match's bounds.
func (r *Result) Captures() ([]Capture, error) {
	out := make([]Capture, len(r.kinds))
	for i := range out {
		c, err := r.capture(i)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// Values returns the captures, or the whole match when the pattern has none: the
// values string.match and gmatch return and a gsub replacement function receives.
func (r *Result) Values() ([]Capture, error) {
	if len(r.kinds) == 0 {
		return []Capture{{Text: r.Text()}}, nil
	}
	return r.Captures()
}

// checkFinished fails when a capture is unfinished, as Lua does when it returns all
// captures (find, match, gmatch).
func (r *Result) checkFinished() error {
	for _, k := range r.kinds {
		if k == capUnfinished {
			return &PatternError{Msg: msgUnfinished}
		}
	}
	return nil
}

// startIndex converts Lua's init argument to a 0-based offset as Lua 5.1 does: a
// negative init counts from the end, and the result is clamped to 0..len.
func startIndex(init, length int) int {
	if init < 0 {
		init += length + 1
	}
	return min(max(init-1, 0), length)
}

// Find implements string.find(s, pattern, init, plain); pass init 1 when Lua's is
// absent and plain as Lua's argument's truth. It returns nil and no error when nothing
// matches. As in Lua 5.1, a pattern without special characters is searched for as
// plain text, and the Result's captures are those of the pattern.
func (m Matcher) Find(ctx context.Context, s, pattern string, init int, plain bool) (*Result, error) {
	lim := m.Limits.WithDefaults()
	plain = plain || !strings.ContainsAny(pattern, specials)
	if err := lim.checkSizes(s, pattern, !plain); err != nil {
		return nil, err
	}
	start := startIndex(init, len(s))
	if plain {
		i := strings.Index(s[start:], pattern)
		if i < 0 {
			return nil, nil
		}
		return &Result{Start: start + i, End: start + i + len(pattern), subject: s}, nil
	}
	return m.first(ctx, lim, s, pattern, start)
}

// Match implements string.match(s, pattern, init); pass init 1 when Lua's is absent.
// It returns nil and no error when nothing matches; Result.Values gives Lua's results.
func (m Matcher) Match(ctx context.Context, s, pattern string, init int) (*Result, error) {
	lim := m.Limits.WithDefaults()
	if err := lim.checkSizes(s, pattern, true); err != nil {
		return nil, err
	}
	return m.first(ctx, lim, s, pattern, startIndex(init, len(s)))
}

// first returns the first match of pattern in s at or after start.
func (m Matcher) first(ctx context.Context, lim Limits, s, pattern string, start int) (*Result, error) {
	prog := compile(pattern, true)
	mach := newMachine(newBudget(ctx, lim), prog, s)
	begin, end, found, err := mach.find(start)
	if err != nil || !found {
		return nil, err
	}
	r := mach.result(begin, end)
	if err := r.checkFinished(); err != nil {
		return nil, err
	}
	return r, nil
}

// result returns the match begin..end with the machine's captures.
func (m *machine) result(begin, end int) *Result {
	r := &Result{subject: m.subj}
	m.fill(r, begin, end)
	return r
}

// fill sets r to the match begin..end with the machine's captures.
func (m *machine) fill(r *Result, begin, end int) {
	r.Start, r.End = begin, end
	r.kinds = m.prog.caps
	r.spans = append(r.spans[:0], m.caps[:len(m.prog.caps)]...)
}

// Iterator is the state of a string.gmatch loop. It is not safe for concurrent use.
type Iterator struct {
	m       Matcher
	subject string
	pattern string
	mach    *machine // nil until the first call of Next
	pos     int
	done    bool
}

// Gmatch implements string.gmatch(s, pattern). Nothing is checked until the first call
// of Next, which, like every call of Lua's iterator, may fail.
func (m Matcher) Gmatch(s, pattern string) *Iterator {
	return &Iterator{m: m, subject: s, pattern: pattern}
}

// Next returns the next match, or nil and no error when there is none; Result.Values
// gives the loop's variables. Each call has its own step budget. As in Lua 5.1, '^' is
// an ordinary character in a gmatch pattern, and after an empty match the search goes
// on one byte further.
func (it *Iterator) Next(ctx context.Context) (*Result, error) {
	if it.done {
		return nil, nil
	}
	lim := it.m.Limits.WithDefaults()
	if it.mach == nil {
		if err := lim.checkSizes(it.subject, it.pattern, true); err != nil {
			return nil, err
		}
		it.mach = newMachine(budget{}, compile(it.pattern, false), it.subject)
	}
	mach := it.mach
	mach.budget = newBudget(ctx, lim)
	begin, end, found, err := mach.find(it.pos)
	if err != nil {
		return nil, err
	}
	if !found {
		it.done = true
		return nil, nil
	}
	it.pos = end
	if end == begin {
		it.pos++
	}
	r := mach.result(begin, end)
	if err := r.checkFinished(); err != nil {
		return nil, err
	}
	return r, nil
}

// ReplaceFunc computes the replacement of one match for GsubFunc: a gsub replacement
// table or function. It returns the replacement, or ok false to keep the match as it
// is (Lua's nil or false). r and its storage are reused for the next match; copy what
// must outlive the call. It may panic (gopher-lua raises Lua errors so); GsubFunc holds
// nothing that needs releasing.
type ReplaceFunc func(r *Result) (repl string, ok bool, err error)

// AllMatches is the maxN to pass to Gsub and GsubFunc when Lua's n is absent.
const AllMatches = int(^uint(0) >> 1)

// Gsub implements string.gsub(s, pattern, repl, n) for a string (or number, converted
// by the caller) repl, in which %0-%9 stand for captures and '%' followed by any other
// byte for that byte. maxN is Lua's n, or AllMatches when absent; values below 1
// replace nothing. It returns the new string and the number of matches.
func (m Matcher) Gsub(ctx context.Context, s, pattern, repl string, maxN int) (string, int, error) {
	return m.gsub(ctx, s, pattern, maxN, func(dst []byte, r *Result, limit int) ([]byte, error) {
		return expand(dst, repl, r, limit)
	})
}

// GsubFunc implements string.gsub(s, pattern, repl, n) for a table or function repl,
// which fn stands for. For a table, look up the key from r.Capture(1); for a function,
// call it with r.Values(). maxN is as for Gsub.
func (m Matcher) GsubFunc(ctx context.Context, s, pattern string, fn ReplaceFunc, maxN int) (string, int, error) {
	return m.gsub(ctx, s, pattern, maxN, func(dst []byte, r *Result, _ int) ([]byte, error) {
		repl, ok, err := fn(r)
		if err != nil {
			return dst, err
		}
		if !ok {
			repl = r.Text()
		}
		return append(dst, repl...), nil
	})
}

// appendFunc appends the replacement of match r to dst; it may stop early once dst is
// longer than limit.
type appendFunc func(dst []byte, r *Result, limit int) ([]byte, error)

// gsub is Lua 5.1's str_gsub loop over the matches the machine finds.
func (m Matcher) gsub(ctx context.Context, s, pattern string, maxN int, add appendFunc) (string, int, error) {
	lim := m.Limits.WithDefaults()
	if err := lim.checkSizes(s, pattern, true); err != nil {
		return "", 0, err
	}
	prog := compile(pattern, true)
	mach := newMachine(newBudget(ctx, lim), prog, s)
	var (
		out   []byte
		r     = &Result{subject: s}
		src   int
		count int
	)
	for count < maxN {
		begin, end, found, err := mach.find(src)
		if err != nil {
			return "", 0, err
		}
		if !found {
			break
		}
		out = append(out, s[src:begin]...)
		count++
		mach.fill(r, begin, end)
		if out, err = add(out, r, lim.MaxResult); err != nil {
			return "", 0, err
		}
		if len(out) > lim.MaxResult {
			return "", 0, sizeError(ErrResultTooLong, len(out), lim.MaxResult)
		}
		var more bool
		out, src, more = advance(out, s, begin, end)
		if !more || prog.anchored {
			break
		}
	}
	if count == 0 {
		return s, 0, nil
	}
	out = append(out, s[src:]...)
	if len(out) > lim.MaxResult {
		return "", 0, sizeError(ErrResultTooLong, len(out), lim.MaxResult)
	}
	return string(out), count, nil
}

// advance moves gsub past the match begin..end of s: after a non-empty match the
// search goes on at its end; after an empty one the next byte is copied and the
// search goes on after it, unless the subject is exhausted.
func advance(out []byte, s string, begin, end int) ([]byte, int, bool) {
	switch {
	case end > begin:
		return out, end, true
	case begin < len(s):
		return append(out, s[begin]), begin + 1, true
	default:
		return out, begin, false
	}
}

// expand appends Lua 5.1's expansion of the replacement string repl for match r. It
// stops once dst is longer than limit.
func expand(dst []byte, repl string, r *Result, limit int) ([]byte, error) {
	for i := 0; i < len(repl) && len(dst) <= limit; i++ {
		c := repl[i]
		if c != '%' || i+1 == len(repl) { // a final '%' stays itself (see the package doc)
			dst = append(dst, c)
			continue
		}
		i++
		c = repl[i]
		if c < '0' || c > '9' {
			dst = append(dst, c)
			continue
		}
		capt, err := r.Capture(int(c - '0'))
		if err != nil {
			return dst, err
		}
		if capt.IsPosition() {
			dst = strconv.AppendInt(dst, int64(capt.Pos), 10)
		} else {
			dst = append(dst, capt.Text...)
		}
	}
	return dst, nil
}
