package puremod

import (
	"context"
	"io"
	"strings"
	"unicode/utf8"
)

// defaultInlineWork is how much work (subject bytes times program instructions) a
// match may do on the string itself, through Go's fastest paths, which cannot be
// interrupted: RE2 takes up to about 30 ns a unit, so 2^20 units is about 30 ms.
// Larger matches read the subject through a ctxReader, which stops at the call's
// deadline.
const defaultInlineWork = 1 << 20

// A matcher runs compiled patterns on subjects.
type matcher struct {
	// inlineWork is the largest work done without a reader; negative means none is.
	inlineWork int
}

func (m matcher) inline(subject, size int) bool {
	return m.inlineWork >= 0 && subject <= m.inlineWork/size
}

// findAt returns the leftmost match of c in s that starts at pos or later, as Go's
// FindStringSubmatchIndex gives it (byte offsets into s; -1 for a group that took no
// part), or nil. The text before pos counts for ^, \A and \b as anywhere else. It
// fails only when ctx ends during a long match.
func (m matcher) findAt(ctx context.Context, c *compiled, s string, pos int) ([]int, error) {
	if c.prefix != "" {
		j := strings.Index(s[pos:], c.prefix)
		if j < 0 {
			return nil, nil
		}
		pos += j
		if c.literal {
			return []int{pos, pos + len(c.prefix)}, nil
		}
	}
	rx, base, drop := c.rx, pos, 0
	// A match that starts with a literal begins with a character, never with an
	// assertion about the one before: then s[pos:] is exact.
	if pos > 0 && c.lookBehind && c.prefix == "" {
		after, err := c.afterPattern()
		if err != nil {
			return nil, err
		}
		rx, base, drop = after, pos-1, 2
	}
	t := s[base:]
	var loc []int
	if m.inline(len(t), c.size) {
		loc = rx.FindStringSubmatchIndex(t)
	} else {
		if ctx == nil {
			ctx = context.Background()
		}
		r := &ctxReader{s: t, ctx: ctx, every: max(1, (1<<16)/c.size)}
		loc = rx.FindReaderSubmatchIndex(r)
		if r.stopped {
			return nil, ctx.Err()
		}
	}
	if loc == nil {
		return nil, nil
	}
	loc = loc[drop:]
	for i, v := range loc {
		if v >= 0 {
			loc[i] = v + base
		}
	}
	return loc, nil
}

// A ctxReader gives a string to RE2 rune by rune, as RE2 decodes a string (an
// invalid byte is U+FFFD of width 1), and ends it early, setting stopped, once ctx
// has ended: a check every `every` runes keeps a match within milliseconds of the
// deadline whatever the pattern.
type ctxReader struct {
	s       string
	i       int
	ctx     context.Context
	every   int
	n       int
	stopped bool
}

func (r *ctxReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	if r.n++; r.n >= r.every {
		r.n = 0
		if r.ctx.Err() != nil {
			r.stopped = true
			return 0, 0, io.EOF
		}
	}
	if c := r.s[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	ru, w := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += w
	return ru, w, nil
}

// A matchIter yields the successive matches of a pattern in a subject, one at a
// time, as Go's FindAll functions find them: after a match the search goes on where
// it ended, and an empty match right where the previous match ended is skipped.
type matchIter struct {
	m       matcher
	c       *compiled
	s       string
	pos     int
	prevEnd int
	steps   int
}

func newMatchIter(m matcher, c *compiled, s string) *matchIter {
	return &matchIter{m: m, c: c, s: s, prevEnd: -1}
}

// next returns the next match, or nil after the last. It fails when ctx has ended:
// every step looks, now and then, since a loop of short matches in Go (gsub with a
// template, split) would not give Lua the chance to.
func (it *matchIter) next(ctx context.Context) ([]int, error) {
	for it.pos <= len(it.s) {
		if it.steps++; it.steps%256 == 0 && ctx != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		loc, err := it.m.findAt(ctx, it.c, it.s, it.pos)
		if err != nil || loc == nil {
			it.pos = len(it.s) + 1
			return nil, err
		}
		accept := true
		if loc[1] == it.pos { // an empty match where the search started
			accept = loc[0] != it.prevEnd
			if it.pos < len(it.s) {
				_, w := utf8.DecodeRuneInString(it.s[it.pos:])
				it.pos += w
			} else {
				it.pos++
			}
		} else {
			it.pos = loc[1]
		}
		it.prevEnd = loc[1]
		if accept {
			return loc, nil
		}
	}
	return nil, nil
}
