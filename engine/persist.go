package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// previewChars is the size of the preview a persisted result leaves inline.
const previewChars = 2000

// persistIfLarge writes content over the tool's threshold to ResultsDir and returns
// the <persisted-output> text that replaces it, with the file's path. Content with a
// non-text block, content within the threshold, or a failed write passes unchanged.
func (e *Engine) persistIfLarge(t *Tool, toolUseID string, c Content) (Content, string) {
	limit := t.MaxResultSizeChars()
	if math.IsInf(limit, 1) {
		return c, ""
	}
	size := 0
	for _, b := range c {
		if b.Type != "text" {
			return c, ""
		}
		size += utf8.RuneCountInString(b.Text)
	}
	if float64(size) <= limit {
		return c, ""
	}
	text := c.String()
	path, err := e.writeResult(toolUseID, text)
	if err != nil {
		return c, ""
	}
	return Text(persistedText(text, size, path)), path
}

// writeResult stores a result once: a replay of the same tool_use id keeps the file.
func (e *Engine) writeResult(toolUseID, text string) (string, error) {
	dir, err := e.results()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, safeFileName(toolUseID)+".txt")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// results returns the results directory, making it on first use: Options.ResultsDir,
// or a new directory of the engine's own under os.TempDir(), which Close removes.
func (e *Engine) results() (string, error) {
	e.resultsMu.Lock()
	defer e.resultsMu.Unlock()
	if e.resultsDir != "" {
		return e.resultsDir, nil
	}
	if e.opts.ResultsDir != "" {
		if err := os.MkdirAll(e.opts.ResultsDir, 0o700); err != nil {
			return "", err
		}
		e.resultsDir = e.opts.ResultsDir
		return e.resultsDir, nil
	}
	dir, err := os.MkdirTemp("", "luatool-results-")
	if err != nil {
		return "", err
	}
	e.resultsDir, e.ownResults = dir, true
	return dir, nil
}

// persistedText is the <persisted-output> block; size is in characters, the unit of
// the threshold.
func persistedText(text string, size int, path string) string {
	preview, more := previewOf(text)
	var b strings.Builder
	b.WriteString("<persisted-output>\n")
	fmt.Fprintf(&b, "Output too large (%s). Full output saved to: %s\n\n", formatSize(size), path)
	b.WriteString("Preview (first 2KB):\n")
	b.WriteString(preview)
	if more {
		b.WriteString("\n...")
	}
	b.WriteString("\n</persisted-output>")
	return b.String()
}

// previewOf returns the first previewChars characters, cut back to the last newline
// when that keeps more than half of them.
func previewOf(text string) (string, bool) {
	r := []rune(text)
	if len(r) <= previewChars {
		return text, false
	}
	p := string(r[:previewChars])
	if i := strings.LastIndexByte(p, '\n'); i > len(p)/2 {
		p = p[:i]
	}
	return p, true
}

func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1024), ".0") + "KB"
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1024*1024)), ".0") + "MB"
	}
}

func safeFileName(id string) string {
	if id == "" {
		id = "result"
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, id)
}
