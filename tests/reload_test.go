package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// toolSource is a tool named name whose call returns text.
func toolSource(name, text string) string {
	return fmt.Sprintf(`return {
  name = %q,
  prompt = "Answers with a fixed text.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function() return %q end,
}
`, name, text)
}

// watched is an engine watching one temporary directory, with the events it reported.
type watched struct {
	t      *testing.T
	dir    string
	eng    *engine.Engine
	mu     sync.Mutex
	events []engine.Event
}

func startWatch(t *testing.T, dir string, opts engine.WatchOptions, files map[string]string) *watched {
	t.Helper()
	return startWatchOf(t, newLuaEngine(t), dir, opts, files)
}

// startWatchOf is startWatch with the engine given.
func startWatchOf(t *testing.T, eng *engine.Engine, dir string, opts engine.WatchOptions, files map[string]string) *watched {
	t.Helper()
	for name, src := range files {
		writeFile(t, filepath.Join(dir, name), src)
	}
	w := &watched{t: t, dir: dir, eng: eng}
	eng.Subscribe(func(ev engine.Event) {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	})
	eng.Load(engine.DirSource(dir))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := eng.Watch(ctx, opts); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	// The watcher has taken its first look once it serves a tool written after it
	// started: from then on, every change the test makes is one it sees happen.
	writeFile(t, filepath.Join(dir, "ready.lua"), toolSource("Ready", "ready"))
	w.waitEvent("Ready added", is(engine.ToolAdded, "Ready"))
	w.reset()
	return w
}

// newLuaEngine returns an engine that loads Lua tool files, with no host modules,
// working in a temporary directory of its own.
func newLuaEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *watched) reset() {
	w.mu.Lock()
	w.events = nil
	w.mu.Unlock()
}

// answer calls the tool and returns its text, or the error text marked "ERR".
func (w *watched) answer(name string) string {
	r := w.eng.Call(context.Background(), engine.ToolUse{ID: "t", Name: name, Input: json.RawMessage(`{}`)})
	if r.Block.IsError {
		return "ERR " + r.Block.Content.String()
	}
	return r.Block.Content.String()
}

// watchGuard bounds every wait of these tests for something that must happen: a
// stop for a broken test, not a measure of speed.
const watchGuard = time.Minute

// eventually waits for the tool to answer want.
func (w *watched) eventually(name, want string) {
	w.t.Helper()
	deadline := time.Now().Add(watchGuard)
	for {
		got := w.answer(name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s answers %q, want %q; events: %v", name, got, want, w.kinds())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEvent waits for an event that match accepts, and returns the events so far.
func (w *watched) waitEvent(what string, match func(engine.Event) bool) []engine.Event {
	w.t.Helper()
	deadline := time.Now().Add(watchGuard)
	for {
		events := w.sofar()
		if slices.ContainsFunc(events, match) {
			return events
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no event %s; events: %v", what, w.kinds())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sofar returns the events so far.
func (w *watched) sofar() []engine.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events)
}

// is returns a match for waitEvent: an event of kind about tool.
func is(kind engine.EventKind, tool string) func(engine.Event) bool {
	return func(ev engine.Event) bool { return ev.Kind == kind && ev.Tool == tool }
}

func (w *watched) kinds() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, ev := range w.events {
		out = append(out, string(ev.Kind)+":"+ev.Tool+ev.Message)
	}
	return out
}

func count(events []engine.Event, kind engine.EventKind, tool string) int {
	n := 0
	for _, ev := range events {
		if ev.Kind == kind && ev.Tool == tool {
			n++
		}
	}
	return n
}

// Each way editors save a file takes effect, as exactly one reload when the save
// took less than the debounce: the first reading of the directory comes a debounce
// after the save's first change, however late the watcher handles it, and finds the
// save done. A save held up for longer (a loaded machine) may be read halfway, and
// then only the outcome is checked: the new version serves, and every event was
// about the tool.
func TestReloadSavePatterns(t *testing.T) {
	patterns := map[string]func(t *testing.T, dir, file, content string){
		"in-place write": func(t *testing.T, dir, file, content string) {
			writeFile(t, file, content)
		},
		"truncate then chunks": func(t *testing.T, dir, file, content string) {
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(content); i += 16 {
				f.WriteString(content[i:min(i+16, len(content))])
				f.Sync()
				time.Sleep(2 * time.Millisecond)
			}
			f.Close()
		},
		"temp file renamed over (VS Code)": func(t *testing.T, dir, file, content string) {
			tmp := file + ".tmp"
			writeFile(t, tmp, content)
			if err := os.Rename(tmp, file); err != nil {
				t.Fatal(err)
			}
		},
		"vim (4913 probe, backup, write, delete backup)": func(t *testing.T, dir, file, content string) {
			probe := filepath.Join(dir, "4913")
			writeFile(t, probe, "")
			os.Remove(probe)
			backup := file + "~"
			if err := os.Rename(file, backup); err != nil {
				t.Fatal(err)
			}
			writeFile(t, file, content)
			os.Remove(backup)
		},
		"JetBrains safe write": func(t *testing.T, dir, file, content string) {
			tmp := file + "___jb_tmp___"
			old := file + "___jb_old___"
			writeFile(t, tmp, content)
			if err := os.Rename(file, old); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, file); err != nil {
				t.Fatal(err)
			}
			os.Remove(old)
		},
		"delete then recreate": func(t *testing.T, dir, file, content string) {
			os.Remove(file)
			writeFile(t, file, content)
		},
	}
	for name, save := range patterns {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			const debounce = 400 * time.Millisecond
			w := startWatch(t, dir, engine.WatchOptions{Debounce: debounce}, map[string]string{"tool.lua": toolSource("Tool", "v1")})
			w.eventually("Tool", "v1")
			start := time.Now()
			save(t, dir, filepath.Join(dir, "tool.lua"), toolSource("Tool", "v2"))
			took := time.Since(start)
			w.eventually("Tool", "v2")
			events := w.waitEvent("Tool updated", is(engine.ToolUpdated, "Tool"))
			if took < debounce {
				if len(events) != 1 {
					t.Errorf("want exactly one update event, got %v", w.kinds())
				}
				return
			}
			t.Logf("the save took %v, longer than the debounce: only its outcome is checked", took)
			for _, ev := range events {
				if ev.Tool != "Tool" && !(ev.Kind == engine.LoadFailed && strings.HasSuffix(ev.File, "tool.lua")) {
					t.Errorf("an event about something else than the tool: %v", w.kinds())
				}
			}
		})
	}
}

// Kubernetes mounts a ConfigMap as symlinks into ..data, which an update swaps
// atomically for a new timestamped directory.
func TestReloadKubernetesSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "..2026_01")
	os.Mkdir(v1, 0o755)
	writeFile(t, filepath.Join(v1, "tool.lua"), toolSource("Tool", "v1"))
	if err := os.Symlink("..2026_01", filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..data", "tool.lua"), filepath.Join(dir, "tool.lua")); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, engine.WatchOptions{}, nil)
	w.eventually("Tool", "v1")
	v2 := filepath.Join(dir, "..2026_02")
	os.Mkdir(v2, 0o755)
	writeFile(t, filepath.Join(v2, "tool.lua"), toolSource("Tool", "v2"))
	os.Symlink("..2026_02", filepath.Join(dir, "..data_tmp"))
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(v1)
	w.eventually("Tool", "v2")
	// tool.lua changes once, at the swap, whenever the watcher reads it.
	if n := count(w.waitEvent("Tool updated", is(engine.ToolUpdated, "Tool")), engine.ToolUpdated, "Tool"); n != 1 {
		t.Errorf("want one update, got %v", w.kinds())
	}
}

// Ten saves about 10 ms apart: the last content wins, in at most ten updates. How
// many depends on when the watcher runs; that a burst within the debounce makes one
// reading of the directory is TestBurstOfEventsMakesOneRead's, in package engine.
func TestReloadBurstOfSaves(t *testing.T) {
	dir := t.TempDir()
	w := startWatch(t, dir, engine.WatchOptions{}, map[string]string{"tool.lua": toolSource("Tool", "v0")})
	for i := 1; i <= 10; i++ {
		writeFile(t, filepath.Join(dir, "tool.lua"), toolSource("Tool", fmt.Sprintf("v%d", i)))
		time.Sleep(10 * time.Millisecond)
	}
	w.eventually("Tool", "v10")
	events := w.waitEvent("Tool updated", is(engine.ToolUpdated, "Tool"))
	if n := count(events, engine.ToolUpdated, "Tool"); n > 10 {
		t.Errorf("%d updates for ten saves: %v", n, w.kinds())
	}
	t.Logf("%d updates for the burst", count(events, engine.ToolUpdated, "Tool"))
}

// A save with a syntax error keeps the last good version serving and reports the
// problem with file and line; the next good save clears it.
func TestReloadSyntaxErrorKeepsLastGood(t *testing.T) {
	dir := t.TempDir()
	w := startWatch(t, dir, engine.WatchOptions{}, map[string]string{"tool.lua": toolSource("Tool", "good")})
	writeFile(t, filepath.Join(dir, "tool.lua"), "return {\n  name = \"Tool\",\n  call = function() return 1 end end,\n}\n")
	// A reading halfway through the write may fail first, at another line.
	atLine3 := func(ev engine.Event) bool {
		return ev.Kind == engine.LoadFailed && len(ev.Diagnostics) > 0 &&
			strings.HasPrefix(ev.Diagnostics[0].String(), filepath.Join(dir, "tool.lua")+":3: error:")
	}
	for _, ev := range w.waitEvent("failed at tool.lua:3", atLine3) {
		if ev.Kind != engine.LoadFailed {
			t.Fatalf("want only failures with file:line, got %v", w.kinds())
		}
	}
	if got := w.answer("Tool"); got != "good" {
		t.Errorf("after a broken save Tool answers %q; the last good version must keep serving", got)
	}
	if d := w.eng.Diagnostics(); !diag.HasErrors(d) {
		t.Errorf("the engine's diagnostics do not hold the error: %v", d)
	}
	w.reset()
	writeFile(t, filepath.Join(dir, "tool.lua"), toolSource("Tool", "fixed"))
	w.eventually("Tool", "fixed")
	if d := w.eng.Diagnostics(); diag.HasErrors(d) {
		t.Errorf("fixing the file did not clear the error: %v", d)
	}
}

// Adding, deleting and renaming files and tools.
func TestReloadAddRemoveRename(t *testing.T) {
	dir := t.TempDir()
	w := startWatch(t, dir, engine.WatchOptions{}, map[string]string{"a.lua": toolSource("A", "a")})
	writeFile(t, filepath.Join(dir, "b.lua"), toolSource("B", "b"))
	w.eventually("B", "b")
	if n := count(w.waitEvent("B added", is(engine.ToolAdded, "B")), engine.ToolAdded, "B"); n != 1 {
		t.Errorf("want B added once: %v", w.kinds())
	}

	// A file renamed keeps its tool, with no moment without it.
	var gone atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			reg := w.eng.Registry()
			_, hasA := reg.Lookup("A")
			_, hasC := reg.Lookup("C")
			if !hasA && !hasC {
				gone.Add(1)
			}
			if hasA && hasC {
				gone.Add(1000)
			}
		}
	}()
	os.Rename(filepath.Join(dir, "a.lua"), filepath.Join(dir, "renamed.lua"))
	deadline := time.Now().Add(watchGuard)
	for {
		if tool, ok := w.eng.Registry().Lookup("A"); ok && tool.Source() == filepath.Join(dir, "renamed.lua") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A is not served from renamed.lua; events: %v", w.kinds())
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.eventually("A", "a")
	// The tool inside renamed: A becomes C in one swap. (Renamed and changed within
	// one debounce, a.lua would be a file missing, its tool A kept until a.lua is
	// confirmed gone.)
	writeFile(t, filepath.Join(dir, "renamed.lua"), toolSource("C", "c"))
	w.eventually("C", "c")
	close(stop)
	wg.Wait()
	if n := gone.Load(); n != 0 {
		t.Errorf("a snapshot had neither or both of A and C (%d)", n)
	}
	if got := w.answer("A"); !strings.Contains(got, "No such tool available: A") {
		t.Errorf("A after its rename: %q", got)
	}

	w.reset()
	os.Remove(filepath.Join(dir, "b.lua"))
	deadline = time.Now().Add(watchGuard)
	for !strings.Contains(w.answer("B"), "No such tool") {
		if time.Now().After(deadline) {
			t.Fatal("B still served after its file was deleted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(w.waitEvent("B removed", is(engine.ToolRemoved, "B")), engine.ToolRemoved, "B"); n != 1 {
		t.Errorf("want B removed once: %v", w.kinds())
	}
}

// A source directory created after the watch started is picked up.
func TestReloadDirectoryCreatedLater(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "later", "tools")
	eng := newLuaEngine(t)
	eng.Load(engine.DirSource(dir))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Watch(ctx, engine.WatchOptions{})
	// Whether the watch has started or not when the directory appears, it is read: at
	// the watch's first look, or when its creation is seen. The pause only keeps the
	// creation away from the moment the watch, having found the directory missing,
	// starts watching its parent: a directory created in between is never seen (a
	// race of Watch's, not of this test).
	time.Sleep(100 * time.Millisecond)
	os.MkdirAll(dir, 0o755)
	writeFile(t, filepath.Join(dir, "tool.lua"), toolSource("Late", "here"))
	w := &watched{t: t, dir: dir, eng: eng}
	w.eventually("Late", "here")
}

// Without file events, polling keeps the tools current, and says so.
func TestReloadPolling(t *testing.T) {
	dir := t.TempDir()
	w := startWatch(t, dir, engine.WatchOptions{Poll: true, PollInterval: 50 * time.Millisecond}, map[string]string{"tool.lua": toolSource("Tool", "v1")})
	writeFile(t, filepath.Join(dir, "tool.lua"), toolSource("Tool", "v2"))
	w.eventually("Tool", "v2")
}

// Reloading a tool hundreds of times while others call it: no call fails, and every
// answer comes from one complete version. The writer saves versions every few
// milliseconds until 300 reloads have happened, however many saves that takes.
func TestReloadUnderLoad(t *testing.T) {
	dir := t.TempDir()
	versioned := func(v int) string {
		return fmt.Sprintf(`local V = "%d"
return {
  name = "Tool",
  prompt = "Version %d.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function() return V .. ":" .. "%d" end,
}
`, v, v, v)
	}
	w := startWatch(t, dir, engine.WatchOptions{Debounce: time.Millisecond}, map[string]string{"tool.lua": versioned(0)})
	stop := make(chan struct{})
	var calls, failures atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := w.answer("Tool")
				calls.Add(1)
				a, b, ok := strings.Cut(got, ":")
				if !ok || a != b {
					failures.Add(1)
					t.Errorf("torn or failed answer %q", got)
				}
			}
		}()
	}
	const reloads = 300
	v := 0
	deadline := time.Now().Add(watchGuard)
	for count(w.sofar(), engine.ToolUpdated, "Tool") < reloads {
		if time.Now().After(deadline) {
			t.Fatalf("%d reloads after %d saves", count(w.sofar(), engine.ToolUpdated, "Tool"), v)
		}
		v++
		writeFile(t, filepath.Join(dir, "tool.lua"), versioned(v))
		time.Sleep(3 * time.Millisecond)
	}
	w.eventually("Tool", fmt.Sprintf("%d:%d", v, v))
	close(stop)
	wg.Wait()
	t.Logf("%d calls, %d failed, during %d saves and %d reloads", calls.Load(), failures.Load(), v, count(w.sofar(), engine.ToolUpdated, "Tool"))
}

// A call in flight when its tool is reloaded finishes on the version it started with;
// the next call gets the new one. The old version's call waits, in a host function,
// until the reload has happened.
func TestReloadInFlightCallFinishesOnItsVersion(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	gate := &bindings.Module{Name: "gate", Doc: "Holds a call until the test releases it.", Values: map[string]any{
		"wait": func() {
			entered <- struct{}{}
			<-release
		},
	}}
	eng, err := engine.New(engine.Options{
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: []*bindings.Module{gate}})},
		Cwd:     t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	slow := func(text, wait string) string {
		return fmt.Sprintf(`local gate = require("gate")
return {
  name = "Slow",
  prompt = "Takes its time.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function() %s return %q end,
}
`, wait, text)
	}
	dir := t.TempDir()
	w := startWatchOf(t, eng, dir, engine.WatchOptions{}, map[string]string{"slow.lua": slow("old", "gate.wait()")})
	result := make(chan string)
	go func() { result <- w.answer("Slow") }()
	select {
	case <-entered:
	case <-time.After(watchGuard):
		t.Fatal("the call never started")
	}
	writeFile(t, filepath.Join(dir, "slow.lua"), slow("new", ""))
	w.waitEvent("Slow updated", is(engine.ToolUpdated, "Slow"))
	close(release)
	if got := <-result; got != "old" {
		t.Errorf("the call in flight answered %q, want old", got)
	}
	if got := w.answer("Slow"); got != "new" {
		t.Errorf("the next call answered %q, want new", got)
	}
}

// heldLoader is a loader whose loads of one file at a time wait until the test
// releases them: a main chunk that takes its time, for as long as the test says.
type heldLoader struct {
	engine.Loader
	mu         sync.Mutex
	name       string        // the base name of the file to hold
	started    chan struct{} // closed when its first load starts
	hasStarted bool
	release    chan struct{} // closed to let its loads go on
}

// hold makes the loads of the file named name wait for release, and returns a channel
// closed when one has started. The hold ends with the test.
func (l *heldLoader) hold(t *testing.T, name string) (started <-chan struct{}, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.name, l.started, l.hasStarted, l.release = name, make(chan struct{}), false, make(chan struct{})
	var once sync.Once
	ch := l.release
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	return l.started, release
}

func (l *heldLoader) Load(file string, src []byte, env engine.LoadEnv) (engine.ToolDef, []diag.Diagnostic) {
	l.mu.Lock()
	held, release := filepath.Base(file) == l.name, l.release
	if held && !l.hasStarted {
		l.hasStarted = true
		close(l.started)
	}
	l.mu.Unlock()
	if held {
		<-release
	}
	return l.Loader.Load(file, src, env)
}

// A main chunk that takes its time, or never returns, holds up no other file's
// reload: the other file saved with it is served while the slow file still loads,
// and the slow file's outcome follows when it has one (the tool, or the failure at
// the load timeout).
func TestSlowMainChunkDelaysNoOtherReload(t *testing.T) {
	loader := &heldLoader{Loader: luaload.New(luaload.Options{Limits: bindings.Limits{InitTimeout: time.Second}})}
	eng, err := engine.New(engine.Options{Loaders: []engine.Loader{loader}, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := startWatchOf(t, eng, dir, engine.WatchOptions{Debounce: 10 * time.Millisecond}, map[string]string{"ok.lua": toolSource("Ok", "v1")})
	never := `while true do end
` + toolSource("Never", "never")
	for _, c := range []struct {
		name, src, want string
		kind            engine.EventKind
	}{
		{"a_slow.lua", toolSource("Aslow", "slow"), "slow", engine.ToolAdded},
		{"a_never.lua", never, "", engine.LoadFailed},
	} {
		w.reset()
		started, release := loader.hold(t, c.name)
		writeFile(t, filepath.Join(dir, c.name), c.src)
		writeFile(t, filepath.Join(dir, "ok.lua"), toolSource("Ok", "v2 "+c.name))
		select {
		case <-started:
		case <-time.After(watchGuard):
			t.Fatalf("%s: its load never started", c.name)
		}
		w.eventually("Ok", "v2 "+c.name)
		outcome := func(ev engine.Event) bool { return ev.Kind == c.kind && strings.HasSuffix(ev.File, c.name) }
		if events := w.waitEvent("Ok updated", is(engine.ToolUpdated, "Ok")); slices.ContainsFunc(events, outcome) {
			t.Fatalf("%s: an outcome while its load was held: %v", c.name, w.kinds())
		}
		release()
		w.waitEvent(fmt.Sprintf("%s for %s", c.kind, c.name), outcome)
		if c.want != "" {
			if got := w.answer("Aslow"); got != c.want {
				t.Errorf("Aslow answers %q once loaded, want %q", got, c.want)
			}
		}
	}
}

// A file saved every 10 ms, more often than the debounce: the watcher does not wait
// for a quiet that never comes, it reloads at least every maximum wait (400 ms here)
// while the saves go on. The saves go on until two reloads have happened: a watcher
// that waited for quiet would never make one, and the test would end at its guard.
func TestReloadNeverQuiet(t *testing.T) {
	dir := t.TempDir()
	w := startWatch(t, dir, engine.WatchOptions{Debounce: 100 * time.Millisecond}, map[string]string{"tool.lua": toolSource("Tool", "v0")})
	deadline := time.Now().Add(watchGuard)
	i := 0
	for count(w.sofar(), engine.ToolUpdated, "Tool") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d reloads while the file was saved every 10 ms, %d times; want one every 400 ms", count(w.sofar(), engine.ToolUpdated, "Tool"), i)
		}
		i++
		writeFile(t, filepath.Join(dir, "tool.lua"), toolSource("Tool", fmt.Sprintf("v%d", i)))
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("2 reloads during %d saves", i)
	w.eventually("Tool", fmt.Sprintf("v%d", i))
}

// A file deleted and written again 5 ms later, over and over: its tool is never
// missing from the registry, though rescans (every maximum wait, 400 ms here) fall
// between delete and write about half the time. A file missing for less than the
// debounce (100 ms) is not gone. A writer held up between delete and write for the
// debounce or longer (a loaded machine) may make the tool go, as Engine.Watch says:
// then the lookups are not judged. The churn goes on for at least 300 rounds and
// until two reloads have happened.
func TestReloadDeleteRecreateKeepsTool(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tool.lua")
	const debounce = 100 * time.Millisecond
	w := startWatch(t, dir, engine.WatchOptions{Debounce: debounce}, map[string]string{"tool.lua": toolSource("Tool", "v0")})
	var lookups, missing atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			lookups.Add(1)
			if _, ok := w.eng.Registry().Lookup("Tool"); !ok {
				missing.Add(1)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	var longest time.Duration // the longest the file was away
	deadline := time.Now().Add(watchGuard)
	i := 0
	for ; i < 300 || count(w.sofar(), engine.ToolUpdated, "Tool") < 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%d reloads in %d rounds of delete and write", count(w.sofar(), engine.ToolUpdated, "Tool"), i)
		}
		gone := time.Now()
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		writeFile(t, file, toolSource("Tool", fmt.Sprintf("v%d", i+1)))
		longest = max(longest, time.Since(gone))
		time.Sleep(5 * time.Millisecond)
	}
	w.eventually("Tool", fmt.Sprintf("v%d", i))
	close(stop)
	wg.Wait()
	t.Logf("%d lookups, %d found no Tool; %d rounds, %d reloads; the file was away %v at the longest",
		lookups.Load(), missing.Load(), i, count(w.sofar(), engine.ToolUpdated, "Tool"), longest.Round(time.Millisecond))
	if longest >= debounce {
		t.Logf("the file was away for the debounce or longer: the lookups are not judged")
		return
	}
	if missing.Load() > 0 {
		t.Errorf("Tool was missing from %d of %d lookups while its file was deleted and written again", missing.Load(), lookups.Load())
	}
}
