package engine

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"
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

// A burst of saves within the debounce is one reading of the directory: each file
// event pushes back the one pending read, which, once due, finds the last content and
// makes one update. The watch's timer is left out: the read is made due by hand, so
// that nothing depends on when the events are handled.
func TestBurstOfEventsMakesOneRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.tool")
	if err := os.WriteFile(file, []byte("A"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, Options{Loaders: []Loader{nameLoader{}}})
	if d := e.Load(DirSource(dir)); diag.HasErrors(d) {
		t.Fatal(d)
	}
	var events []Event
	e.Subscribe(func(ev Event) { events = append(events, ev) })
	opts := WatchOptions{Debounce: time.Minute}.withDefaults()
	w := &watch{e: e, opts: opts, dirs: map[string][]string{dir: {dir}}, srcDir: map[string]string{dir: dir},
		pending: map[string]pendingRead{}, shown: map[string]map[string]time.Time{}}
	for i := 1; i <= 10; i++ {
		// The same tool, A, saved ten times with different bytes.
		if err := os.WriteFile(file, []byte("A"+strings.Repeat(" ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		w.handle(fsnotify.Event{Name: file, Op: fsnotify.Write})
	}
	if len(w.pending) != 1 {
		t.Fatalf("pending reads after ten events: %v, want one", w.pending)
	}
	w.flush()
	if len(events) != 0 || len(w.pending) != 1 {
		t.Fatalf("a read before the debounce passed: events %v, pending %v", events, w.pending)
	}
	p := w.pending[dir]
	p.due = time.Now()
	w.pending[dir] = p
	w.flush()
	if len(events) != 1 || events[0].Kind != ToolUpdated || events[0].Tool != "A" || len(w.pending) != 0 {
		t.Errorf("after the read: events %v, pending %v; want one update of A and nothing pending", events, w.pending)
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

func (nameLoader) Load(file string, src []byte, _ LoadEnv) (ToolDef, []diag.Diagnostic) {
	name := strings.TrimSpace(string(src))
	if name == "" || name == "!" {
		return ToolDef{}, []diag.Diagnostic{{Pos: srcpos.Pos{File: file}, Severity: diag.SeverityError, Message: "no tool in this file"}}
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
	// shown is when a file event last showed a file on disk, by name.
	shown map[string]time.Time
	// onTheWay are the sightings of events not read yet, which catchUp moves into
	// shown; catchUps counts its calls, and behind makes them fail.
	onTheWay map[string]time.Time
	catchUps int
	behind   bool
}

func newMissingTest(t *testing.T, files map[string]string) *missingTest {
	return newMissingTestWith(t, nameLoader{}, files)
}

func newMissingTestWith(t *testing.T, l Loader, files map[string]string) *missingTest {
	m := &missingTest{t: t, e: newTestEngine(t, Options{Loaders: []Loader{l}}), fsys: fstest.MapFS{}, shown: map[string]time.Time{}}
	for name, data := range files {
		m.fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	if d := m.e.Load(Source{Name: "src", FS: m.fsys}); diag.HasErrors(d) {
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
	}, shown: func(string) map[string]time.Time { return m.shown }, catchUp: func() bool {
		m.catchUps++
		maps.Copy(m.shown, m.onTheWay)
		m.onTheWay = nil
		return !m.behind
	}})
}

// write puts a file in the source, as a save does.
func (m *missingTest) write(name, data string) { m.fsys[name] = &fstest.MapFile{Data: []byte(data)} }

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
	if d := m.e.Diagnostics(); diag.HasErrors(d) {
		t.Errorf("diagnostics after a rename: %v", d)
	}
}

// A file renamed and caught halfway through a save under its new name (empty: the
// editor truncated it and has not written it yet) is a new file that fails: the
// missing file keeps its tool serving for as long as that lasts, however many
// rescans read that same version, since it may be the missing file under its new
// name. When the new file loads, the tool moves to it if it is the same tool.
//
// The second rescan finds nothing failing anew (the version is the one read
// before): taking that to settle the matter drops the tool whenever a writer is held
// up between truncating the file and writing it, or two saves are caught at the same
// empty moment, as on a loaded machine, and the tool is unknown to clients for a
// reload or two.
func TestRenamedFileCaughtHalfwaySavedKeepsTheTool(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A"})
	delete(m.fsys, "a.tool")
	m.write("renamed.tool", "")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	for i := range 3 {
		m.rescan(time.Minute)
		if !slices.Contains(m.served(), "A") {
			t.Fatalf("rescan %d of the same half-saved version dropped A", i+2)
		}
	}
	if m.catchUps != 0 {
		t.Errorf("catchUp called %d times for a file that may have been renamed", m.catchUps)
	}
	m.write("renamed.tool", "A")
	m.rescan(time.Minute)
	if tool, ok := m.e.Registry().Lookup("A"); !ok || tool.Source() != "src/renamed.tool" {
		t.Fatalf("once the new file loads, A is served by %v (%v), want src/renamed.tool", tool, ok)
	}
	if _, kept := m.e.sources[0].files["a.tool"]; kept {
		t.Errorf("the old name is still kept")
	}
}

// A missing file kept for a failing new file goes when that file loads as another
// tool, or goes away.
func TestMissingFileGoesWhenTheFailingFileIsAnother(t *testing.T) {
	for _, c := range []struct {
		name  string
		after func(m *missingTest)
		want  []string
	}{
		{"loads as another tool", func(m *missingTest) { m.write("new.tool", "B") }, []string{"B"}},
		{"removed", func(m *missingTest) { delete(m.fsys, "new.tool") }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMissingTest(t, map[string]string{"a.tool": "A"})
			delete(m.fsys, "a.tool")
			m.write("new.tool", "!")
			m.rescan(time.Minute)
			m.missedLongAgo("a.tool")
			m.rescan(time.Minute)
			if !slices.Contains(m.served(), "A") {
				t.Fatalf("A dropped while a new file fails")
			}
			c.after(m)
			m.rescan(time.Minute)
			if got := m.served(); !slices.Equal(got, c.want) {
				t.Errorf("served %v, want %v", got, c.want)
			}
		})
	}
}

// A file that was failing while the missing file was still on disk is not it under
// a new name: it keeps nothing.
func TestMissingFileNotKeptByAnOlderFailure(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A"})
	m.write("broken.tool", "!")
	m.rescan(time.Minute)
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	m.rescan(time.Minute)
	if got := m.served(); len(got) != 0 {
		t.Errorf("served %v, want A dropped", got)
	}
}

// A missing file is kept while a file event shows, less than a confirm ago, a file
// that serves no tool: it may be the missing file renamed, and gone again before a
// rescan could see it. Before it is dropped, the events still on their way are read
// (catchUp); when they cannot be, it is kept. A file event showing another tool's
// file keeps nothing.
func TestMissingFileKeptByEventsOfFilesWithoutATool(t *testing.T) {
	m := newMissingTest(t, map[string]string{"a.tool": "A", "b.tool": "B"})
	delete(m.fsys, "a.tool")
	m.rescan(time.Minute)
	m.missedLongAgo("a.tool")
	m.shown["b.tool"] = time.Now()                              // B's own file, saved: nothing to do with A
	m.onTheWay = map[string]time.Time{"moved.tool": time.Now()} // renamed to, and gone
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") || m.catchUps != 1 {
		t.Fatalf("served %v after %d catch-ups; want A kept by the event on its way", m.served(), m.catchUps)
	}

	m.shown["moved.tool"] = time.Now().Add(-time.Hour)
	m.behind = true
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") {
		t.Fatalf("A dropped though the events could not be caught up with")
	}

	m.behind = false
	m.rescan(time.Minute)
	if got := m.served(); !slices.Equal(got, []string{"B"}) {
		t.Errorf("served %v, want [B]", got)
	}
}

// hookLoader is nameLoader, calling hook with each file it loads first.
type hookLoader struct {
	nameLoader
	hook func(file string)
}

func (l hookLoader) Load(file string, src []byte, env LoadEnv) (ToolDef, []diag.Diagnostic) {
	l.hook(file)
	return l.nameLoader.Load(file, src, env)
}

// A missing file is judged gone by when the directory was read, not by when the
// rescan was done waiting for its loads: a file gone for less than a confirm when
// the directory was listed is kept, however long another file then took to load.
func TestMissingFileJudgedWhenTheDirectoryWasRead(t *testing.T) {
	const confirm = time.Minute
	var m *missingTest
	m = newMissingTestWith(t, hookLoader{hook: func(file string) {
		if file != "src/slow.tool" {
			return
		}
		// The directory was listed before this: A had been gone a millisecond less
		// than a confirm. Then the load takes a few.
		m.e.sources[0].files["a.tool"].missingSince = time.Now().Add(-confirm + time.Millisecond)
		time.Sleep(3 * time.Millisecond)
	}}, map[string]string{"a.tool": "A"})
	delete(m.fsys, "a.tool")
	m.rescan(confirm)
	m.write("slow.tool", "S")
	m.rescan(confirm)
	if got := m.served(); !slices.Equal(got, []string{"A", "S"}) {
		t.Errorf("served %v, want A kept beside S", got)
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
	m.shown["a.tool"] = time.Now()
	m.rescan(time.Minute)
	if !slices.Contains(m.served(), "A") {
		t.Fatalf("A was dropped though its file was seen on disk just now")
	}
	m.shown["a.tool"] = time.Now().Add(-time.Hour)
	m.rescan(time.Minute)
	if got := m.served(); len(got) != 0 {
		t.Errorf("A still served, its file gone for an hour: %v", got)
	}
}

// catchUp reads the events of every change made before it: the sightings of tool
// files are in shown when it returns (their events kept for handling after the
// rescan), whichever point the watcher's own reading of events had reached.
func TestCatchUpReadsTheEventsOnTheirWay(t *testing.T) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skip("no file events:", err)
	}
	defer fsw.Close()
	dir := t.TempDir()
	if err := fsw.Add(dir); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, Options{Loaders: []Loader{nameLoader{}}})
	w := &watch{e: e, fsw: fsw, dirs: map[string][]string{dir: {"src"}}, shown: map[string]map[string]time.Time{}}
	for round := range 3 {
		before := time.Now()
		name := fmt.Sprintf("moved%d.tool", round)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("A"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a tool"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if !w.catchUp() {
			t.Fatalf("round %d: catchUp could not catch up", round)
		}
		if at, ok := w.shown[dir][name]; !ok || at.Before(before) {
			t.Errorf("round %d: %s not shown by the events before catchUp (shown %v)", round, name, w.shown[dir])
		}
		if _, ok := w.shown[dir]["notes.txt"]; ok {
			t.Errorf("round %d: a file no loader takes is shown", round)
		}
		if len(w.backlog) == 0 {
			t.Errorf("round %d: no events kept for handling", round)
		}
		w.backlog = nil
	}
}
