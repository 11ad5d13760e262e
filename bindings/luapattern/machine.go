package luapattern

import "strings"

// This file runs a program against a subject. Lua 5.1's matcher is a recursive
// backtracking function; this one explores the same choices in the same order with an
// explicit stack of choice points:
//
//   - x? tries one x first, then none;
//   - x* and x+ take as many x as possible, then give them back one at a time;
//   - x- takes none first, then one more at a time.
//
// Execution only moves forward through the program, so each quantified item has at
// most one choice point on the stack: the stack is never deeper than the program.
// Captures need no undo log either: a capture slot is written only by its own
// '(' and ')' instructions, and any path that reads it after backtracking has executed
// them again.

// choice is a point to resume from when the rest of the match fails.
type choice struct {
	pc  int // the quantified opChar
	cur int // subject position last tried after the item
	min int // for * and +: the fewest repetitions' end position
}

// span is where a capture starts and ends in the subject.
type span struct{ start, end int }

// machine holds the state of one call: the subject, the step budget and the scratch
// space reused by every match attempt.
type machine struct {
	budget
	prog  *program
	subj  string
	caps  [MaxCaptures]span
	stack []choice
}

func newMachine(b budget, prog *program, subj string) *machine {
	return &machine{budget: b, prog: prog, subj: subj}
}

// step takes one step.
func (m *machine) step() error {
	m.left--
	if m.left < 0 {
		return m.refill()
	}
	return nil
}

// find searches for the first match starting at or after from (only at from when the
// program is anchored) and returns its bounds.
func (m *machine) find(from int) (start, end int, found bool, err error) {
	n := len(m.subj)
	for s := from; s <= n; s++ {
		if m.prog.first != nil {
			if s, err = m.skip(s); err != nil || s == n {
				return 0, 0, false, err
			}
		}
		e, ok, merr := m.match(s)
		if merr != nil || ok {
			return s, e, ok, merr
		}
		if m.prog.anchored {
			break
		}
	}
	return 0, 0, false, nil
}

// skip returns the first position at or after s where the subject holds a byte that a
// match must start with, or the subject's length. It charges one step per byte
// passed, as trying a match there would.
func (m *machine) skip(s int) (int, error) {
	if m.prog.firstLit >= 0 {
		i := strings.IndexByte(m.subj[s:], byte(m.prog.firstLit))
		if i < 0 {
			i = len(m.subj) - s
		}
		return s + i, m.charge(int64(i))
	}
	return m.scan(m.prog.first, s, false)
}

// scan returns the first position at or after s whose byte is (when want is false: is
// not) in set, or the subject's length, charging a step per byte tested. It works in
// windows so that a long scan still checks the context in time.
func (m *machine) scan(set *charSet, s int, want bool) (int, error) {
	subj := m.subj
	for {
		lim := min(len(subj), s+int(m.every))
		start := s
		for s < lim && set.has(subj[s]) == want {
			s++
		}
		if err := m.charge(int64(s-start) + 1); err != nil {
			return s, err
		}
		if s < lim || lim == len(subj) {
			return s, nil
		}
	}
}

// match tries the program at subject position s and returns the end of the match.
// Every instruction executed costs a step, so the work between two steps is bounded.
func (m *machine) match(s int) (int, bool, error) {
	ops, subj := m.prog.ops, m.subj
	m.stack = m.stack[:0]
	pc := 0
	for {
		if m.left--; m.left < 0 {
			if err := m.refill(); err != nil {
				return 0, false, err
			}
		}
		var ok bool
		var err error
		o := &ops[pc]
		switch o.kind {
		case opChar:
			if o.rep == repOne {
				ok = s < len(subj) && o.single(subj[s])
				if ok {
					s++
				}
			} else {
				s, ok, err = m.char(pc, o, s)
			}
		case opOpen:
			m.caps[o.arg] = span{s, -1}
			ok = true
		case opPosition:
			m.caps[o.arg] = span{s, s}
			ok = true
		case opClose:
			m.caps[o.arg].end = s
			ok = true
		case opBalance:
			s, ok, err = m.balance(o, s)
		case opFrontier:
			ok = m.frontier(o, s)
		case opBackref:
			s, ok, err = m.backref(o, s)
		case opEnd:
			return s, true, nil
		case opEndAnchor:
			if s == len(subj) {
				return s, true, nil
			}
		case opError:
			return 0, false, &PatternError{Msg: m.prog.err}
		}
		// opNever, and opEndAnchor away from the end, leave ok false.
		if err != nil {
			return 0, false, err
		}
		if ok {
			pc++
			continue
		}
		if pc, s, ok, err = m.backtrack(); err != nil || !ok {
			return 0, false, err
		}
	}
}

// char runs the quantified opChar o at program counter pc on position s, pushing a
// choice point when the item has alternatives left, and returns the position after it.
func (m *machine) char(pc int, o *op, s int) (int, bool, error) {
	if o.rep == repMin { // try no repetition first
		m.stack = append(m.stack, choice{pc: pc, cur: s})
		return s, true, nil
	}
	if s >= len(m.subj) || !o.single(m.subj[s]) {
		return s, o.rep != repPlus, nil // ? and * accept no repetition
	}
	switch o.rep {
	case repOpt:
		m.stack = append(m.stack, choice{pc: pc, cur: s})
	case repStar, repPlus:
		e, err := m.expand(o, s+1)
		if err != nil {
			return s, false, err
		}
		low := s
		if o.rep == repPlus {
			low = s + 1
		}
		if e > low {
			m.stack = append(m.stack, choice{pc: pc, cur: e, min: low})
		}
		return e, true, nil
	}
	return s + 1, true, nil
}

// expand returns the end of the longest run of bytes matching o's class from s.
func (m *machine) expand(o *op, s int) (int, error) {
	if o.cls == clsAny {
		n := len(m.subj)
		return n, m.charge(int64(n-s) + 1)
	}
	return m.scan(o.set, s, true)
}

// backtrack resumes from the newest choice point that has an alternative left and
// returns where to continue; it reports false when none is left.
func (m *machine) backtrack() (pc, s int, ok bool, err error) {
	for len(m.stack) > 0 {
		if err := m.step(); err != nil {
			return 0, 0, false, err
		}
		top := len(m.stack) - 1
		c := &m.stack[top]
		o := &m.prog.ops[c.pc]
		switch o.rep {
		case repOpt: // the one repetition failed: try none
			pc, s = c.pc+1, c.cur
			m.stack = m.stack[:top]
			return pc, s, true, nil
		case repStar, repPlus: // give one repetition back
			c.cur--
			pc, s = c.pc+1, c.cur
			if c.cur == c.min {
				m.stack = m.stack[:top]
			}
			return pc, s, true, nil
		case repMin: // take one more repetition, if the subject allows
			if c.cur < len(m.subj) && o.single(m.subj[c.cur]) {
				c.cur++
				return c.pc + 1, c.cur, true, nil
			}
			m.stack = m.stack[:top]
		}
	}
	return 0, 0, false, nil
}

// balance runs %bxy at s.
func (m *machine) balance(o *op, s int) (int, bool, error) {
	subj := m.subj
	if s >= len(subj) || subj[s] != o.a {
		return s, false, nil
	}
	depth := 1
	for j := s + 1; j < len(subj); j++ {
		if err := m.step(); err != nil {
			return s, false, err
		}
		switch subj[j] {
		case o.b:
			if depth--; depth == 0 {
				return j + 1, true, nil
			}
		case o.a:
			depth++
		}
	}
	return s, false, nil
}

// frontier runs %f[set] at s. The bytes before the subject and after it count as
// NUL, as in Lua 5.1.
func (m *machine) frontier(o *op, s int) bool {
	var prev, cur byte
	if s > 0 {
		prev = m.subj[s-1]
	}
	if s < len(m.subj) {
		cur = m.subj[s]
	}
	return !o.set.has(prev) && o.set.has(cur)
}

// backref runs %n at s: the text of capture n again.
func (m *machine) backref(o *op, s int) (int, bool, error) {
	c := m.caps[o.arg]
	l := c.end - c.start
	if err := m.charge(int64(l)); err != nil {
		return s, false, err
	}
	if len(m.subj)-s >= l && m.subj[s:s+l] == m.subj[c.start:c.end] {
		return s + l, true, nil
	}
	return s, false, nil
}
