package luapattern

// This file turns a pattern into a flat program. Lua 5.1 interprets the pattern text
// directly and raises a syntax error only when matching reaches the bad item; the
// program keeps that behaviour by compiling the first bad item into an opError that
// fails the call when it is executed. Everything after it is unreachable (a pattern has
// no alternation), so compilation stops there.
//
// The level of every capture (which '(' it is, whether it is closed) is a static
// property of the position in the pattern, because the matcher walks the pattern
// strictly left to right. The compiler therefore resolves ')' to its capture, checks
// back-references and the capture limit, and knows which captures stay unfinished.

// opKind says what an instruction does.
type opKind uint8

const (
	opChar      opKind = iota // one character class, maybe with a quantifier
	opOpen                    // '(': start capture arg
	opPosition                // "()": position capture arg
	opClose                   // ')': close capture arg
	opBalance                 // %bxy, x and y in a and b
	opFrontier                // %f[set]
	opBackref                 // %1-%9: match capture arg again
	opNever                   // a back-reference to a position capture: never matches
	opEnd                     // end of pattern: success
	opEndAnchor               // '$' at the end of the pattern: success at end of subject only
	opError                   // a malformed item: raise the program's err
)

// Quantifiers of an opChar.
const (
	repOne  = 0
	repOpt  = '?'
	repStar = '*'
	repPlus = '+'
	repMin  = '-'
)

// Character class kinds of an opChar.
const (
	clsLit = iota // the byte in a
	clsAny        // '.'
	clsSet        // *set
)

// op is one instruction.
type op struct {
	kind opKind
	rep  byte     // quantifier of an opChar
	cls  byte     // class kind of an opChar
	a, b byte     // literal byte; %b delimiters
	arg  int32    // capture index
	set  *charSet // class of a clsSet or repeated clsLit opChar; %f's set
}

// single reports whether c matches the class of an opChar.
func (o *op) single(c byte) bool {
	switch o.cls {
	case clsLit:
		return c == o.a
	case clsAny:
		return true
	default:
		return o.set.has(c)
	}
}

// capKind says how a capture ends up after a successful match.
type capKind uint8

const (
	capString     capKind = iota // closed by ')'
	capPos                       // "()"
	capUnfinished                // never closed: reading it raises "unfinished capture"
)

// program is a compiled pattern.
type program struct {
	ops      []op
	err      string    // the message of the final opError, if any
	caps     []capKind // one per capture, in order of their '('
	anchored bool      // the pattern started with '^' and it was stripped
	// first, when not nil, holds the bytes a match must start with: the pattern opens
	// with a mandatory character item, maybe after captures. It lets the search skip
	// start positions that cannot match.
	first *charSet
	// firstLit is that item's byte when first is a single literal, else -1.
	firstLit int
}

// compiler holds the state of one compilation.
type compiler struct {
	pat    string
	prog   *program
	closed []bool // per capture: its ')' (or "()") has been seen
}

// compile compiles pat. With anchor set, a leading '^' anchors the match (find,
// match, gsub); without it, as in gmatch, '^' is an ordinary character.
func compile(pat string, anchor bool) *program {
	c := &compiler{pat: pat, prog: &program{firstLit: -1}}
	i := 0
	if anchor && len(pat) > 0 && pat[0] == '^' {
		c.prog.anchored = true
		i = 1
	}
	for i >= 0 {
		i = c.item(i)
	}
	c.finish()
	return c.prog
}

// item compiles the item at pat[i:] and returns the index of the next one, or -1 when
// the program is complete.
func (c *compiler) item(i int) int {
	p := c.pat
	if i == len(p) {
		c.emit(op{kind: opEnd})
		return -1
	}
	switch p[i] {
	case '(':
		if i+1 < len(p) && p[i+1] == ')' {
			return c.open(i+2, opPosition)
		}
		return c.open(i+1, opOpen)
	case ')':
		return c.close(i + 1)
	case '$':
		if i+1 == len(p) {
			c.emit(op{kind: opEndAnchor})
			return -1
		}
	case '%':
		if i+1 < len(p) {
			switch e := p[i+1]; {
			case e == 'b':
				return c.balance(i + 2)
			case e == 'f':
				return c.frontier(i + 2)
			case '0' <= e && e <= '9':
				return c.backref(i+2, int(e)-'1')
			}
		}
	}
	return c.single(i)
}

func (c *compiler) emit(o op) { c.prog.ops = append(c.prog.ops, o) }

// fail emits an opError and ends the program.
func (c *compiler) fail(msg string) int {
	c.emit(op{kind: opError})
	c.prog.err = msg
	return -1
}

func (c *compiler) open(next int, kind opKind) int {
	n := len(c.prog.caps)
	if n >= MaxCaptures {
		return c.fail(msgTooManyCaptures)
	}
	c.emit(op{kind: kind, arg: int32(n)})
	if kind == opPosition {
		c.prog.caps = append(c.prog.caps, capPos)
		c.closed = append(c.closed, true)
	} else {
		c.prog.caps = append(c.prog.caps, capUnfinished)
		c.closed = append(c.closed, false)
	}
	return next
}

// close closes the innermost capture still open, as Lua's capture_to_close does.
func (c *compiler) close(next int) int {
	for l := len(c.closed) - 1; l >= 0; l-- {
		if !c.closed[l] {
			c.closed[l] = true
			c.prog.caps[l] = capString
			c.emit(op{kind: opClose, arg: int32(l)})
			return next
		}
	}
	return c.fail(msgInvalidCapture)
}

func (c *compiler) balance(i int) int {
	if i+1 >= len(c.pat) {
		return c.fail(msgUnbalanced)
	}
	c.emit(op{kind: opBalance, a: c.pat[i], b: c.pat[i+1]})
	return i + 2
}

func (c *compiler) frontier(i int) int {
	if i >= len(c.pat) || c.pat[i] != '[' {
		return c.fail(msgMissingFrontier)
	}
	end, msg := c.classEnd(i)
	if msg != "" {
		return c.fail(msg)
	}
	set := c.bracket(i, end-1)
	c.emit(op{kind: opFrontier, set: &set})
	return end
}

// backref compiles %1-%9; l is the 0-based capture index (-1 for %0).
func (c *compiler) backref(next, l int) int {
	if l < 0 || l >= len(c.closed) || !c.closed[l] {
		return c.fail(msgInvalidIndex)
	}
	if c.prog.caps[l] == capPos {
		c.emit(op{kind: opNever})
	} else {
		c.emit(op{kind: opBackref, arg: int32(l)})
	}
	return next
}

// single compiles a character class at pat[i] and its quantifier, if any.
func (c *compiler) single(i int) int {
	end, msg := c.classEnd(i)
	if msg != "" {
		return c.fail(msg)
	}
	o := op{kind: opChar}
	switch c.pat[i] {
	case '.':
		o.cls = clsAny
	case '%':
		o.cls, o.a, o.set = classOf(c.pat[i+1])
	case '[':
		set := c.bracket(i, end-1)
		o.cls, o.set = clsSet, &set
	default:
		o.cls, o.a = clsLit, c.pat[i]
	}
	if end < len(c.pat) {
		switch q := c.pat[end]; q {
		case repOpt, repStar, repPlus, repMin:
			o.rep = q
			end++
		}
	}
	if o.cls == clsLit && (o.rep == repStar || o.rep == repPlus) {
		o.set = new(charSet) // expand scans with a set
		o.set.add(o.a)
	}
	c.emit(o)
	return end
}

// classEnd returns the index just past the class at pat[i], or Lua's message for a
// malformed one. It mirrors Lua 5.1's classEnd.
func (c *compiler) classEnd(i int) (int, string) {
	p := c.pat
	switch p[i] {
	case '%':
		if i+1 >= len(p) {
			return 0, msgEndsWithPercent
		}
		return i + 2, ""
	case '[':
		j := i + 1
		if j < len(p) && p[j] == '^' {
			j++
		}
		for { // the first byte is always part of the set, even ']'
			if j >= len(p) {
				return 0, msgMissingBracket
			}
			ch := p[j]
			j++
			if ch == '%' && j < len(p) {
				j++ // skip the escaped byte, e.g. "%]"
			}
			if j < len(p) && p[j] == ']' {
				return j + 1, ""
			}
		}
	default:
		return i + 1, ""
	}
}

// bracket builds the set of the class pat[start:end+1], where pat[start] is '[' and
// pat[end] its closing ']'. It mirrors Lua 5.1's matchbracketclass, quirks included:
// a range needs a plain byte on both sides ("[%a-z]" is letters, '-' and 'z').
func (c *compiler) bracket(start, end int) charSet {
	p := c.pat
	var s charSet
	j := start + 1
	negate := j < end && p[j] == '^'
	if negate {
		j++
	}
	for ; j < end; j++ {
		switch {
		case p[j] == '%':
			j++
			s.addClass(p[j])
		case p[j+1] == '-' && j+2 < end:
			s.addRange(p[j], p[j+2])
			j += 2
		default:
			s.add(p[j])
		}
	}
	if negate {
		s.invert()
	}
	return s
}

// finish records what the search can use to skip start positions.
func (c *compiler) finish() {
	if c.prog.anchored {
		return
	}
	for k := range c.prog.ops {
		o := &c.prog.ops[k]
		switch o.kind {
		case opOpen, opPosition:
			continue
		case opChar:
			if o.rep == repOne || o.rep == repPlus {
				c.setFirst(o)
			}
		}
		return
	}
}

func (c *compiler) setFirst(o *op) {
	switch o.cls {
	case clsLit:
		var s charSet
		s.add(o.a)
		c.prog.first, c.prog.firstLit = &s, int(o.a)
	case clsSet:
		c.prog.first = o.set
	}
}

// classOf returns the class of "%" followed by cl: a letter class as a set, or any
// other byte as itself.
func classOf(cl byte) (kind, lit byte, set *charSet) {
	var s charSet
	if !s.addClass(cl) {
		return clsLit, cl, nil
	}
	return clsSet, 0, &s
}
