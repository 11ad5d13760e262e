package engine

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/hooks"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/engine/srcpos"
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

	// A Feature's changes (a prompt's, a resource's) are reported with its kind
	// followed by " added", " updated" or " removed" ("prompt added"), named by its
	// key, and a change of what it serves made by a call with " changed"
	// (CallContext.FeatureChanged): package engine/feature names them
	// (feature.PromptAdded, ...).
	// HookAdded, HookUpdated and HookRemoved are the same for a hook file, whose
	// event and matcher are Name.
	HookAdded   EventKind = "hook added"
	HookUpdated EventKind = "hook updated"
	HookRemoved EventKind = "hook removed"
	// ModuleAdded, ModuleUpdated and ModuleRemoved report a file of a loader's
	// shared directory (a Lua module of lib/), named by File, that appeared,
	// changed or went: the tools that may use it are loaded again.
	ModuleAdded   EventKind = "module added"
	ModuleUpdated EventKind = "module updated"
	ModuleRemoved EventKind = "module removed"
)

// An Event reports one change of the tool set, after the snapshot that has it is in
// place.
type Event struct {
	Kind EventKind
	// Tool is the tool's name, for added, updated and removed.
	Tool string
	// Name is a Feature's key (a prompt's name, a resource's URI), for the kinds of
	// features; a hook file's event and matcher, for the hook kinds.
	Name string
	// File is the tool's (feature's, hook's) file, the module's, or the file that
	// failed.
	File string
	// Diagnostics are the problems of a failed file (with file:line), and for a tool
	// added or updated the warnings its file loaded with, so that a
	// watcher tells of a mistake that loads as luatool check does.
	Diagnostics []diag.Diagnostic
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
	case ModuleAdded, ModuleUpdated, ModuleRemoved:
		return fmt.Sprintf("%s: %s", ev.Kind, ev.File)
	}
	if ev.Name != "" { // a feature's or a hook file's
		return fmt.Sprintf("%s: %s (%s)", ev.Kind, ev.Name, ev.File)
	}
	return fmt.Sprintf("%s: %s (%s)", ev.Kind, ev.Tool, ev.File)
}

// Subscribe calls fn with every event from now on, in order, from the goroutine that
// loads (Load, Refresh or Watch), after the new snapshot is in place, or, for a
// feature's "changed" event, from the call that reports it
// (CallContext.FeatureChanged). fn must not block for long and must not call Load or
// Refresh. The returned function ends the
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

// identify returns the kind of what a file serves ("tool", or a Feature's kind) and
// the name it is served by within its kind: tools and each kind of feature have
// names of their own.
func identify(t *Tool) (kind, name string) {
	if f := t.def.Feature; f != nil {
		return f.Kind(), f.Key()
	}
	return "tool", t.Name()
}

// isHookFile reports whether what a file serves is a hook file's, which is served
// as one of the snapshot's hooks, not as a tool.
func isHookFile(t *Tool) bool { return t != nil && t.def.Hook != nil }

// itemKey is the key of what a file serves among those of every kind.
func itemKey(t *Tool) string {
	kind, name := identify(t)
	return kind + "\x00" + name
}

// describe names what a file serves in messages: tool name "Read", prompt name
// "review", resource URI "docs://readme".
func describe(t *Tool) string {
	if f := t.def.Feature; f != nil {
		return f.String()
	}
	return fmt.Sprintf("tool name %q", t.Name())
}

// toolFile is what the engine knows of one tool file: the hash of the version last
// read (its content, and the shared files it may use), the last good item it served
// (a tool, a hook file or a feature; nil if it never loaded) and the diagnostics of
// the last attempt, whose errors mean the version on disk does not load.
type toolFile struct {
	hash  [sha256.Size]byte
	item  *Tool
	diags []diag.Diagnostic
	// readAt is the rescan (see sourceState.scans) that first read this version.
	readAt uint64
	// missingSince is when a watch's rescan that first found the file missing was
	// done reading the directory, and missedAt that rescan, while the file keeps its
	// tool serving (see dropMissing); zero while the file is on disk.
	missingSince time.Time
	missedAt     uint64
}

// sourceState is a source and its files, by name within the source; unreadable is
// the error of a directory that cannot be read, nil when it could.
type sourceState struct {
	src        Source
	files      map[string]*toolFile
	unreadable error
	// running holds, by file name, the loads a watch's rescan stopped waiting for
	// (see reloadGrace): the next rescan takes the outcome of the one that finished.
	running map[string]*loadRun
	// scans counts the rescans, numbering them: a file that went missing at one
	// may be another file, read at that one or later, under a new name.
	scans uint64
	// shared holds the hash of each file of the loaders' shared directories, by
	// path within the source, as last read.
	shared map[string][sha256.Size]byte
}

// A loadRun is the load of one version of a tool file, on a goroutine of its own, so
// that a rescan can stop waiting for it.
type loadRun struct {
	name  string // within the source
	hash  [sha256.Size]byte
	scan  uint64        // the rescan that read this version
	done  chan struct{} // closed when item and diags are set
	item  *Tool
	diags []diag.Diagnostic
}

// finished reports whether the load has its outcome.
func (r *loadRun) finished() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// abandon discards a load whose version is no longer on disk, once it finishes.
func (r *loadRun) abandon() {
	go func() {
		<-r.done
		if r.item != nil {
			r.item.close()
		}
	}()
}

// reloadGrace is how long a watch's rescan waits for the files it loads. A file
// whose main chunk is slower (at worst it runs until the limits' InitTimeout) is
// folded in by a rescan of its own when it finishes, so that it holds up neither the
// other files' changes nor the next rescan.
const reloadGrace = 250 * time.Millisecond

// loadWait says how a rescan waits. For its loads: to the end when grace is zero
// (Load and Refresh), otherwise for grace, after which late is called, from another
// goroutine, with the source's name once each load still running finishes.
//
// For files in the middle of a save, under a watch (see dropMissing): confirm is how
// long a missing file must have been gone before its tool is dropped (zero, for Load
// and Refresh: at once); shown, when set, gives the tool files of a source that file
// events showed on disk lately, by name, with when (created or written, or removed
// or renamed away: there until then); catchUp, when set, brings shown up to date
// with every file event that happened before it was called, and reports false when
// it cannot; recheck asks for another rescan soon: to confirm a missing file gone,
// or to read again a file that failed to load (it may have been read halfway through
// a save). All three are called on the rescan's goroutine, recheck with the source's
// name.
type loadWait struct {
	grace   time.Duration
	late    func(source string)
	confirm time.Duration
	shown   func(source string) map[string]time.Time
	catchUp func() bool
	recheck func(source string)
}

// Load sets the whole list of sources, in order, reads them and swaps in a snapshot
// of the Go-native tools and the tools of the sources. A source loaded before and
// left out of sources is dropped with everything it served, and a notice among the
// diagnostics (and a line of the Logger) names it and what went with it: AddSources
// adds to the list instead. A tool in a later source overrides one of the same name
// in an earlier source (a notice says so). Two files of one source declaring one
// name are both left out, with an error naming both. A file that fails to load is
// reported; its last good version (from an earlier Load of a source of the same name)
// keeps serving. Files whose content has not changed since the last read are not
// loaded again. Load returns the diagnostics of the whole set, in source order, after
// the notices of the sources dropped. A source with a Dir and no FS reads the
// directory (as DirSource).
func (e *Engine) Load(sources ...Source) []diag.Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return e.setSourcesLocked(sources)
}

// AddSources adds sources after those loaded, reads them and swaps in the snapshot,
// as Load does for the list with them added. A source whose name is loaded already
// takes that one's place in the list, and its files are read again. It returns the
// diagnostics of the whole set.
func (e *Engine) AddSources(sources ...Source) []diag.Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	list := make([]Source, 0, len(e.sources)+len(sources))
	for _, s := range e.sources {
		list = append(list, s.src)
	}
	for _, src := range sources {
		if i := slices.IndexFunc(list, func(s Source) bool { return s.Name == src.Name }); i >= 0 {
			list[i] = src
		} else {
			list = append(list, src)
		}
	}
	return e.setSourcesLocked(list)
}

// setSourcesLocked is Load, with loadMu held.
func (e *Engine) setSourcesLocked(sources []Source) []diag.Diagnostic {
	sources = slices.Clone(sources)
	var dirs []rules.ProtectedPath
	for i, src := range sources {
		if src.FS == nil && src.Dir != "" {
			sources[i].FS = os.DirFS(src.Dir)
		}
		if src.Dir != "" {
			dir, err := filepath.Abs(src.Dir)
			if err != nil {
				dir = src.Dir // no working directory to resolve it against: only os.Getwd fails here
			}
			dirs = append(dirs, rules.ProtectedPath{Path: dir, Why: loadedDirsWhy})
		}
	}
	e.loadedDirs.Store(&dirs)
	known := map[string]*sourceState{}
	for _, s := range e.sources {
		known[s.src.Name] = s
	}
	var next []*sourceState
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
	var dropped []*Tool
	var notices []diag.Diagnostic
	for _, s := range e.sources {
		if known[s.src.Name] != s {
			continue // kept
		}
		notice := droppedNotice(s)
		e.opts.Logger.Info(notice.String())
		notices = append(notices, notice)
		for _, f := range s.files {
			if f.item != nil {
				dropped = append(dropped, f.item)
			}
		}
		for _, r := range s.running {
			r.abandon()
		}
	}
	e.sources = next
	return append(notices, e.refreshLocked(func(*sourceState) bool { return true }, dropped, loadWait{})...)
}

// droppedNotice says that a source is no longer loaded, and names what it served:
// a host that meant to add a source and set the list instead learns it here.
func droppedNotice(s *sourceState) diag.Diagnostic {
	names := slices.Sorted(maps.Keys(s.files))
	var served []string
	for _, name := range names {
		switch it := s.files[name].item; {
		case it == nil:
		case isHookFile(it):
			served = append(served, "hook "+it.Source())
		default:
			kind, id := identify(it)
			served = append(served, kind+" "+id)
		}
	}
	msg := "source " + s.src.Name + " is no longer loaded: Load sets the whole list of sources (AddSources adds to it)"
	if len(served) > 0 {
		msg += "; with it went " + strings.Join(served, ", ")
	}
	return diag.Diagnostic{Pos: srcpos.Pos{File: s.src.Name}, Severity: diag.SeverityNotice, Message: msg}
}

// Refresh reads again the sources with the given names (all of them when none is
// given) and, if any file was added, changed or removed, swaps in a new snapshot and
// tells the subscribers. It returns the diagnostics of the whole set.
func (e *Engine) Refresh(names ...string) []diag.Diagnostic {
	return e.reload(loadWait{}, names...)
}

// reload is Refresh, waiting for the loads as wait says.
func (e *Engine) reload(wait loadWait, names ...string) []diag.Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return e.refreshLocked(func(s *sourceState) bool {
		return len(names) == 0 || slices.Contains(names, s.src.Name)
	}, nil, wait)
}

// Diagnostics returns the diagnostics of the tool set as last loaded.
func (e *Engine) Diagnostics() []diag.Diagnostic {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return slices.Clone(e.diagnostics)
}

// refreshLocked rescans the chosen sources, assembles the snapshot, swaps it in when
// something changed, tells the subscribers and closes the tools no longer served.
// retired are items already out of every source (their source was dropped).
func (e *Engine) refreshLocked(which func(*sourceState) bool, retired []*Tool, wait loadWait) []diag.Diagnostic {
	var events []Event
	changed := len(retired) > 0 || e.diagnostics == nil
	for _, s := range e.sources {
		if !which(s) {
			continue
		}
		c, r, ev := e.rescan(s, wait)
		changed = changed || c
		retired = append(retired, r...)
		events = append(events, ev...)
	}
	if changed {
		e.swapLocked(events, retired)
	}
	return slices.Clone(e.diagnostics)
}

// swapLocked assembles the snapshot and swaps it in, tells the subscribers of events
// and of what changed, and closes the retired items, no longer served.
func (e *Engine) swapLocked(events []Event, retired []*Tool) {
	old := e.Registry()
	reg, diags := e.assemble()
	e.snapshot.Store(reg)
	e.diagnostics = diags
	events = append(events, diffEvents(old, reg)...)
	for _, ev := range events {
		e.publishLocked(ev)
	}
	// Calls in flight keep the items they started with: a retired item's states are
	// closed as they come back (bindings.Pool.Close).
	for _, it := range retired {
		it.close()
	}
}

// rescan reads a source's directory: new and changed files are loaded, unchanged ones
// skipped, missing ones dropped (see dropMissing). It reports whether anything
// changed, the items it replaced or dropped, and a LoadFailed event for each file
// that failed this time. A load that wait gives up on stays running; a later rescan
// takes its outcome.
func (e *Engine) rescan(s *sourceState, wait loadWait) (changed bool, retired []*Tool, events []Event) {
	s.scans++
	listed := time.Now() // a file the listing misses was away at a moment after this
	var entries []fs.DirEntry
	var err error
	if s.src.FS == nil {
		err = errors.New("the source has no files: set its FS or Dir")
	} else {
		entries, err = fs.ReadDir(s.src.FS, ".")
	}
	if (err == nil) != (s.unreadable == nil) {
		changed = true
	}
	s.unreadable = err
	if err != nil {
		// The directory is gone or unreadable: its tools go with it.
		for name, f := range s.files {
			if f.item != nil {
				retired = append(retired, f.item)
			}
			delete(s.files, name)
			changed = true
		}
		for name, r := range s.running {
			r.abandon()
			delete(s.running, name)
		}
		return changed, retired, nil
	}
	// Read and hash every tool file, then load the new and changed ones side by side
	// (compiling and running a file is independent of the others), then record the
	// outcomes in directory order, so that events and diagnostics come in that order.
	var work []*loadRun
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
				var files map[string][sha256.Size]byte
				sum, files = treeHash(s.src.FS, dir)
				shared[dir] = sum
				events = append(events, s.sharedChanges(dir, files)...)
			}
			h.Write(sum[:])
		}
		var hash [sha256.Size]byte
		h.Sum(hash[:0])
		r := s.running[name]
		if r != nil && r.hash == hash {
			work = append(work, r) // still loading, or done since the last rescan
			continue
		}
		if r != nil { // a version no longer on disk
			r.abandon()
			delete(s.running, name)
		}
		if f := s.files[name]; f != nil && f.hash == hash {
			continue
		}
		work = append(work, e.startLoad(l, s, name, data, hash))
	}
	for name, r := range s.running {
		if !seen[name] {
			r.abandon()
			delete(s.running, name)
		}
	}
	read := time.Now() // a file the reading missed had been away by this
	awaitLoads(work, wait.grace)
	// A file still loading may be a missing file under its new name.
	loading := false
	for _, r := range work {
		if !r.finished() {
			loading = true
			if s.running[r.name] != r {
				if s.running == nil {
					s.running = map[string]*loadRun{}
				}
				s.running[r.name] = r
				go func() { <-r.done; wait.late(s.src.Name) }()
			}
			continue
		}
		delete(s.running, r.name)
		f := s.files[r.name]
		if f == nil {
			f = &toolFile{}
			s.files[r.name] = f
		}
		f.hash, f.diags, f.readAt, changed = r.hash, r.diags, r.scan, true
		if r.item == nil {
			events = append(events, Event{Kind: LoadFailed, File: path.Join(s.src.Name, r.name), Diagnostics: r.diags})
			if wait.recheck != nil {
				// It may have been read halfway through a save: look again soon,
				// even while the directory keeps changing.
				wait.recheck(s.src.Name)
			}
			continue
		}
		if f.item != nil {
			retired = append(retired, f.item)
		}
		f.item = r.item
	}
	dropped := dropMissing(s, seen, loading, wait, listed, read)
	for _, f := range dropped {
		if f.item != nil {
			retired = append(retired, f.item)
		}
	}
	return changed || len(dropped) > 0, retired, events
}

// dropMissing drops the files of s that the rescan did not see and returns them;
// the rescan began to list the directory at listed and was done reading it at read.
// A file may be missing only for a moment while it is saved: deleted and written
// again, renamed away and back, or renamed and caught halfway through a save under
// its new name. So under a watch (wait.confirm set) a missing file that has a tool
// keeps it serving, unless another file of the source on disk now serves the tool's
// name (the file was renamed), while
//
//   - a load of the rescan is still running (the file may be that one), or
//   - a file on disk that has never loaded, and whose version was read no earlier
//     than the rescan that first missed this one, fails: it may be this file under
//     its new name, caught halfway through a save (however long the save takes), or
//   - it has been gone for less than wait.confirm before listed (see lastShown), as
//     far as the file events caught up with (wait.catchUp) tell.
//
// It is dropped once none of these holds. Load and Refresh drop a missing file at
// once.
func dropMissing(s *sourceState, seen map[string]bool, loading bool, wait loadWait, listed, read time.Time) []*toolFile {
	served := map[string]bool{} // items (itemKey) served by files on disk
	for name, f := range s.files {
		if seen[name] {
			f.missingSince, f.missedAt = time.Time{}, 0
			if f.item != nil {
				served[itemKey(f.item)] = true
			}
		}
	}
	caughtUp, upToDate := false, false
	var dropped []*toolFile
	for name, f := range s.files {
		if seen[name] {
			continue
		}
		if f.item != nil && wait.confirm > 0 && !served[itemKey(f.item)] {
			if f.missingSince.IsZero() {
				f.missingSince, f.missedAt = read, s.scans
			}
			if loading || s.mayBeRenamed(f, seen) {
				// A change of the files concerned starts a rescan: no need to look.
				continue
			}
			gone := listed.Sub(s.lastShown(name, seen, wait)) >= wait.confirm
			if gone && wait.catchUp != nil {
				// Gone by the events read so far: read those still on their way.
				if !caughtUp {
					caughtUp, upToDate = true, wait.catchUp()
				}
				gone = upToDate && listed.Sub(s.lastShown(name, seen, wait)) >= wait.confirm
			}
			if !gone {
				wait.recheck(s.src.Name)
				continue
			}
		}
		dropped = append(dropped, f)
		delete(s.files, name)
	}
	return dropped
}

// mayBeRenamed reports whether a file of s on disk (seen) may be the missing file f
// under a new name, caught halfway through a save: one that has never loaded and
// whose version was first read no earlier than the rescan that first missed f (a
// version read before was on disk beside f).
func (s *sourceState) mayBeRenamed(f *toolFile, seen map[string]bool) bool {
	for name, g := range s.files {
		if seen[name] && g.item == nil && g.readAt >= f.missedAt {
			return true
		}
	}
	return false
}

// lastShown is when the missing file name of s was last known to be on disk, or may
// have been under a new name: when the rescan that first missed it was done
// reading, or, if later, when a file event showed it or a tool file that serves no
// tool from disk (one that may be it renamed, gone again before a rescan saw it).
func (s *sourceState) lastShown(name string, seen map[string]bool, wait loadWait) time.Time {
	at := s.files[name].missingSince
	if wait.shown == nil {
		return at
	}
	for file, t := range wait.shown(s.src.Name) {
		if f := s.files[file]; seen[file] && f != nil && f.item != nil {
			continue // another tool's file
		}
		if t.After(at) {
			at = t
		}
	}
	return at
}

// startLoad loads one version of a tool file on a goroutine of its own, in one of
// the engine's load slots.
func (e *Engine) startLoad(l Loader, s *sourceState, name string, data []byte, hash [sha256.Size]byte) *loadRun {
	r := &loadRun{name: name, hash: hash, scan: s.scans, done: make(chan struct{})}
	file, env := path.Join(s.src.Name, name), LoadEnv{FS: s.src.FS, Env: e.opts.Env}
	go func() {
		defer close(r.done)
		e.loadSlots <- struct{}{}
		defer func() { <-e.loadSlots }()
		r.item, r.diags = e.loadFile(l, file, data, env)
	}()
	return r
}

// awaitLoads waits for the loads to finish, or for grace when it is not zero.
func awaitLoads(runs []*loadRun, grace time.Duration) {
	var expired <-chan time.Time
	if grace > 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		expired = t.C
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-expired:
			return
		}
	}
}

// treeHash hashes the names and contents of the files under dir of fsys (nothing,
// when dir is absent or unreadable, hashes alike), and returns each file's hash by
// its path.
func treeHash(fsys fs.FS, dir string) ([sha256.Size]byte, map[string][sha256.Size]byte) {
	h := sha256.New()
	files := map[string][sha256.Size]byte{}
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
		files[p] = sha256.Sum256(data)
		return nil
	})
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum, files
}

// sharedChanges records the files of the shared directory dir as read now, and
// returns an event for each that appeared, changed or went since the last read: new
// code reaching every tool that may require it is announced by its own name.
func (s *sourceState) sharedChanges(dir string, files map[string][sha256.Size]byte) []Event {
	if s.shared == nil {
		s.shared = map[string][sha256.Size]byte{}
	}
	var events []Event
	for _, p := range slices.Sorted(maps.Keys(files)) {
		switch old, ok := s.shared[p]; {
		case !ok:
			events = append(events, Event{Kind: ModuleAdded, File: path.Join(s.src.Name, p)})
		case old != files[p]:
			events = append(events, Event{Kind: ModuleUpdated, File: path.Join(s.src.Name, p)})
		}
		s.shared[p] = files[p]
	}
	for _, p := range slices.Sorted(maps.Keys(s.shared)) {
		if _, ok := files[p]; !ok && (p == dir || strings.HasPrefix(p, dir+"/")) {
			events = append(events, Event{Kind: ModuleRemoved, File: path.Join(s.src.Name, p)})
			delete(s.shared, p)
		}
	}
	return events
}

// assemble builds the snapshot from the Go-native tools and the sources' last good
// items (tools, hook files, features), resolving names within each kind: within a
// source a name declared twice is served by neither file; across sources the later
// source wins, with a notice.
func (e *Engine) assemble() (*Registry, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	var fileHooks []hooks.Hook
	byKey := map[string]*Tool{} // itemKey -> the item served
	var order []string
	for _, t := range e.goTools {
		byKey[itemKey(t)] = t
		order = append(order, itemKey(t))
	}
	for _, s := range e.sources {
		if s.unreadable != nil {
			diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: s.src.Name}, Severity: diag.SeverityError, Message: "cannot read tool directory: " + s.unreadable.Error()})
		}
		names := make([]string, 0, len(s.files))
		for name := range s.files {
			names = append(names, name)
		}
		sort.Strings(names)
		declared := map[string][]string{} // itemKey -> files of this source
		for _, name := range names {
			f := s.files[name]
			diags = append(diags, f.diags...)
			if t := f.item; isHookFile(t) {
				fileHooks = append(fileHooks, fileHook{t})
				continue
			}
			if f.item != nil {
				k := itemKey(f.item)
				declared[k] = append(declared[k], f.item.Source())
			}
		}
		for _, name := range names {
			it := s.files[name].item
			if it == nil || isHookFile(it) {
				continue
			}
			k := itemKey(it)
			kind, id := identify(it)
			if files := declared[k]; len(files) > 1 {
				if files[0] != it.Source() {
					diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: it.Source()}, Severity: diag.SeverityError,
						Message: fmt.Sprintf("%s is also declared by %s; neither is loaded", describe(it), files[0])})
				}
				continue
			}
			if prev, ok := byKey[k]; ok {
				diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: it.Source()}, Severity: diag.SeverityNotice,
					Message: fmt.Sprintf("%s %s overrides the one from %s", kind, id, prev.Source())})
			} else {
				order = append(order, k)
			}
			byKey[k] = it
		}
	}
	var tools []*Tool
	var features []Feature
	for _, k := range order {
		if it := byKey[k]; it.def.Feature != nil {
			features = append(features, it.def.Feature)
		} else {
			tools = append(tools, it)
		}
	}
	reg, d := newRegistry(tools, e.isEnabled)
	reg.withFeatures(features)
	reg.hooks = fileHooks
	diags = append(diags, d...)
	return reg, append(diags, e.policy.Load().rules.UnknownTools(knownNames(tools, e.opts.UnloadedTools))...)
}

// knownNames are the names permission rules may name: of each tool (the whole set,
// hidden tools included), its name, its aliases and its rule family; of each tool
// the host offers without loading it, its name and family.
func knownNames(tools []*Tool, unloaded []string) []string {
	var names []string
	for _, t := range tools {
		names = append(append(append(names, t.Name()), t.Aliases()...), rules.Family(t.Name()))
	}
	for _, n := range unloaded {
		names = append(names, n, rules.Family(n))
	}
	return names
}

// diffEvents lists what changed between two snapshots, by tool name, feature key and
// hook file.
func diffEvents(old, cur *Registry) []Event {
	var events []Event
	for _, t := range cur.Tools() {
		prev, ok := old.byName[t.Name()]
		switch {
		case !ok || prev.Name() != t.Name():
			events = append(events, Event{Kind: ToolAdded, Tool: t.Name(), File: t.Source(), Diagnostics: t.diags})
		case prev != t:
			events = append(events, Event{Kind: ToolUpdated, Tool: t.Name(), File: t.Source(), Diagnostics: t.diags})
		}
	}
	for _, t := range old.Tools() {
		if now, ok := cur.byName[t.Name()]; !ok || now.Name() != t.Name() {
			events = append(events, Event{Kind: ToolRemoved, Tool: t.Name(), File: t.Source()})
		}
	}
	for _, kind := range featureKinds(old, cur) {
		events = append(events, diffFeatures(old.Features(kind), cur.Features(kind), kind)...)
	}
	return append(events, diffHooks(old.hooks, cur.hooks)...)
}

// diffHooks lists the hook files added, changed and removed between two snapshots'
// hooks, by file.
func diffHooks(old, cur []hooks.Hook) []Event {
	byFile := func(list []hooks.Hook) map[string]hooks.Hook {
		m := make(map[string]hooks.Hook, len(list))
		for _, h := range list {
			m[h.Name()] = h
		}
		return m
	}
	was, is := byFile(old), byFile(cur)
	var events []Event
	for _, h := range cur {
		ev := Event{Name: strings.TrimSpace(string(h.Event()) + " " + h.Matcher()), File: h.Name()}
		switch prev, ok := was[h.Name()]; {
		case !ok:
			ev.Kind = HookAdded
		case prev != h:
			ev.Kind = HookUpdated
		default:
			continue
		}
		events = append(events, ev)
	}
	for _, h := range old {
		if _, ok := is[h.Name()]; !ok {
			events = append(events, Event{Kind: HookRemoved, Name: strings.TrimSpace(string(h.Event()) + " " + h.Matcher()), File: h.Name()})
		}
	}
	return events
}

// featureKinds are the kinds of feature either snapshot serves, in order.
func featureKinds(old, cur *Registry) []string {
	var kinds []string
	for _, r := range []*Registry{old, cur} {
		for kind := range r.features {
			if !slices.Contains(kinds, kind) {
				kinds = append(kinds, kind)
			}
		}
	}
	slices.Sort(kinds)
	return kinds
}

// diffFeatures lists what changed between two snapshots' features of one kind,
// each list in key order.
func diffFeatures(old, cur []Feature, kind string) []Event {
	byKey := func(fs []Feature) map[string]Feature {
		m := make(map[string]Feature, len(fs))
		for _, f := range fs {
			m[f.Key()] = f
		}
		return m
	}
	was, is := byKey(old), byKey(cur)
	var events []Event
	for _, f := range cur {
		switch prev, ok := was[f.Key()]; {
		case !ok:
			events = append(events, Event{Kind: EventKind(kind + " added"), Name: f.Key(), File: f.Source()})
		case prev != f:
			events = append(events, Event{Kind: EventKind(kind + " updated"), Name: f.Key(), File: f.Source()})
		}
	}
	for _, f := range old {
		if _, ok := is[f.Key()]; !ok {
			events = append(events, Event{Kind: EventKind(kind + " removed"), Name: f.Key(), File: f.Source()})
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
