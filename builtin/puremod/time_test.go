package puremod

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
)

func TestTimeFunctions(t *testing.T) {
	tests := []struct{ body, want string }{
		{`return time.format(0)`, `["1970-01-01T00:00:00Z"]`},
		{`return time.format(1714564800250)`, `["2024-05-01T12:00:00.25Z"]`},
		{`return time.format(-1)`, `["1969-12-31T23:59:59.999Z"]`},
		{`return time.format(1714564800250, "RFC3339")`, `["2024-05-01T12:00:00Z"]`},
		{`return time.format(1714564800000, "RFC1123", "Europe/Paris")`, `["Wed, 01 May 2024 14:00:00 CEST"]`},
		{`return time.format(1714564800000, "2006-01-02 15:04 -0700", "+05:30")`, `["2024-05-01 17:30 +0530"]`},
		{`return time.format(1714564800000, "Mon Jan _2", "-08:00")`, `["Wed May  1"]`},
		{`return time.format(1714564800000, "DateOnly")`, `["2024-05-01"]`},
		{`return time.parse("2024-05-01T12:00:00Z")`, `[1714564800000]`},
		{`return time.parse("2024-05-01T12:00:00.25+02:00")`, `[1714557600250]`},
		{`return time.parse("2024-05-01", "DateOnly")`, `[1714521600000]`},
		{`return time.parse("2024-05-01 14:00", "2006-01-02 15:04", "Europe/Paris")`, `[1714564800000]`},
		{`return time.parse(time.format(1714564800123))`, `[1714564800123]`},
		{`return time.parse("May 1", "2006-01-02")`, `[null,"time.parse: parsing time \"May 1\" as \"2006-01-02\": cannot parse \"May 1\" as \"2006\"","badtime"]`},
		{`return time.format(0, nil, "Mars/Base")`, `[null,"time.format: unknown time zone \"Mars/Base\"","badtime"]`},
		{`return time.format(0, nil, "Local")`, `[null,"time.format: unknown time zone \"Local\": name one, such as \"UTC\", \"+02:00\" or \"Europe/Paris\"","badtime"]`},
		{`return time.parse("x", nil, "+25:00")`, `[null,"time.parse: unknown time zone \"+25:00\"","badtime"]`},
		{`return time.duration("1h30m")`, `[5400000]`},
		{`return time.duration("1.5ms")`, `[1.5]`},
		{`return time.duration("-2s")`, `[-2000]`},
		{`return time.duration("1d")`, `[null,"time: unknown unit \"d\" in duration \"1d\"","badtime"]`},
		{`return time.formatduration(5400000)`, `["1h30m0s"]`},
		{`return time.formatduration(1.5)`, `["1.5ms"]`},
		{`return time.formatduration(0)`, `["0s"]`},
		{`return time.duration(time.formatduration(123456.789))`, `[123456.789]`},
		{`local a = time.monotonic() local b = time.monotonic() return b >= a, a >= 0`, `[true,true]`},
		{`time.sleep(0) time.sleep(1.5) return "slept"`, `["slept"]`},
	}
	for _, tt := range tests {
		wantJSON(t, tt.body, tt.want)
	}
	now := time.Now().UnixMilli()
	got := eval(t, `return time.now()`)[0].(float64)
	if got < float64(now) || got > float64(time.Now().UnixMilli()) || got != float64(int64(got)) {
		t.Errorf("time.now() = %v, not a whole ms between %d and now", got, now)
	}
}

func TestTimeArgumentErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`time.sleep()`, "bad argument #1 to 'time.sleep' (number expected, got nil)"},
		{`time.sleep(-1)`, "bad argument #1 to 'time.sleep' (non-negative number of milliseconds expected, got -1)"},
		{`time.sleep(0/0)`, "bad argument #1 to 'time.sleep' (non-negative number of milliseconds expected, got NaN)"},
		{`time.format("0")`, "bad argument #1 to 'time.format' (number expected, got string)"},
		{`time.format(1e16)`, "bad argument #1 to 'time.format' (milliseconds within 8.64e+15 of the epoch expected, got 1e+16)"},
		{`time.format(0, 1)`, "bad argument #2 to 'time.format' (string expected, got number)"},
		{`time.format(0, nil, 1)`, "bad argument #3 to 'time.format' (string expected, got number)"},
		{`time.parse()`, "bad argument #1 to 'time.parse' (string expected, got nil)"},
		{`time.duration(5)`, "bad argument #1 to 'time.duration' (string expected, got number)"},
		{`time.formatduration("1s")`, "bad argument #1 to 'time.formatduration' (number expected, got string)"},
		{`time.formatduration(1/0)`, "bad argument #1 to 'time.formatduration' (milliseconds within 9223372036855 of 0 expected, got +Inf)"},
	}
	for _, tt := range tests {
		raises(t, tt.body, tt.want)
	}
}

// TestSleepEndsWithTheCall: a sleep far past the deadline, or one the caller
// cancels, ends when the call does, raising there.
func TestSleepEndsWithTheCall(t *testing.T) {
	deadline, cancelDeadline := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelDeadline()
	_, err := run(t, deadline, nil, `time.sleep(1e9)`)
	var se *bindings.ScriptError
	if !errors.As(err, &se) || se.Message != "execution stopped: deadline exceeded" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the deadline: error %v", err)
	}

	// The call cancels itself once it runs, from another goroutine, as a client
	// would: whenever that lands, it lands on the line of the sleep.
	cancelled, cancel := context.WithCancel(context.Background())
	defer cancel()
	arm := &bindings.Module{Name: "arm", Values: map[string]any{"cancel": func() {
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
	}}}
	_, err = run(t, cancelled, append(Modules(), arm), `arm.cancel() time.sleep(1e9)`)
	if !errors.As(err, &se) || se.Message != "execution stopped: cancelled" || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	} else if want := len(Modules()) + 3; se.Line != want {
		t.Errorf("stopped at line %d, want %d (the sleep)", se.Line, want)
	}

	// A sleep longer than any duration waits for the call too.
	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	if _, err := run(t, short, nil, `time.sleep(math.huge)`); err == nil || !strings.Contains(err.Error(), "execution stopped: deadline exceeded") {
		t.Errorf("time.sleep(math.huge): %v", err)
	}
}

// TestSleepRefusedWhileLoading: a tool file's main chunk may not sleep.
func TestSleepRefusedWhileLoading(t *testing.T) {
	vm := bindings.NewVM(bindings.Config{Modules: Modules()})
	defer vm.Close()
	prog, err := bindings.Compile("tool.lua", []byte(`local time = require("time")
local at = time.format(time.now()) -- the pure functions work
time.sleep(1)`), bindings.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	err = vm.Run(prog)
	if err == nil || err.Error() != "tool.lua:3: time.sleep is not available while the tool file loads: call it from call()" {
		t.Errorf("error %v", err)
	}
}
