package puremod

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
	_ "time/tzdata" // zone names work on hosts without a time zone database

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// defaultLayout is what time.format writes without a layout: RFC 3339 in UTC, with
// milliseconds when there are some.
const defaultLayout = "2006-01-02T15:04:05.999Z07:00"

// namedLayouts are the layouts time.format and time.parse take by the name of Go's
// constant.
var namedLayouts = map[string]string{
	"ANSIC": time.ANSIC, "UnixDate": time.UnixDate, "RubyDate": time.RubyDate,
	"RFC822": time.RFC822, "RFC822Z": time.RFC822Z, "RFC850": time.RFC850,
	"RFC1123": time.RFC1123, "RFC1123Z": time.RFC1123Z, "RFC3339": time.RFC3339,
	"RFC3339Nano": time.RFC3339Nano, "Kitchen": time.Kitchen, "Stamp": time.Stamp,
	"StampMilli": time.StampMilli, "StampMicro": time.StampMicro, "StampNano": time.StampNano,
	"DateTime": time.DateTime, "DateOnly": time.DateOnly, "TimeOnly": time.TimeOnly,
}

// maxTimeMs bounds the times time.format takes, in ms from the epoch either way:
// JavaScript's Date range, about 275,000 years.
const maxTimeMs = 8.64e15

// maxDurationMs is the longest duration Go's time.Duration holds, in ms.
const maxDurationMs = float64(math.MaxInt64) / 1e6

type timeModule struct {
	origin time.Time // of time.monotonic
	zones  sync.Map  // zone name -> *time.Location, for names that loaded
}

func newTime() *bindings.Module {
	tm := &timeModule{origin: time.Now()}
	return &bindings.Module{Name: "time", Doc: "the clock, sleeping within the call's deadline, dates and durations", Pure: true,
		Funcs: map[string]lua.LGFunction{
			"now": func(L *lua.LState) int {
				L.Push(lua.LNumber(time.Now().UnixMilli()))
				return 1
			},
			"monotonic": func(L *lua.LState) int {
				L.Push(lua.LNumber(float64(time.Since(tm.origin)) / 1e6))
				return 1
			},
			"sleep":          tm.sleep,
			"format":         tm.format,
			"parse":          tm.parse,
			"duration":       duration,
			"formatduration": formatDuration,
		}}
}

// sleep is time.sleep(ms). It waits without holding a CPU or a Lua slot
// (bindings.Blocking), and ends with the call:
// at its deadline or cancellation it raises, as the call is stopped there anyway.
// The load phase may not sleep (nothing happens while a tool file loads but building
// it).
func (tm *timeModule) sleep(L *lua.LState) int {
	a := bindings.NewArgs(L, "time.sleep")
	ms := a.Number(1)
	if !(ms >= 0) {
		a.Error(1, fmt.Sprintf("non-negative number of milliseconds expected, got %v", ms))
	}
	bindings.Require(L, "time.sleep", bindings.AccessRead)
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var wake <-chan time.Time
	if ms < maxDurationMs {
		t := time.NewTimer(time.Duration(ms * 1e6))
		defer t.Stop()
		wake = t.C
	}
	err := bindings.Blocking(L, func() {
		select {
		case <-wake:
		case <-ctx.Done():
		}
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		L.RaiseError("time.sleep: stopped: %v", err)
	}
	return 0
}

// layoutArg returns the layout at argument n: a Go layout, the name of one of Go's,
// or def when absent.
func layoutArg(a bindings.Args, n int, def string) string {
	l := a.OptString(n, def)
	if named, ok := namedLayouts[l]; ok {
		return named
	}
	return l
}

// zone returns the location a zone argument names: "UTC", an offset such as
// "+05:30", or a name of the IANA database ("Europe/Paris"). The host's own zone is
// not offered: it is the host's setting, and would make results differ by machine.
func (tm *timeModule) zone(name string) (*time.Location, error) {
	if loc, ok := tm.zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	var loc *time.Location
	switch {
	case name == "UTC" || name == "Z":
		loc = time.UTC
	case len(name) == 6 && (name[0] == '+' || name[0] == '-') && name[3] == ':':
		h, errH := strconv.Atoi(name[1:3])
		m, errM := strconv.Atoi(name[4:6])
		if errH != nil || errM != nil || h > 23 || m > 59 {
			return nil, fmt.Errorf("unknown time zone %q", name)
		}
		secs := h*3600 + m*60
		if name[0] == '-' {
			secs = -secs
		}
		loc = time.FixedZone(name, secs)
	case name == "" || name == "Local":
		return nil, fmt.Errorf("unknown time zone %q: name one, such as \"UTC\", \"+02:00\" or \"Europe/Paris\"", name)
	default:
		var err error
		if loc, err = time.LoadLocation(name); err != nil {
			return nil, fmt.Errorf("unknown time zone %q", name)
		}
	}
	tm.zones.Store(name, loc)
	return loc, nil
}

func (tm *timeModule) format(L *lua.LState) int {
	a := bindings.NewArgs(L, "time.format")
	ms := a.Number(1)
	if !(math.Abs(ms) <= maxTimeMs) {
		a.Error(1, fmt.Sprintf("milliseconds within %g of the epoch expected, got %v", maxTimeMs, ms))
	}
	layout := layoutArg(a, 2, defaultLayout)
	zone := a.OptString(3, "UTC")
	loc, err := tm.zone(zone)
	if err != nil {
		return fail(L, codeBadTime, "time.format: %v", err)
	}
	sec := math.Floor(ms / 1000)
	t := time.Unix(int64(sec), int64(math.Round((ms-sec*1000)*1e6))).In(loc)
	L.Push(lua.LString(t.Format(layout)))
	return 1
}

func (tm *timeModule) parse(L *lua.LState) int {
	a := bindings.NewArgs(L, "time.parse")
	s := a.String(1)
	layout := layoutArg(a, 2, time.RFC3339)
	zone := a.OptString(3, "UTC")
	loc, err := tm.zone(zone)
	if err != nil {
		return fail(L, codeBadTime, "time.parse: %v", err)
	}
	t, err := time.ParseInLocation(layout, s, loc)
	if err != nil {
		return fail(L, codeBadTime, "time.parse: %v", err)
	}
	L.Push(lua.LNumber(float64(t.Unix())*1000 + float64(t.Nanosecond())/1e6))
	return 1
}

// duration is time.duration(s): a Go duration ("1h30m", "250ms", "1.5s") in ms.
func duration(L *lua.LState) int {
	s := bindings.NewArgs(L, "time.duration").String(1)
	d, err := time.ParseDuration(s)
	if err != nil {
		return fail(L, codeBadTime, "%v", err)
	}
	L.Push(lua.LNumber(float64(d) / 1e6))
	return 1
}

// formatDuration is time.formatduration(ms): ms as Go writes a duration ("1h30m0s").
func formatDuration(L *lua.LState) int {
	a := bindings.NewArgs(L, "time.formatduration")
	ms := a.Number(1)
	if !(math.Abs(ms) < maxDurationMs) {
		a.Error(1, fmt.Sprintf("milliseconds within %.0f of 0 expected, got %v", maxDurationMs, ms))
	}
	L.Push(lua.LString(time.Duration(math.Round(ms * 1e6)).String()))
	return 1
}
