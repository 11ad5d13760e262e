package cli

import (
	"strings"
	"testing"

	"github.com/luatool/luatool/internal/syncbuf"
)

func show(d *display) {
	stop := d.spin("running Read")
	d.toolUse("Read(file_path: \"a\")")
	d.progress("half way")
	d.log("log: ", "a line")
	stop()
	d.outcome("Read 3 lines", false)
	d.outcome("File does not exist", true)
}

func TestDisplayPipedIsPlain(t *testing.T) {
	var b syncbuf.Buffer
	show(&display{w: &b})
	want := "● Read(file_path: \"a\")\n  … half way\n  log: a line\n  ⎿ Read 3 lines\n  ⎿ File does not exist\n"
	if b.String() != want {
		t.Errorf("piped output:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestDisplayTerminal(t *testing.T) {
	var b syncbuf.Buffer
	show(&display{w: &b, tty: true, color: true})
	out := b.String()
	for _, want := range []string{
		clearLine + styleDim + spinnerFrames[0] + " running Read" + styleReset, // the spinner, drawn at once
		styleBold + "● " + styleReset + "Read(file_path: \"a\")\n",
		styleDim + "… half way" + styleReset,
		styleGreen + "⎿ Read 3 lines" + styleReset,
		styleRed + "⎿ File does not exist" + styleReset,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
	// Lines are written over the spinner, which is drawn again below them.
	if !strings.Contains(out, clearLine+styleBold+"● ") {
		t.Errorf("a line did not clear the spinner first:\n%q", out)
	}
	// Stopping clears the spinner's line before the outcome is written.
	if !strings.Contains(out, "running Read"+styleReset+clearLine+"  "+styleGreen+"⎿ Read 3 lines") {
		t.Errorf("the spinner was left on screen:\n%q", out)
	}
}

func TestDisplayTerminalWithoutColor(t *testing.T) {
	var b syncbuf.Buffer
	show(&display{w: &b, tty: true, color: false})
	if strings.Contains(b.String(), "\x1b[3") || strings.Contains(b.String(), styleBold) {
		t.Errorf("colours with color off:\n%q", b.String())
	}
	if !strings.Contains(b.String(), clearLine+spinnerFrames[0]+" running Read") {
		t.Errorf("no spinner on a terminal without colours:\n%q", b.String())
	}
}

func TestUseColor(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		tty  bool
		vars map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
	} {
		if got := useColor(tc.tty, env(tc.vars)); got != tc.want {
			t.Errorf("useColor(%v, %v) = %v", tc.tty, tc.vars, got)
		}
	}
}

func TestPauseTakesTheSpinnerOff(t *testing.T) {
	var b syncbuf.Buffer
	d := &display{w: &b, tty: true}
	stop := d.spin("waiting")
	resume := d.pause()
	before := len(b.String())
	d.mu.Lock()
	d.drawLocked()
	d.mu.Unlock()
	if len(b.String()) != before {
		t.Error("the spinner was drawn while paused")
	}
	resume()
	if !strings.HasSuffix(b.String(), spinnerFrames[0]+" waiting") {
		t.Errorf("resume did not draw the spinner again: %q", b.String())
	}
	stop()
}

func TestDisplayKeepsToolTextOffTheTerminalsControls(t *testing.T) {
	var b syncbuf.Buffer
	d := &display{w: &b, tty: true, color: true}
	d.outcome("evil \x1b[2J\x1b]0;title\x07 text\ttab", false)
	out := b.String()
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || !strings.Contains(out, "evil \uFFFD[2J\uFFFD]0;title\uFFFD text\ttab") {
		t.Errorf("tool text reached the terminal as controls: %q", out)
	}
}
