package hostmod

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Text encodings of files, as fs.read and fs.lines report them in info.encoding and
// fs.write takes them in its encoding option. Lua always sees UTF-8 without a BOM;
// the encoding says how the file stores it. Reading never yields encUTF16BE: as in
// the original's tools, a file that starts FE FF is read as the bytes it holds (and
// reported as notTextUTF16BE); fs.write can still write it.
const (
	encUTF8    = "utf8"    // UTF-8 without a byte order mark (also any other bytes)
	encUTF8BOM = "utf8bom" // UTF-8 after the mark EF BB BF
	encUTF16LE = "utf16le" // UTF-16, little-endian, after the mark FF FE
	encUTF16BE = "utf16be" // UTF-16, big-endian, after the mark FE FF (written only)
)

// The byte order marks that select an encoding.
var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// detectEncoding names the encoding a file that starts with head (at least its
// first three bytes, when it has them) is read in: the one its byte order mark
// selects, or encUTF8 without one (or with FE FF, see encUTF16BE).
func detectEncoding(head []byte) string {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return encUTF8BOM
	case bytes.HasPrefix(head, bomUTF16LE):
		return encUTF16LE
	}
	return encUTF8
}

// validEncoding tells whether enc is one of the encodings fs.write accepts.
func validEncoding(enc string) bool {
	switch enc {
	case encUTF8, encUTF8BOM, encUTF16LE, encUTF16BE:
		return true
	}
	return false
}

// decodeText returns raw as UTF-8 without its byte order mark, and raw's encoding.
// A file without a mark is returned unchanged. In UTF-16, an unpaired surrogate or
// a final odd byte becomes U+FFFD.
func decodeText(raw []byte) ([]byte, string) {
	enc := detectEncoding(raw)
	switch enc {
	case encUTF8BOM:
		return raw[len(bomUTF8):], enc
	case encUTF16LE:
		out, _ := io.ReadAll(newUTF16Reader(bytes.NewReader(raw[2:]), binary.LittleEndian))
		return out, enc
	}
	return raw, enc
}

// encodeText returns the UTF-8 text in encoding enc, with the byte order mark that
// enc calls for. Invalid UTF-8 becomes U+FFFD in UTF-16.
func encodeText(text []byte, enc string) ([]byte, error) {
	switch enc {
	case encUTF8:
		return text, nil
	case encUTF8BOM:
		return append(append(make([]byte, 0, len(bomUTF8)+len(text)), bomUTF8...), text...), nil
	case encUTF16LE, encUTF16BE:
		units := utf16.Encode(bytes.Runes(text))
		out := make([]byte, 2, 2+2*len(units))
		copy(out, bomUTF16LE)
		if enc == encUTF16BE {
			copy(out, bomUTF16BE)
		}
		for _, u := range units {
			if enc == encUTF16BE {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown encoding %q", enc)
}

// decodingReader returns a reader of r's content as UTF-8 without a byte order
// mark, and r's encoding, which it detects from the first bytes.
func decodingReader(r io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(3)
	if err != nil && err != io.EOF {
		return nil, "", err
	}
	enc := detectEncoding(head)
	switch enc {
	case encUTF8BOM:
		br.Discard(len(bomUTF8))
	case encUTF16LE:
		br.Discard(2)
		return newUTF16Reader(br, binary.LittleEndian), enc, nil
	}
	return br, enc, nil
}

// searchedText is a file's content as ripgrep searches it: after a UTF-8 byte order
// mark, or transcoded to UTF-8 from UTF-16 of either byte order after its mark.
// ripgrep looks at the mark only: UTF-16 without one holds NUL bytes, so it is
// binary. fs reads a file that starts FE FF as its bytes (see encUTF16BE); ripgrep
// transcodes it.
func searchedText(raw []byte) []byte {
	if bytes.HasPrefix(raw, bomUTF16BE) {
		out, _ := io.ReadAll(newUTF16Reader(bytes.NewReader(raw[2:]), binary.BigEndian))
		return out
	}
	text, _ := decodeText(raw)
	return text
}

// utf16Reader decodes UTF-16 (without its mark) from r into UTF-8.
type utf16Reader struct {
	r       *bufio.Reader
	order   binary.ByteOrder
	pending []byte // decoded bytes not yet returned
	err     error  // the error of r, returned once pending is empty
}

func newUTF16Reader(r io.Reader, order binary.ByteOrder) *utf16Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &utf16Reader{r: br, order: order}
}

// unit reads one code unit; ok is false at the end or on an error (kept in u.err).
// A final odd byte is returned as U+FFFD.
func (u *utf16Reader) unit() (uint16, bool) {
	var b [2]byte
	n, err := io.ReadFull(u.r, b[:])
	switch {
	case err == io.ErrUnexpectedEOF && n == 1:
		u.err = io.EOF
		return utf8.RuneError, true
	case err != nil:
		u.err = err
		if err == io.ErrUnexpectedEOF {
			u.err = io.EOF
		}
		return 0, false
	}
	return u.order.Uint16(b[:]), true
}

// Read implements io.Reader.
func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.pending) < len(p) && u.err == nil {
		c, ok := u.unit()
		if !ok {
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
			if c < 0xDC00 { // a high surrogate: a low one must follow
				if next, err := u.r.Peek(2); err == nil {
					lo := u.order.Uint16(next)
					if lo >= 0xDC00 && lo <= 0xDFFF {
						u.r.Discard(2)
						r = utf16.DecodeRune(rune(c), rune(lo))
					}
				}
			}
		}
		u.pending = utf8.AppendRune(u.pending, r)
	}
	n := copy(p, u.pending)
	u.pending = u.pending[n:]
	if len(u.pending) == 0 {
		u.pending = nil
	}
	if n == 0 && u.err != nil {
		return 0, u.err
	}
	return n, nil
}

// utf8Check is an io.Writer that learns whether all the bytes written to it, taken
// together, are UTF-8, without keeping them: a sequence cut between two writes is
// judged once its end arrives.
type utf8Check struct {
	tail    []byte // the start of a sequence that the last write cut off
	invalid bool
}

// Write implements io.Writer; it never fails.
func (c *utf8Check) Write(p []byte) (int, error) {
	n := len(p)
	if c.invalid {
		return n, nil
	}
	for len(c.tail) > 0 && len(p) > 0 && !utf8.FullRune(c.tail) {
		c.tail, p = append(c.tail, p[0]), p[1:]
	}
	if len(c.tail) > 0 {
		if !utf8.FullRune(c.tail) {
			return n, nil
		}
		if !utf8.Valid(c.tail) {
			c.invalid = true
			return n, nil
		}
		c.tail = c.tail[:0]
	}
	cut := len(p) - cutSequence(p)
	if !utf8.Valid(p[:cut]) {
		c.invalid = true
		return n, nil
	}
	c.tail = append(c.tail, p[cut:]...)
	return n, nil
}

// valid tells whether everything written so far is UTF-8, ending with a whole
// sequence.
func (c *utf8Check) valid() bool {
	return !c.invalid && len(c.tail) == 0
}

// cutSequence is the length of the sequence that p ends in the middle of: its last
// 1 to 3 bytes when they start a sequence that needs more, else 0.
func cutSequence(p []byte) int {
	for i := 1; i <= min(len(p), utf8.UTFMax-1); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if utf8.FullRune(p[len(p)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
