package hostmod

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// rgBufferSize is the capacity of ripgrep's line buffer: a file is read in pieces
// that fill it, and each piece is looked at for a NUL byte as it is read.
const rgBufferSize = 64 << 10

// quitCut returns how much of data ripgrep searches when it finds the file by
// walking a directory: it stops reading at the first piece holding a NUL byte,
// before searching that piece, so only the lines read whole before it count.
// Without a NUL the whole of data is searched.
func quitCut(data []byte) int {
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return len(data)
	}
	// The buffer holds data[start:end]; lines up to searched have been searched.
	// Each read fills the buffer's free room, and a full buffer doubles.
	capacity, start, end, searched := rgBufferSize, 0, 0, 0
	for end < len(data) {
		start = searched // the partial last line is moved to the front
		if end-start == capacity {
			capacity *= 2
		}
		n := min(capacity-(end-start), len(data)-end)
		if nul < end+n {
			return searched
		}
		if i := bytes.LastIndexByte(data[end:end+n], '\n'); i >= 0 {
			searched = end + i + 1
		}
		end += n
	}
	return len(data)
}

// explicitBinaryOffset returns where ripgrep reports the binary data of a file named
// on its command line (which it searches whole): the first NUL in its first buffer,
// or else the first NUL in a line it printed (lines, the printed lines' ranges in
// data); -1 when it reports none.
func explicitBinaryOffset(data []byte, lines [][2]int) int {
	if i := bytes.IndexByte(data[:min(len(data), rgBufferSize)], 0); i >= 0 {
		return i
	}
	first := -1
	for _, l := range lines {
		if i := bytes.IndexByte(data[l[0]:l[1]], 0); i >= 0 && (first < 0 || l[0]+i < first) {
			first = l[0] + i
		}
	}
	return first
}

// binaryNote is the line the original adds after a file's printed lines when
// ripgrep reported binary data in it.
func binaryNote(offset int) string {
	return fmt.Sprintf(`binary file matches (found "\0" byte around offset %d)`, offset)
}

// withBinaryNote drops the printed lines that hold a NUL byte, as the original
// does, and ends the groups with the binary note: when ripgrep printed any line
// of a file holding binary data at offset, the original says so in one more line.
func withBinaryNote(groups [][]hitLine, offset int) [][]hitLine {
	if offset < 0 || len(groups) == 0 {
		return groups
	}
	var out [][]hitLine
	for _, g := range groups {
		var kept []hitLine
		for _, l := range g {
			if !strings.Contains(l.text, "\x00") {
				kept = append(kept, l)
			}
		}
		if len(kept) > 0 {
			out = append(out, kept)
		}
	}
	note := hitLine{text: binaryNote(offset), note: true}
	if len(out) == 0 {
		return [][]hitLine{{note}}
	}
	out[len(out)-1] = append(out[len(out)-1], note)
	return out
}

// lossyText is b as text, each byte that is not part of valid UTF-8 replaced by
// U+FFFD, as the original decodes the bytes ripgrep reports for such a line.
func lossyText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}
