package luapattern

// charSet is a set of bytes.
type charSet [4]uint64

func (s *charSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func (s *charSet) add(c byte) { s[c>>6] |= 1 << (c & 63) }

// addRange adds lo..hi; it adds nothing when lo > hi.
func (s *charSet) addRange(lo, hi byte) {
	for w := int(lo) >> 6; w <= int(hi)>>6; w++ {
		from := max(int(lo)-w*64, 0)
		to := min(int(hi)-w*64, 63)
		if from <= to {
			s[w] |= ^uint64(0) >> (63 - to) &^ (1<<from - 1)
		}
	}
}

func (s *charSet) invert() {
	for i := range s {
		s[i] = ^s[i]
	}
}

// addClass adds what "%" followed by cl matches, as Lua 5.1's match_class does in the
// C locale: a letter class (or its complement, for the upper-case letter), or else
// the byte cl itself. It reports whether cl named a class.
func (s *charSet) addClass(cl byte) bool {
	var c charSet
	switch cl | 0x20 { // only ASCII letters reach the letter cases
	case 'a':
		c.addRange('A', 'Z')
		c.addRange('a', 'z')
	case 'c':
		c.addRange(0, 0x1f)
		c.add(0x7f)
	case 'd':
		c.addRange('0', '9')
	case 'l':
		c.addRange('a', 'z')
	case 'p':
		c.addRange('!', '/')
		c.addRange(':', '@')
		c.addRange('[', '`')
		c.addRange('{', '~')
	case 's':
		c.addRange('\t', '\r')
		c.add(' ')
	case 'u':
		c.addRange('A', 'Z')
	case 'w':
		c.addRange('0', '9')
		c.addRange('A', 'Z')
		c.addRange('a', 'z')
	case 'x':
		c.addRange('0', '9')
		c.addRange('A', 'F')
		c.addRange('a', 'f')
	case 'z':
		c.add(0)
	default:
		s.add(cl)
		return false
	}
	if cl < 'a' {
		c.invert()
	}
	for i := range s {
		s[i] |= c[i]
	}
	return true
}
