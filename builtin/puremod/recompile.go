package puremod

import (
	"container/list"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// Bounds on patterns and on the cache of compiled ones.
const (
	// maxPatternBytes bounds a pattern's source.
	maxPatternBytes = 16 << 10
	// maxProgram bounds a pattern's compiled size, in RE2 instructions: matching costs
	// at most this much work per byte of subject, and `\pL{1000}` is 1,002.
	maxProgram = 1 << 15
	// cacheEntries and cacheInstructions bound the cache of compiled patterns: the
	// least recently used are dropped past either.
	cacheEntries      = 256
	cacheInstructions = 1 << 20
)

// A compiled pattern, with what matching needs to know about it. It is immutable
// (after is built once, on first use) and safe for concurrent use.
type compiled struct {
	pattern string
	rx      *regexp.Regexp
	size    int      // instructions of the compiled program
	nsub    int      // capture groups
	names   []string // the name of each group, "" for unnamed ones; index 0 is the whole match
	named   bool     // some group has a name
	prefix  string   // a literal every match starts with, before any assertion; "" when none
	literal bool     // the pattern is prefix and nothing else, without groups
	// lookBehind: the pattern asks about the text before a position (^, \A, \b, \B),
	// so a search that starts past 0 must see the byte before it.
	lookBehind bool

	afterOnce sync.Once
	after     *regexp.Regexp // see afterPattern
	afterErr  error
}

// compilePattern compiles a pattern, refusing what is over the bounds. Its errors
// are the messages a script gets with code "badpattern".
func compilePattern(pattern string) (*compiled, error) {
	if len(pattern) > maxPatternBytes {
		return nil, fmt.Errorf("the pattern is %d bytes, over the limit of %d", len(pattern), maxPatternBytes)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("regex parse error: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("regex parse error: %v", err)
	}
	if len(prog.Inst) > maxProgram {
		return nil, fmt.Errorf("the pattern compiles to %d instructions, over the limit of %d", len(prog.Inst), maxProgram)
	}
	rx, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regex parse error: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	c := &compiled{pattern: pattern, rx: rx, size: len(prog.Inst), nsub: rx.NumSubexp(), names: rx.SubexpNames(), lookBehind: looksBehind(tree)}
	for _, n := range c.names {
		c.named = c.named || n != ""
	}
	// The program's prefix, not rx.LiteralPrefix: for an anchored pattern that
	// one skips the anchor ("^a" gives "a"), and a search from a position must not.
	var complete bool
	c.prefix, complete = prog.Prefix()
	c.literal = complete && c.nsub == 0
	return c, nil
}

// looksBehind reports whether a pattern holds an assertion about the text before a
// position.
func looksBehind(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if looksBehind(sub) {
			return true
		}
	}
	return false
}

// afterPattern returns the pattern's companion for searching from a position p > 0
// with the text before p in view: matched against s[p-1:], it consumes the byte
// before p, then finds the leftmost match of the pattern from p on (the lazy .*? is
// how RE2 itself searches), captured as group 1; the pattern's own groups follow.
// Go's regexp offers no search from a position inside a string, which gmatch, gsub
// and split need after each match.
func (c *compiled) afterPattern() (*regexp.Regexp, error) {
	c.afterOnce.Do(func() {
		tree, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			c.afterErr = err
			return
		}
		c.after, c.afterErr = regexp.Compile(`\A(?s:.)(?s:.*?)(` + tree.String() + `)`)
		if c.afterErr == nil && c.after.NumSubexp() != c.nsub+1 {
			c.afterErr = fmt.Errorf("re: the search companion of %q has %d groups, not %d", c.pattern, c.after.NumSubexp(), c.nsub+1)
		}
	})
	return c.after, c.afterErr
}

// A patternCache keeps compiled patterns (and the errors of those that do not
// compile), the most recently used first, within its bounds. It is safe for
// concurrent use.
type patternCache struct {
	maxEntries, maxWeight int

	mu     sync.Mutex
	byText map[string]*list.Element // of *cacheEntry
	order  *list.List
	weight int // instructions held, a failure counting 1
}

type cacheEntry struct {
	pattern string
	c       *compiled
	err     error
}

func (e *cacheEntry) weight() int {
	if e.c == nil {
		return 1
	}
	return e.c.size
}

// newPatternCache returns a cache of at most entries patterns weighing at most
// weight instructions.
func newPatternCache(entries, weight int) *patternCache {
	return &patternCache{maxEntries: entries, maxWeight: weight, byText: map[string]*list.Element{}, order: list.New()}
}

// get returns the compiled pattern, compiling it on a miss. Two goroutines missing
// the same pattern at once may both compile it; the cache keeps one.
func (pc *patternCache) get(pattern string) (*compiled, error) {
	pc.mu.Lock()
	if el, ok := pc.byText[pattern]; ok {
		pc.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		pc.mu.Unlock()
		return e.c, e.err
	}
	pc.mu.Unlock()
	c, err := compilePattern(pattern)
	e := &cacheEntry{pattern: pattern, c: c, err: err}
	if len(pattern) > maxPatternBytes {
		return c, err // not worth keeping the text of a pattern refused for its length
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if _, ok := pc.byText[pattern]; !ok {
		pc.byText[pattern] = pc.order.PushFront(e)
		pc.weight += e.weight()
		for pc.order.Len() > pc.maxEntries || pc.weight > pc.maxWeight {
			last := pc.order.Back()
			old := last.Value.(*cacheEntry)
			pc.order.Remove(last)
			delete(pc.byText, old.pattern)
			pc.weight -= old.weight()
		}
	}
	return c, err
}
