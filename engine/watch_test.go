package engine

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/srcpos"
)

func TestWatchOptionsDefaults(t *testing.T) {
	for _, c := range []struct {
		given, want WatchOptions
	}{
		{WatchOptions{}, WatchOptions{Debounce: 50 * time.Millisecond, MaxWait: 200 * time.Millisecond, PollInterval: time.Second}},
		// The maximum wait follows the debounce.
		{WatchOptions{Debounce: time.Second}, WatchOptions{Debounce: time.Second, MaxWait: 4 * time.Second, PollInterval: time.Second}},
		{WatchOptions{MaxWait: time.Second}, WatchOptions{Debounce: 50 * time.Millisecond, MaxWait: time.Second, PollInterval: time.Second}},
		// A maximum wait below the debounce is the debounce.
		{WatchOptions{Debounce: time.Second, MaxWait: time.Millisecond}, WatchOptions{Debounce: time.Second, MaxWait: time.Second, PollInterval: time.Second}},
	} {
		if got := c.given.withDefaults(); got != c.want {
			t.Errorf("%+v with defaults = %+v, want %+v", c.given, got, c.want)
		}
	}
}

// A directory changed every 10 ms, more often than its 50 ms debounce, is read no
// later than the maximum wait after its first change; the next change after that
// read starts a new wait.
func TestScheduleMaxWait(t *testing.T) {
	w := &watch{opts: WatchOptions{Debounce: 50 * time.Millisecond, MaxWait: 200 * time.Millisecond}, pending: map[string]pendingRead{}}
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	w.scheduleAt(at(0), w.opts.Debounce, "src")
	if got := w.pending["src"].due; !got.Equal(at(50)) {
		t.Errorf("one change: due at %v, want the debounce (50ms)", got.Sub(t0))
	}
	for ms := 10; ms < 1000; ms += 10 {
		w.scheduleAt(at(ms), w.opts.Debounce, "src")
	}
	if got := w.pending["src"].due; !got.Equal(at(200)) {
		t.Errorf("changes every 10 ms: due at %v, want the maximum wait (200ms)", got.Sub(t0))
	}
	delete(w.pending, "src") // read (flush)
	w.scheduleAt(at(1000), w.opts.Debounce, "src")
	if got := w.pending["src"].due; !got.Equal(at(1050)) {
		t.Errorf("the change after a read: due at %v, want 1.05s", got.Sub(t0))
	}
}

// A deadline (a rescan to confirm a missing file gone) holds against later changes,
// and brings a due time no later.
func TestScheduleDeadline(t *testing.T) {
	w := &watch{opts: WatchOptions{Debounce: 50 * time.Millisecond, MaxWait: 200 * time.Millisecond}, pending: map[string]pendingRead{}}
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w.deadline(at(50), "src")
	for ms := 10; ms < 100; ms += 10 {
		w.scheduleAt(at(ms), w.opts.Debounce, "src")
	}
	if got := w.pending["src"].due; !got.Equal(at(50)) {
		t.Errorf("due at %v, want the deadline (50ms)", got.Sub(t0))
	}
	w.deadline(at(500), "src")
	if got := w.pending["src"].due; !got.Equal(at(50)) {
		t.Errorf("a later deadline moved the due time to %v", got.Sub(t0))
	}
}

// nameLoader loads *.tool files, each holding the name of its tool; a file holding
// "!" (or nothing, as one caught halfway through a save) does not load.
type nameLoader struct{}

func (nameLoader) Match(name string) bool { return strings.HasSuffix(name, ".tool") }

func (nameLoader) Load(file string, src []byte, _ LoadEnv) (ToolDef, []Diagnostic) {
	name := strings.TrimSpace(string(src))
	if name == "" || name == "!" {
		return ToolDef{}, []Diagnostic{{Pos: srcpos.Pos{File: file}, Severity: SeverityError, Message: "no tool in this file"}}
	}
	def := minimalDef()
	def.Name, def.Source = name, file
	return def, nil
}

// missingTest is an engine on one source of *.tool files in memory, rescanned as a
// watch rescans it.
type missingTest struct {
	t        *testing.T
	e        *Engine
	fsys     fstest.MapFS
	rechecks int
	events   []Event
	// appeared is when a file event last showed a file on disk, by name.
	appeared map[string]time.Time
}

func newMissingTest(t *testing.T, files map[string]string) *missingTest {
	m := &missingTest{t: t, e: newTestEngine(t, Options{Loaders: []Loader{nameLoader{}}}), fsys: fstest.MapFS{}, appeared: map[string]time.Time{}}
	for name, data := range files {
		m.fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	if d := m.e.Load(Source{Name: "src", FS: m.fsys}); HasErrors(d) {
		t.Fatal(d)
	}
	m.e.Subscribe(func(ev Event) { m.events = append(m.events, ev) })
	return m
}

// rescan reads the source again as a watch does, a missing file being confirmed
// gone by a rescan confirm after the first that missed it.
func (m *missingTest) rescan(confirm time.Duration) {
	m.e.reload(loadWait{confirm: confirm, recheck: func(source string) {
		if source != "src" {
			m.t.Errorf("recheck of %q", source)
		}
		m.rechecks++
	}, appeared: func(source, file string) time.Time { return m.appeared[file] }})
}

func (m *missingTest) served() []string { return m.e.Registry().Names() }

// missedLongAgo makes a missing file's first miss an hour old, past any confirm.
func (m *missingTest) missedLongAgo(name string) {
	f := m.e.sources[0].files[name]
	if f == nil || f.missingSince.IsZero() {
		m.t.Fatalf("%s is not a missing file kept serving", name)
	}
	f.missingSince = time.Now().Add(-time.Hour)
}

// A file missing at one rescan keeps its tool serving and asks for another look; a
// file back by then is as if it never left; one still missing a confirm later is
// dropped. Refresh, asked for by a host, drops a missing file at once.
func TestMissingFileKeptUntilConfirmed(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A", "b.tool": "B"})
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") || m.rechecks != 1 || len(m.events) != 0 {
		t.Fatalf("a file missing once: served %v, %d rechecks, events %v; want A kept, one recheck, no event", m.served(), m.rechecks, m.events)
	}

	// Back (deleted and written again): kept, and its new content loads.
	m.fsys["a.tool"] = &fstest.MapFile{Data: []byte("A2")}
	m.rescan(time.Minute)
	if got := m.served(); !slices.Equal(got, []string{"A2", "B"}) {
		t.Fatalf("after the file came back: served %v, want [A2 B]", got)
	}
	if f := m.e.sources[0].files["a.tool"]; !f.missingSince.IsZero() {
		t.Errorf("a file back on disk is still marked missing")
	}

	// Missing again, and still missing a confirm later: dropped.
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	m.events = nil
	m.rescan(time.Minute)
	if got := m.served(); !slices.Equal(got, []string{"B"}) {
		t.Fatalf("a file confirmed gone: served %v, want [B]", got)
	}
	if len(m.events) != 1 || m.events[0].Kind != ToolRemoved || m.events[0].Tool != "A2" {
		t.Errorf("events %v, want A2 removed", m.events)
	}

	delete(m.fsys, "b.tool")
	m.e.Refresh()
	if got := m.served(); len(got) != 0 {
		t.Errorf("Refresh kept %v of files deleted", got)
	}
}

// A file renamed is a file missing and a new one serving its tool: the tool moves
// at once, never served by both files (which would leave it out, as declared twice).
func TestRenamedFileMovesItsToolAtOnce(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A"})
	m.fsys["renamed.tool"] = m.fsys["a.tool"]
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	tool, ok := m.e.Registry().Lookup("A")
	if !ok || tool.Source() != "src/renamed.tool" {
		t.Fatalf("after the rename A is served by %v (%v), want src/renamed.tool", tool, ok)
	}
	if _, kept := m.e.sources[0].files["a.tool"]; kept {
		t.Errorf("the old name is still kept")
	}
	if d := m.e.Diagnostics(); HasErrors(d) {
		t.Errorf("diagnostics after a rename: %v", d)
	}
}

// A rescan in which a file fails to load settles nothing about missing files: the
// failing file may be the missing one under a new name, read halfway through a save.
// The next rescan, with nothing failing anew, drops the missing file.
func TestMissingFileKeptWhileAnotherFails(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A"})
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	m.fsys["renamed.tool"] = &fstest.MapFile{Data: []byte("")} // being written
	m.rechecks = 0
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") {
		t.Fatalf("A was dropped while a file of its directory was halfway written")
	}
	if m.rechecks == 0 {
		t.Errorf("a failed load asked for no second look")
	}
	m.rescan(time.Minute)
	if got := m.served(); len(got) != 0 {
		t.Errorf("with nothing failing anew, A still served: %v", got)
	}
}

// A missing file that a file event showed on disk less than a confirm ago is not
// gone, however long ago a rescan first missed it: it is being deleted and written
// again, faster than the rescans can see.
func TestMissingFileShownByAnEventIsKept(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A"})
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	m.appeared["a.tool"] = time.Now()
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") {
		t.Fatalf("A was dropped though its file was seen on disk just now")
	}
	m.appeared["a.tool"] = time.Now().Add(-time.Hour)
	m.rescan(time.Minute)
	if got := m.served(); len(got) != 0 {
		t.Errorf("A still served, its file gone for an hour: %v", got)
	}
}
