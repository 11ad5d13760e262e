package engine

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/luatool/luatool/srcpos"
)

// EventKind says what changed in the tool set.
type EventKind string

// The kinds of Event.
const (
	// ToolAdded: a tool is on offer that was not before.
	ToolAdded EventKind = "added"
	// ToolUpdated: a tool is served by a new version (its file changed).
	ToolUpdated EventKind = "updated"
	// ToolRemoved: a tool is no longer on offer.
	ToolRemoved EventKind = "removed"
	// LoadFailed: a file changed and its new content does not load. Its last good
	// version, if any, keeps serving.
	LoadFailed EventKind = "failed"
	// WatchStatus: news about watching itself (polling instead of events, a
	// directory that appeared), in Message.
	WatchStatus EventKind = "watch"
)

// An Event reports one change of the tool set, after the snapshot that has it is in
// place.
type Event struct {
	Kind EventKind
	// Tool is the tool's name, for added, updated and removed.
	Tool string
	// File is the tool's file, or the file that failed.
	File string
	// Diagnostics are the problems of a failed file (with file:line).
	Diagnostics []Diagnostic
	// Message is the text of a WatchStatus event.
	Message string
}

// String renders the event for a log line.
func (ev Event) String() string {
	switch ev.Kind {
	case LoadFailed:
		s := "failed: " + ev.File
		for _, d := range ev.Diagnostics {
			s += "\n  " + d.String()
		}
		return s
	case WatchStatus:
		return "watch: " + ev.Message
	default:
		return fmt.Sprintf("%s: %s (%s)", ev.Kind, ev.Tool, ev.File)
	}
}

// Subscribe calls fn with every event from now on, in order, from the goroutine that
// loads (Load, Refresh or Watch), after the new snapshot is in place. fn must not
// block for long and must not call Load or Refresh. The returned function ends the
// subscription.
func (e *Engine) Subscribe(fn func(Event)) (unsubscribe func()) {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.subscribers == nil {
		e.subscribers = map[int]func(Event){}
	}
	id := e.nextSub
	e.nextSub++
	e.subscribers[id] = fn
	return func() {
		e.loadMu.Lock()
		defer e.loadMu.Unlock()
		delete(e.subscribers, id)
	}
}

// toolFile is what the engine knows of one tool file: the hash of the version last
// read (its content, and the shared files it may use), the last good tool (nil if it
// never loaded) and the diagnostics of the last attempt, whose errors mean the
// version on disk does not load.
type toolFile struct {
	hash  [sha256.Size]byte
	tool  *Tool
	diags []Diagnostic
}

// sourceState is a source and its files, by name within the source; unreadable is
// the error of a directory that cannot be read, nil when it could.
type sourceState struct {
	src        Source
	files      map[string]*toolFile
	unreadable error
}

// Load sets the sources, in order, reads them and swaps in a snapshot of the Go-native
// tools and the tools of the sources. A tool in a later source overrides one of the
// same name in an earlier source (a notice says so). Two files of one source declaring
// one name are both left out, with an error naming both. A file that fails to load is
// reported; its last good version (from an earlier Load of a source of the same name)
// keeps serving. Files whose content has not changed since the last read are not
// loaded again. Load returns the diagnostics of the whole set, in source order.
func (e *Engine) Load(sources ...Source) []Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	known := map[string]*sourceState{}
	for _, s := range e.sources {
		known[s.src.Name] = s
	}
	var next []*sourceState
	var dropped []*Tool
	for _, src := range sources {
		s, ok := known[src.Name]
		if ok {
			delete(known, src.Name)
			s.src = src
		} else {
			s = &sourceState{src: src, files: map[string]*toolFile{}}
		}
		next = append(next, s)
	}
	for _, s := range known {
		for _, f := range s.files {
			if f.tool != nil {
				dropped = append(dropped, f.tool)
			}
		}
	}
	e.sources = next
	return e.refreshLocked(func(*sourceState) bool { return true }, dropped)
}

// Refresh reads again the sources with the given names (all of them when none is
// given) and, if any file was added, changed or removed, swaps in a new snapshot and
// tells the subscribers. It returns the diagnostics of the whole set.
func (e *Engine) Refresh(names ...string) []Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return e.refreshLocked(func(s *sourceState) bool {
		return len(names) == 0 || slices.Contains(names, s.src.Name)
	}, nil)
}

// Diagnostics returns the diagnostics of the tool set as last loaded.
func (e *Engine) Diagnostics() []Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return slices.Clone(e.diagnostics)
}

// refreshLocked rescans the chosen sources, assembles the snapshot, swaps it in when
// something changed, tells the subscribers and closes the tools no longer served.
// retired are tools already out of every source (their source was dropped).
func (e *Engine) refreshLocked(which func(*sourceState) bool, retired []*Tool) []Diagnostic {
	var events []Event
	changed := len(retired) > 0 || e.diagnostics == nil
	for _, s := range e.sources {
		if !which(s) {
			continue
		}
		c, r, ev := e.rescan(s)
		changed = changed || c
		retired = append(retired, r...)
		events = append(events, ev...)
	}
	if !changed {
		return slices.Clone(e.diagnostics)
	}
	old := e.Registry()
	reg, diags := e.assemble()
	e.snapshot.Store(reg)
	e.diagnostics = diags
	events = append(events, diffEvents(old, reg)...)
	for _, ev := range events {
		e.publishLocked(ev)
	}
	// Calls in flight keep the tools they started with: a retired tool's states are
	// closed as they come back (bindings.Pool.Close).
	for _, t := range retired {
		t.close()
	}
	return slices.Clone(diags)
}

// rescan reads a source's directory: new and changed files are loaded, unchanged ones
// skipped, missing ones dropped. It reports whether anything changed, the tools it
// replaced or dropped, and a LoadFailed event for each file that failed this time.
func (e *Engine) rescan(s *sourceState) (changed bool, retired []*Tool, events []Event) {
	entries, err := fs.ReadDir(s.src.FS, ".")
	if (err == nil) != (s.unreadable == nil) {
		changed = true
	}
	s.unreadable = err
	if err != nil {
		// The directory is gone or unreadable: its tools go with it.
		for name, f := range s.files {
			if f.tool != nil {
				retired = append(retired, f.tool)
			}
			delete(s.files, name)
			changed = true
		}
		return changed, retired, nil
	}
	// Read and hash every tool file, then load the new and changed ones side by side
	// (compiling and running a file is independent of the others), then record the
	// outcomes in directory order, so that events and diagnostics come in that order.
	type pending struct {
		name   string
		loader Loader
		data   []byte
		hash   [sha256.Size]byte
		tool   *Tool
		diag   []Diagnostic
	}
	var work []*pending
	seen := map[string]bool{}
	shared := map[string][sha256.Size]byte{} // a shared directory -> the hash of its files
	for _, ent := range entries {
		name := ent.Name()
		l := e.loaderFor(name)
		if l == nil {
			continue
		}
		data, err := fs.ReadFile(s.src.FS, name)
		if err != nil {
			// A directory named *.lua, or a file that vanished between listing and reading.
			continue
		}
		seen[name] = true
		// A tool file's version is its content and, for a loader whose files share a
		// directory, that directory's: a change there reloads the file.
		h := sha256.New()
		h.Write(data)
		if sl, ok := l.(SharedLoader); ok {
			dir := sl.SharedDir()
			sum, ok := shared[dir]
			if !ok {
				sum = treeHash(s.src.FS, dir)
				shared[dir] = sum
			}
			h.Write(sum[:])
		}
		var hash [sha256.Size]byte
		h.Sum(hash[:0])
		if f := s.files[name]; f != nil && f.hash == hash {
			continue
		}
		work = append(work, &pending{name: name, loader: l, data: data, hash: hash})
	}
	parallel(len(work), func(i int) {
		w := work[i]
		w.tool, w.diag = e.loadFile(w.loader, path.Join(s.src.Name, w.name), w.data, LoadEnv{FS: s.src.FS})
	})
	for _, w := range work {
		f := s.files[w.name]
		if f == nil {
			f = &toolFile{}
			s.files[w.name] = f
		}
		f.hash, f.diags, changed = w.hash, w.diag, true
		if w.tool == nil {
			events = append(events, Event{Kind: LoadFailed, File: path.Join(s.src.Name, w.name), Diagnostics: w.diag})
			continue
		}
		if f.tool != nil {
			retired = append(retired, f.tool)
		}
		f.tool = w.tool
	}
	for name, f := range s.files {
		if !seen[name] {
			if f.tool != nil {
				retired = append(retired, f.tool)
			}
			delete(s.files, name)
			changed = true
		}
	}
	return changed, retired, events
}

// treeHash hashes the names and contents of the files under dir of fsys (nothing,
// when dir is absent or unreadable, hashes alike).
func treeHash(fsys fs.FS, dir string) [sha256.Size]byte {
	h := sha256.New()
	_ = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// parallel runs fn(0) ... fn(n-1) on up to GOMAXPROCS goroutines and waits for them.
func parallel(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// assemble builds the snapshot from the Go-native tools and the sources' last good
// tools, resolving names: within a source a name declared twice is served by neither
// file; across sources the later source wins, with a notice.
func (e *Engine) assemble() (*Registry, []Diagnostic) {
	var diags []Diagnostic
	byName := map[string]*Tool{}
	var order []string
	for _, t := range e.goTools {
		byName[t.Name()] = t
		order = append(order, t.Name())
	}
	for _, s := range e.sources {
		if s.unreadable != nil {
			diags = append(diags, Diagnostic{Pos: srcpos.Pos{File: s.src.Name}, Severity: SeverityError, Message: "cannot read tool directory: " + s.unreadable.Error()})
		}
		names := make([]string, 0, len(s.files))
		for name := range s.files {
			names = append(names, name)
		}
		sort.Strings(names)
		declared := map[string][]string{} // tool name -> files of this source
		for _, name := range names {
			f := s.files[name]
			diags = append(diags, f.diags...)
			if f.tool != nil {
				declared[f.tool.Name()] = append(declared[f.tool.Name()], f.tool.Source())
			}
		}
		for _, name := range names {
			t := s.files[name].tool
			if t == nil {
				continue
			}
			if files := declared[t.Name()]; len(files) > 1 {
				if files[0] != t.Source() {
					diags = append(diags, Diagnostic{Pos: srcpos.Pos{File: t.Source()}, Severity: SeverityError,
						Message: fmt.Sprintf("tool name %q is also declared by %s; neither is loaded", t.Name(), files[0])})
				}
				continue
			}
			if prev, ok := byName[t.Name()]; ok {
				diags = append(diags, Diagnostic{Pos: srcpos.Pos{File: t.Source()}, Severity: SeverityNotice,
					Message: fmt.Sprintf("tool %s overrides the one from %s", t.Name(), prev.Source())})
			} else {
				order = append(order, t.Name())
			}
			byName[t.Name()] = t
		}
	}
	tools := make([]*Tool, 0, len(order))
	for _, name := range order {
		tools = append(tools, byName[name])
	}
	reg, d := newRegistry(tools, e.isEnabled)
	diags = append(diags, d...)
	return reg, append(diags, e.rules.unknownTools(tools)...)
}

// diffEvents lists what changed between two snapshots, by tool name.
func diffEvents(old, cur *Registry) []Event {
	var events []Event
	for _, t := range cur.Tools() {
		prev, ok := old.byName[t.Name()]
		switch {
		case !ok || prev.Name() != t.Name():
			events = append(events, Event{Kind: ToolAdded, Tool: t.Name(), File: t.Source()})
		case prev != t:
			events = append(events, Event{Kind: ToolUpdated, Tool: t.Name(), File: t.Source()})
		}
	}
	for _, t := range old.Tools() {
		if now, ok := cur.byName[t.Name()]; !ok || now.Name() != t.Name() {
			events = append(events, Event{Kind: ToolRemoved, Tool: t.Name(), File: t.Source()})
		}
	}
	return events
}

// publish tells the subscribers of an event.
func (e *Engine) publish(ev Event) {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	e.publishLocked(ev)
}

func (e *Engine) publishLocked(ev Event) {
	for _, id := range sortedIDs(e.subscribers) {
		e.subscribers[id](ev)
	}
}

func sortedIDs(m map[int]func(Event)) []int {
	ids := make([]int, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}
