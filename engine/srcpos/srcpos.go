// Package srcpos is the position of something in a file: the one position type of
// luatool's errors and diagnostics (script errors, load diagnostics, settings and rule
// errors), so that every message says where in the same words.
package srcpos

import "strconv"

// A Pos is a place in a file. Line and Column are 1-based; zero means unknown (a
// problem of the whole file has no line, one of a whole line no column). Column counts
// characters, not bytes.
type Pos struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// String renders "file:line:column", leaving out the parts that are unknown: "file:line",
// "file", or "" for the zero Pos.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			s += ":" + strconv.Itoa(p.Column)
		}
	}
	return s
}

// Prefix renders the position followed by ": ", the start of a message about it, or ""
// when the position is unknown.
func (p Pos) Prefix() string {
	if s := p.String(); s != "" {
		return s + ": "
	}
	return ""
}
