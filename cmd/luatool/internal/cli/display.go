package cli

import (
	"fmt"
	"io"

	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/luatool/luatool/engine/env"
)

// A display writes what a person watching a command sees on stderr: tool uses,
// progress, logs and outcomes. On a terminal it shows a spinner while a call runs and
// colours (unless NO_COLOR is set or TERM is dumb); piped, it writes the same lines as
// plain text, with no escape sequences.
type display struct {
	w     io.Writer
	tty   bool
	color bool
	// redactor keeps secrets off the display: every line goes through it.
	redactor *env.Redactor

	mu       sync.Mutex
	spinning string // the spinner's label; "" when no spinner is shown
	frame    int
	stop     chan struct{}
	done     chan struct{}
}

// spinnerFrames are drawn in turn, one each spinnerInterval.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinnerInterval = 100 * time.Millisecond

// ANSI styles.
const (
	styleBold  = "\x1b[1m"
	styleDim   = "\x1b[2m"
	styleRed   = "\x1b[31m"
	styleGreen = "\x1b[32m"
	styleReset = "\x1b[0m"
	clearLine  = "\r\x1b[K"
)

// newDisplay returns the display of w: terminal behaviour when w is a terminal.
func newDisplay(w io.Writer) *display {
	tty := isTerminal(w)
	return &display{w: w, tty: tty, color: useColor(tty, os.Getenv)}
}

// useColor reports whether a terminal gets colours: not when NO_COLOR is set to
// anything (https://no-color.org) or TERM is "dumb".
func useColor(tty bool, getenv func(string) string) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

func (d *display) style(style, s string) string {
	if !d.color || s == "" {
		return s
	}
	return style + s + styleReset
}

// isControl reports whether r is a control character other than a tab: C0, DEL or
// C1 (U+0080 to U+009F, which some terminals obey as well).
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// printable replaces control characters (an escape sequence from a tool's rendering
// could move the cursor or recolour the terminal) and bytes that are not UTF-8 with
// U+FFFD; tabs stay.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// terminalText is printable for text of several lines shown as it is: newlines stay,
// and so does a carriage return just before one ("\r\n" ends a line on a terminal
// too), while a lone carriage return, which would let a line overwrite itself, does
// not. It is what a terminal shows of a tool result's content: a file or a command's
// output may hold anything, and escape sequences in it must not reach the terminal
// raw.
func terminalText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\n', r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			b.WriteRune(r)
		case isControl(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r) // a byte that is not UTF-8 arrives as U+FFFD
		}
	}
	return b.String()
}

// printableLines is printable for a text of several lines: each made printable, the
// lines after the first indented under it.
func printableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = printable(l)
	}
	return strings.Join(lines, "\n  ")
}

// line writes one line, keeping the spinner below it.
func (d *display) line(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.spinning != "" {
		fmt.Fprint(d.w, clearLine)
	}
	fmt.Fprintln(d.w, d.redactor.String(s))
	if d.spinning != "" {
		d.drawLocked()
	}
}

// redactWith has every line from now on redacted by r (nil: none).
func (d *display) redactWith(r *env.Redactor) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.redactor = r
}

// toolUse shows a call about to run, as the tool renders it.
func (d *display) toolUse(rendered string) { d.line(d.style(styleBold, "● ") + printable(rendered)) }

// outcome shows how a call ended, as the tool renders it.
func (d *display) outcome(rendered string, isError bool) {
	if rendered == "" {
		return
	}
	style := styleDim
	if isError {
		style = styleRed
	} else if d.color {
		style = styleGreen
	}
	d.line("  " + d.style(style, "⎿ "+printable(rendered)))
}

// progress shows a progress report of a running call.
func (d *display) progress(rendered string) {
	d.line("  " + d.style(styleDim, "… "+printable(rendered)))
}

// log shows a line a tool logged.
func (d *display) log(prefix, line string) { d.line("  " + d.style(styleDim, prefix+printable(line))) }

// spin shows a spinner with label until the returned function is called; on
// anything but a terminal it does nothing.
func (d *display) spin(label string) (stop func()) {
	if !d.tty {
		return func() {}
	}
	d.mu.Lock()
	d.spinning = printable(label)
	d.frame = 0
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	d.drawLocked()
	stopCh, doneCh := d.stop, d.done
	d.mu.Unlock()
	go func() {
		defer close(doneCh)
		tick := time.NewTicker(spinnerInterval)
		defer tick.Stop()
		for {
			select {
			case <-stopCh:
				return
			case <-tick.C:
				d.mu.Lock()
				d.frame++
				d.drawLocked()
				d.mu.Unlock()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stopCh)
			<-doneCh
			d.mu.Lock()
			d.spinning = ""
			fmt.Fprint(d.w, clearLine)
			d.mu.Unlock()
		})
	}
}

// pause takes the spinner off the screen until resume is called, for a prompt.
func (d *display) pause() (resume func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	label := d.spinning
	if label == "" {
		return func() {}
	}
	d.spinning = ""
	fmt.Fprint(d.w, clearLine)
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.stop != nil {
			select {
			case <-d.stop: // stopped meanwhile
				return
			default:
			}
		}
		d.spinning = label
		d.drawLocked()
	}
}

func (d *display) drawLocked() {
	if d.spinning == "" {
		return
	}
	frame := spinnerFrames[d.frame%len(spinnerFrames)]
	fmt.Fprint(d.w, clearLine+d.style(styleDim, frame+" "+d.spinning))
}
