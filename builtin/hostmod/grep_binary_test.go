package hostmod

import (
	"strings"
	"testing"
)

func TestQuitCut(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	cases := []struct {
		data string
		want int
	}{
		{"no nul\n", 7},
		{"a\n\x00", 0},
		{strings.Repeat(line, 700) + "\x00", 65500}, // the second read holds the NUL
		{strings.Repeat(line, 1400) + "\x00", 131000},
	}
	for _, c := range cases {
		if got := quitCut([]byte(c.data)); got != c.want {
			t.Errorf("quitCut(%d bytes, NUL at %d) = %d, want %d", len(c.data), strings.IndexByte(c.data, 0), got, c.want)
		}
	}
}

func TestLossyText(t *testing.T) {
	if got, want := lossyText([]byte("a\x80\xffb\u00e9")), "a\ufffd\ufffdb\u00e9"; got != want {
		t.Errorf("lossyText = %q, want %q", got, want)
	}
}
