package puremod

import (
	"fmt"
	"strconv"
	"strings"
)

// A template is a gsub replacement string, compiled: literal text and group
// references. The syntax is Go's Regexp.Expand: $1 or ${1} for a group by number
// ($0 the whole match), $name or ${name} by name, $$ for a dollar sign; a name is the
// longest run of letters, digits and underscores. Unlike Expand, which reads a
// reference it cannot resolve as empty text and a lone $ as itself, compileTemplate
// refuses both, so that "$1x" (group "1x") or "cost: $5" is an error naming the fix
// instead of a silent wrong result.
type template []templatePart

// A templatePart is literal text (group < 0) or a reference to a group.
type templatePart struct {
	text  string
	group int
}

func compileTemplate(tmpl string, c *compiled) (template, error) {
	var out template
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, templatePart{text: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(tmpl); {
		d := strings.IndexByte(tmpl[i:], '$')
		if d < 0 {
			lit.WriteString(tmpl[i:])
			break
		}
		lit.WriteString(tmpl[i : i+d])
		at := i + d
		i = at + 1
		if i < len(tmpl) && tmpl[i] == '$' {
			lit.WriteByte('$')
			i++
			continue
		}
		braced := i < len(tmpl) && tmpl[i] == '{'
		if braced {
			i++
		}
		end := i
		for end < len(tmpl) && isNameByte(tmpl[end]) {
			end++
		}
		name := tmpl[i:end]
		if name == "" || (braced && (end >= len(tmpl) || tmpl[end] != '}')) {
			return nil, fmt.Errorf("the '$' at byte %d of the replacement starts no group reference: write $$ for a dollar sign", at+1)
		}
		i = end
		if braced {
			i++
		}
		g, err := groupOf(name, c)
		if err != nil {
			return nil, err
		}
		flush()
		out = append(out, templatePart{group: g})
	}
	flush()
	return out, nil
}

func isNameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// groupOf resolves a template's reference to a group of c.
func groupOf(name string, c *compiled) (int, error) {
	digits := 0
	for digits < len(name) && '0' <= name[digits] && name[digits] <= '9' {
		digits++
	}
	if digits == len(name) {
		if n, err := strconv.Atoi(name); err == nil && n <= c.nsub {
			return n, nil
		}
		return 0, fmt.Errorf("the replacement refers to group %s, but the pattern has %d", name, c.nsub)
	}
	if g := c.rx.SubexpIndex(name); g > 0 {
		return g, nil
	}
	if digits > 0 {
		return 0, fmt.Errorf("the replacement refers to group '%s', which the pattern does not name: write ${%s}%s for group %s followed by %q",
			name, name[:digits], name[digits:], name[:digits], name[digits:])
	}
	return 0, fmt.Errorf("the replacement refers to group '%s', which the pattern does not name", name)
}

// expand appends the template for the match loc of s to b.
func (t template) expand(b *strings.Builder, s string, loc []int) {
	for _, p := range t {
		if p.group < 0 {
			b.WriteString(p.text)
		} else if loc[2*p.group] >= 0 {
			b.WriteString(s[loc[2*p.group]:loc[2*p.group+1]])
		}
	}
}

// size is the length of the template's expansion for the match loc.
func (t template) size(loc []int) int {
	n := 0
	for _, p := range t {
		if p.group < 0 {
			n += len(p.text)
		} else if loc[2*p.group] >= 0 {
			n += loc[2*p.group+1] - loc[2*p.group]
		}
	}
	return n
}
