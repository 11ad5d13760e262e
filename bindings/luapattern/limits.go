package luapattern

import (
	"context"
	"errors"
	"fmt"
)

// Limits bound the work of one call. The zero value of each field means its default;
// use a very large value to lift a limit in practice.
type Limits struct {
	// MaxSteps is the most steps one call may take before it fails with
	// ErrTooComplex. A step is one pattern item tried, one subject byte tested
	// against a class (also while scanning ahead for a start or through a
	// repetition), one backtracking move, or one byte examined by %b or a
	// back-reference. The budget covers a whole Find, Match or Gsub call (not the time spent in a
	// ReplaceFunc) and each Iterator.Next. Default DefaultMaxSteps.
	MaxSteps int64
	// MaxSubject is the longest subject string accepted. Default DefaultMaxSubject.
	MaxSubject int
	// MaxPattern is the longest pattern accepted. It does not apply to plain finds
	// (plain set, or a pattern without special characters), which are substring
	// searches. Default DefaultMaxPattern.
	MaxPattern int
	// MaxResult is the longest string Gsub and GsubFunc may build. Default
	// DefaultMaxResult.
	MaxResult int
	// CheckEvery is how many steps pass between two checks of the context.
	// Default DefaultCheckEvery.
	CheckEvery int
}

// Default limits.
//
// DefaultMaxSteps allows about twelve steps per byte of a subject of
// DefaultMaxSubject bytes. Measured on prose, "[^\n]*" takes 1.0 steps per byte,
// "%s+" and "%w+" 1.5, "^%s*(.-)%s*$" 4.6 and "(%w+)=(%w+)" 8.8 (its "%w+" backtracks
// over every word), so realistic calls stay well below it. A catastrophic pattern
// stops after about a second of CPU at most (0.6-1.0 s measured, 3-5 ns per step)
// when no deadline interrupts it first.
//
// DefaultMaxSubject is the 16 MiB string cap recommended for the whole sandbox (the
// reliability notes, D7).
//
// DefaultMaxPattern is larger than any hand-written pattern by far, yet leaves room for
// a pattern built by escaping a literal text of some KiB (an edit tool replacing a block
// of code with gsub); patterns are compiled on every call, at about 24 bytes per item,
// and their matching cost is bounded by MaxSteps, not by their length.
//
// DefaultMaxResult is the same 16 MiB cap, for the string gsub builds.
//
// DefaultCheckEvery keeps the cost of the context check (one ctx.Err call) under one
// percent while bounding the time between checks to a few microseconds.
const (
	DefaultMaxSteps   = 200_000_000
	DefaultMaxSubject = 16 << 20
	DefaultMaxPattern = 64 << 10
	DefaultMaxResult  = 16 << 20
	DefaultCheckEvery = 1024
)

// MaxCaptures is the most captures a pattern may make, as in Lua 5.1
// (LUA_MAXCAPTURES); one more raises "too many captures".
const MaxCaptures = 32

// WithDefaults returns l with every field that is zero or negative set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.MaxSubject <= 0 {
		l.MaxSubject = DefaultMaxSubject
	}
	if l.MaxPattern <= 0 {
		l.MaxPattern = DefaultMaxPattern
	}
	if l.MaxResult <= 0 {
		l.MaxResult = DefaultMaxResult
	}
	if l.CheckEvery <= 0 {
		l.CheckEvery = DefaultCheckEvery
	}
	return l
}

// Errors returned when a limit stops a call. They are wrapped with details; test for
// them with errors.Is.
var (
	// ErrCancelled reports that the context was done while matching. The returned
	// error also wraps the context's error (context.DeadlineExceeded or
	// context.Canceled).
	ErrCancelled = errors.New("pattern matching cancelled")
	// ErrTooComplex reports that a call used more than Limits.MaxSteps steps.
	ErrTooComplex = errors.New("pattern too complex")
	// ErrSubjectTooLong reports a subject longer than Limits.MaxSubject.
	ErrSubjectTooLong = errors.New("string too long for pattern matching")
	// ErrPatternTooLong reports a pattern longer than Limits.MaxPattern.
	ErrPatternTooLong = errors.New("pattern too long")
	// ErrResultTooLong reports a gsub result longer than Limits.MaxResult.
	ErrResultTooLong = errors.New("gsub result too long")
)

// PatternError is an error that Lua itself raises for a pattern or a replacement
// string, such as "malformed pattern (missing ']')" or "invalid capture index". Its
// text is exactly Lua 5.1's.
type PatternError struct {
	// Msg is Lua 5.1's message, without any location prefix.
	Msg string
}

// Error returns e.Msg.
func (e *PatternError) Error() string { return e.Msg }

// Lua 5.1's messages.
const (
	msgEndsWithPercent = "malformed pattern (ends with '%')"
	msgMissingBracket  = "malformed pattern (missing ']')"
	msgMissingFrontier = "missing '[' after '%f' in pattern"
	msgUnbalanced      = "unbalanced pattern"
	msgInvalidIndex    = "invalid capture index"
	msgInvalidCapture  = "invalid pattern capture"
	msgUnfinished      = "unfinished capture"
	msgTooManyCaptures = "too many captures"
)

func sizeError(kind error, n, limit int) error {
	return fmt.Errorf("%w (%d bytes, limit %d)", kind, n, limit)
}

// checkSizes validates the subject and, when it will be compiled, the pattern.
func (l Limits) checkSizes(subject, pattern string, compiled bool) error {
	if len(subject) > l.MaxSubject {
		return sizeError(ErrSubjectTooLong, len(subject), l.MaxSubject)
	}
	if compiled && len(pattern) > l.MaxPattern {
		return sizeError(ErrPatternTooLong, len(pattern), l.MaxPattern)
	}
	return nil
}

// budget counts the steps of one call and checks the context between windows of
// CheckEvery steps. left is decremented inline by the matcher; refill runs when it
// goes negative.
type budget struct {
	ctx    context.Context
	left   int64 // steps left in the current window
	window int64 // size of the current window
	spent  int64 // steps of all finished windows
	max    int64
	every  int64
}

func newBudget(ctx context.Context, l Limits) budget {
	// A zero window makes the first step check the context.
	return budget{ctx: ctx, max: l.MaxSteps, every: int64(l.CheckEvery)}
}

// refill closes the current window, fails past the step limit or when the context is
// done, and opens the next window.
func (b *budget) refill() error {
	b.spent += b.window - b.left
	if b.spent > b.max {
		return fmt.Errorf("%w: more than %d steps", ErrTooComplex, b.max)
	}
	if b.ctx != nil {
		if err := b.ctx.Err(); err != nil {
			return fmt.Errorf("%w: %w", ErrCancelled, err)
		}
	}
	b.window = min(b.every, b.max-b.spent)
	b.left = b.window
	return nil
}

// charge takes n steps at once.
func (b *budget) charge(n int64) error {
	b.left -= n
	if b.left < 0 {
		return b.refill()
	}
	return nil
}
