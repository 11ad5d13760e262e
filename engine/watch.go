package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	// Debounce is how long a directory must be quiet after a change before it is read
	// again: editors write a file in several steps. Default 50 ms.
	Debounce time.Duration
	// MaxWait bounds how long a change waits for that quiet: a directory changed
	// without pause (a file saved every few milliseconds, a generator rewriting it)
	// is read again at least this often. Default 4 times Debounce; a value below
	// Debounce is raised to it.
	MaxWait time.Duration
	// PollInterval is how often every source is read again when file events cannot be
	// had (no inotify watches left, an event queue overflow, Poll set). Default 1 s.
	PollInterval time.Duration
	// Poll reads the sources every PollInterval instead of waiting for file events:
	// for file systems that send none (NFS, SMB, FUSE).
	Poll bool
}

// Default watch settings.
const (
	defaultDebounce     = 50 * time.Millisecond
	defaultMaxWaits     = 4 // MaxWait, in debounces
	defaultPollInterval = time.Second
)

// Watch keeps the tools of the engine's sources on disk (those with a Dir) current
// with their files until ctx ends: every save takes effect as soon as the directory is
// quiet for the debounce time, and a directory that is never quiet (a file saved
// every few milliseconds) is read again at least every MaxWait. It watches
// directories, not files, so it follows editors that save by writing a new file and
// renaming it over the old one, vim's backup dance, JetBrains' safe write and
// Kubernetes' ..data symlink swaps; editor temporaries are ignored; unchanged files
// are not reloaded.
//
// A tool is not dropped while its file is away for a moment (deleted and written
// again, renamed away and back): a file found missing keeps its tool serving until it
// has been gone for the debounce (50 ms at the least), missed by the readings of the
// directory and shown by no file event (the events still on their way are read
// first), unless another file of the directory now serves the tool's name (the file
// was renamed). A tool file that serves no tool counts as the missing file, which it
// may be under a new name: an event showing it keeps the tool as one showing the
// tool's own file does, and while such a file, first read since the tool's file went
// missing, fails to load, the tool keeps serving (it may be the file renamed and read
// halfway through a save, however long the save takes) until that file loads or goes.
// A file away for the debounce or longer is gone, whatever the reason: a program that
// deletes a file and writes it again, but is held up in between for that long (a
// loaded machine holds processes up for tens of milliseconds), makes the tool go for
// a while, its calls failing as calls of an unknown tool, until a reading of the
// directory finds the file back.
//
// A file that fails to load keeps its last good version serving (a LoadFailed event
// says why), and is read again a debounce later, however busy the directory, in case
// it was read halfway through a save; fixing it brings the new version. A file whose
// main chunk is slow (or never returns, until the limits' InitTimeout) holds up no
// other file's change: it comes in, or fails, on its own once it is done. Calls in
// flight finish on the version they started with. A source directory that does not
// exist yet is picked up when it appears. When file events cannot be had, Watch says
// so with a WatchStatus event and polls.
//
// Changes reach subscribers (Subscribe) as events. Watch returns nil when ctx ends, and
// an error only when the engine has no directory to watch.
func (e *Engine) Watch(ctx context.Context, opts WatchOptions) error {
	opts = opts.withDefaults()
	// A file missing for less than the debounce is taken to be in the middle of a
	// save; the floor covers editors' delete-and-write under a debounce set near zero.
	confirm := max(opts.Debounce, defaultDebounce)
	w := &watch{e: e, opts: opts, dirs: map[string][]string{}, srcDir: map[string]string{}, pending: map[string]pendingRead{},
		shown: map[string]map[string]time.Time{}, within: map[string]string{}, late: make(chan string)}
	w.wait = loadWait{grace: reloadGrace, late: func(source string) {
		select {
		case w.late <- source:
		case <-ctx.Done():
		}
	}, confirm: confirm, recheck: func(source string) {
		w.deadline(time.Now().Add(confirm), source)
	}, shown: func(source string) map[string]time.Time {
		return w.shown[w.srcDir[source]]
	}}
	for _, l := range e.opts.Loaders {
		if sl, ok := l.(SharedLoader); ok {
			w.shared = append(w.shared, filepath.FromSlash(sl.SharedDir()))
		}
	}
	e.loadMu.Lock()
	for _, s := range e.sources {
		if s.src.Dir == "" {
			continue
		}
		dir, err := filepath.Abs(s.src.Dir)
		if err != nil {
			dir = filepath.Clean(s.src.Dir)
		}
		w.dirs[dir] = append(w.dirs[dir], s.src.Name)
		w.srcDir[s.src.Name] = dir
	}
	e.loadMu.Unlock()
	if len(w.dirs) == 0 {
		return errors.New("watch: no source is a directory on disk")
	}
	return w.run(ctx)
}

// withDefaults fills in the settings left zero.
func (o WatchOptions) withDefaults() WatchOptions {
	if o.Debounce <= 0 {
		o.Debounce = defaultDebounce
	}
	if o.MaxWait <= 0 {
		o.MaxWait = defaultMaxWaits * o.Debounce
	}
	o.MaxWait = max(o.MaxWait, o.Debounce)
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPollInterval
	}
	return o
}

// watch is the state of one Watch.
type watch struct {
	e    *Engine
	opts WatchOptions
	// dirs maps each watched directory to the names of its sources; srcDir maps a
	// source's name to its directory.
	dirs   map[string][]string
	srcDir map[string]string
	// pending holds the sources, by name, that are due to be read again.
	pending map[string]pendingRead
	// shown holds, by source directory and then file name, when a file event last
	// showed a tool file on disk (see sight), for the events of the last
	// wait.confirm: a file missing at a rescan but shown since is not gone.
	shown map[string]map[string]time.Time
	fsw   *fsnotify.Watcher
	// backlog and errs are the events and errors catchUp read, for refresh to
	// handle.
	backlog []fsnotify.Event
	errs    []error
	// missing are source directories that do not exist yet; their nearest existing
	// ancestor is watched instead.
	missing map[string]bool
	// shared are the shared directories of the loaders (lib), relative to a source
	// directory; within maps each watched directory inside one of them, at any depth,
	// to its source directory.
	shared []string
	within map[string]string
	// wait is how rescans wait for their loads; late receives the name of a source
	// with a load that finished after its rescan stopped waiting.
	wait loadWait
	late chan string
}

// A pendingRead is a source waiting to be read again: due when it is to be read,
// which changes push back, but never past limit (MaxWait after its first change
// not yet read, or sooner for a rescan that must confirm a file gone).
type pendingRead struct{ due, limit time.Time }

// refresh reads the sources with the given names again (all when none is given),
// waiting for slow files no longer than reloadGrace.
func (w *watch) refresh(names ...string) {
	w.e.reload(w.wait, names...)
	// What catchUp read during the rescan, handled now that the engine is unlocked
	// (handling may publish).
	backlog, errs := w.backlog, w.errs
	w.backlog, w.errs = nil, nil
	for _, ev := range backlog {
		w.handle(ev)
	}
	for _, err := range errs {
		w.handleError(err)
	}
}

// catchUpLimit is how long catchUp waits for its marker's event before it gives up
// (and a missing file keeps its tool until a later rescan).
const catchUpLimit = time.Second

// catchUp reads the file events of every change made before it was called, which
// may still be on their way when a rescan finds a file missing: it records what they
// show (sight) and keeps them for refresh to handle. It makes a marker file in a
// temporary directory, watched for the while with the source directories, and reads
// events until the marker's: the events of all the watched directories come in one
// queue, in the order of the changes. It reports false when it cannot be sure:
// events were lost (the queue overflowed), or the marker's event did not come within
// catchUpLimit. When it cannot make a marker (no temporary directory, no inotify
// watch left), it reports true having read nothing: the rescan goes by the events
// read so far.
func (w *watch) catchUp() bool {
	marks, err := os.MkdirTemp("", "luatool-watch-")
	if err != nil {
		return true
	}
	defer os.RemoveAll(marks)
	if err := w.fsw.Add(marks); err != nil {
		return true
	}
	defer w.fsw.Remove(marks)
	marker := filepath.Join(marks, "marker")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return true
	}
	timeout := time.NewTimer(catchUpLimit)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return false
			}
			if ev.Name == marker {
				return true
			}
			w.sight(ev)
			w.backlog = append(w.backlog, ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return false
			}
			w.errs = append(w.errs, err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				return false
			}
		case <-timeout.C:
			return false
		}
	}
}

func (w *watch) run(ctx context.Context) error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil || w.opts.Poll {
		reason := "polling was asked for"
		if err != nil {
			reason = "file events are not available: " + err.Error()
		}
		return w.poll(ctx, reason)
	}
	defer fsw.Close()
	w.fsw = fsw
	w.missing = map[string]bool{}
	for dir := range w.dirs {
		if err := w.add(dir); err != nil {
			return w.poll(ctx, "cannot watch "+dir+": "+err.Error())
		}
		for _, sub := range w.shared {
			w.addTree(filepath.Join(dir, sub), dir)
		}
	}
	w.wait.catchUp = w.catchUp
	// A directory may have changed between the last load and the first watch.
	w.refresh()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		// Every case may have made a source due: a change, a lost event, a rescan
		// that keeps a missing file until a later one confirms it gone.
		w.arm(timer)
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fsw.Events:
			if !ok {
				return nil
			}
			w.handle(ev)
		case err, ok := <-fsw.Errors:
			if !ok {
				return nil
			}
			w.handleError(err)
		case <-timer.C:
			w.flush()
		case source := <-w.late:
			w.refresh(source)
		}
	}
}

// handleError reports an error of the file events; when events were lost, every
// directory is read again.
func (w *watch) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.status("events were lost (queue overflow); reading every directory again")
		for dir := range w.dirs {
			w.schedule(dir, 0)
		}
		return
	}
	w.status("watch error: " + err.Error())
}

// add watches dir, or, when it does not exist yet, its nearest existing ancestor.
func (w *watch) add(dir string) error {
	err := w.fsw.Add(dir)
	if err == nil {
		delete(w.missing, dir)
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	w.missing[dir] = true
	for parent := filepath.Dir(dir); ; parent = filepath.Dir(parent) {
		if err := w.fsw.Add(parent); err == nil || parent == filepath.Dir(parent) {
			return nil
		}
	}
}

// addTree watches dir and every directory below it, as part of source directory
// src: the files of a shared directory are part of every tool file's version. A tree
// that does not exist is not watched; its creation in src is seen by handle.
func (w *watch) addTree(dir, src string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if w.fsw.Add(p) == nil {
			w.within[p] = src
		}
		return nil
	})
}

// handle schedules the sources an event concerns.
func (w *watch) handle(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	if src, ok := w.within[filepath.Dir(ev.Name)]; ok {
		// A file of a shared directory changed, or a directory appeared in one.
		if ev.Has(fsnotify.Create) {
			w.addTree(ev.Name, src)
		}
		w.schedule(src, w.opts.Debounce)
		return
	}
	if _, ok := w.dirs[filepath.Dir(ev.Name)]; ok && ev.Has(fsnotify.Create) {
		for _, sub := range w.shared {
			if filepath.Base(ev.Name) == sub {
				w.addTree(ev.Name, filepath.Dir(ev.Name))
			}
		}
	}
	if _, ok := w.dirs[filepath.Dir(ev.Name)]; ok && !editorTemporary(filepath.Base(ev.Name)) {
		w.sight(ev)
		w.schedule(filepath.Dir(ev.Name), w.opts.Debounce)
	}
	if _, ok := w.dirs[ev.Name]; ok {
		// The directory itself was created, removed or renamed.
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.add(ev.Name)
		}
		w.schedule(ev.Name, w.opts.Debounce)
	}
	// A missing directory may have appeared (or one of its parents).
	for dir := range w.missing {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			if err := w.add(dir); err == nil {
				w.status("watching " + dir + ", which now exists")
				w.schedule(dir, w.opts.Debounce)
			}
		} else if strings.HasPrefix(dir, ev.Name+string(filepath.Separator)) && ev.Has(fsnotify.Create) {
			w.add(dir)
		}
	}
}

// sight records in shown that ev showed a tool file of a source directory on disk:
// created or written, or there until it was removed or renamed away.
func (w *watch) sight(ev fsnotify.Event) {
	dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	if _, ok := w.dirs[dir]; !ok || ev.Op == fsnotify.Chmod || editorTemporary(name) || w.e.loaderFor(name) == nil {
		return
	}
	if w.shown[dir] == nil {
		w.shown[dir] = map[string]time.Time{}
	}
	w.shown[dir][name] = time.Now()
}

// schedule makes the sources of dir due after delay, pushing back a due time already
// set: a directory is read once it has been quiet for the debounce time, but no
// later than MaxWait after the first change it has not read.
func (w *watch) schedule(dir string, delay time.Duration) {
	w.scheduleAt(time.Now(), delay, w.dirs[dir]...)
}

// scheduleAt makes the sources named due at now + delay, but no later than MaxWait
// after their first change not yet read.
func (w *watch) scheduleAt(now time.Time, delay time.Duration, names ...string) {
	for _, name := range names {
		p, ok := w.pending[name]
		if !ok {
			p.limit = now.Add(w.opts.MaxWait)
		}
		p.due = now.Add(delay)
		if p.limit.Before(p.due) {
			p.due = p.limit
		}
		w.pending[name] = p
	}
}

// deadline makes the source named due at the latest at t, whatever changes come
// before.
func (w *watch) deadline(t time.Time, name string) {
	p, ok := w.pending[name]
	if !ok || t.Before(p.limit) {
		p.limit = t
	}
	if !ok || t.Before(p.due) {
		p.due = t
	}
	w.pending[name] = p
}

// arm sets timer to fire when the next source is due.
func (w *watch) arm(timer *time.Timer) {
	if len(w.pending) == 0 {
		return
	}
	var next time.Time
	for _, p := range w.pending {
		if next.IsZero() || p.due.Before(next) {
			next = p.due
		}
	}
	timer.Reset(max(time.Until(next), 0))
}

// flush reads again the sources that are due.
func (w *watch) flush() {
	now := time.Now()
	for _, files := range w.shown {
		for name, at := range files {
			// Older sightings cannot keep a missing file: it has been gone since.
			if now.Sub(at) >= w.wait.confirm {
				delete(files, name)
			}
		}
	}
	var due []string
	for name, p := range w.pending {
		if !p.due.After(now) {
			due = append(due, name)
			delete(w.pending, name)
		}
	}
	if len(due) > 0 {
		sort.Strings(due)
		w.refresh(due...)
	}
}

// poll reads every source every PollInterval until ctx ends.
func (w *watch) poll(ctx context.Context, reason string) error {
	w.status("watching by reading every directory every " + w.opts.PollInterval.String() + ": " + reason)
	ticker := time.NewTicker(w.opts.PollInterval)
	defer ticker.Stop()
	w.refresh()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			w.refresh()
		case source := <-w.late:
			w.refresh(source)
		}
	}
}

func (w *watch) status(msg string) {
	w.e.publish(Event{Kind: WatchStatus, Message: msg})
}

// editorTemporary reports whether a file name is one editors write while saving: vim's
// swap files and 4913 probe, backups ending in ~, Emacs lock files, JetBrains' safe
// write files. They never hold a tool; reading the directory for them is wasted work.
func editorTemporary(name string) bool {
	switch {
	case name == "4913",
		strings.HasSuffix(name, "~"),
		strings.HasPrefix(name, ".#"),
		strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swx"), strings.HasSuffix(name, ".swo"),
		strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"):
		return true
	}
	return false
}
