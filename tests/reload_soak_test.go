package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/internal/extdata"
)

// The reload soak: a tool file rewritten every 10-25 ms, with good and broken
// versions, renames and delete-recreate, while 8 MCP clients call the tool over
// streamable HTTP. It runs for 5 s, 30 s at full length (LUATOOL_LONG_TESTS=1, as
// in CI), and LUATOOL_SOAK=5m runs it for that long; in any case until every kind of
// change has happened.

const (
	soakDebounce = 50 * time.Millisecond
	soakMaxWait  = 200 * time.Millisecond
	soakClients  = 8
	// soakGuard bounds how long past its length the soak may go on waiting for a
	// kind of change it has not seen: a bound for a broken test, not a measure.
	soakGuard = 2 * time.Minute
)

// soakGood is version n of the tool; its call answers "v<n>".
func soakGood(n int) string {
	return fmt.Sprintf(`local V = %d
return {
  name = "Soak",
  prompt = "Version %d.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function() return "v" .. V end,
}
`, n, n)
}

// soakBroken are versions that must never serve: each would answer "broken <n>" if
// it did.
var soakBroken = []func(n int) string{
	// A syntax error.
	func(n int) string {
		return fmt.Sprintf("return {\n  name = \"Soak\",\n  call = function() return \"broken %d\" end end,\n}\n", n)
	},
	// A runtime error in the main chunk, after the table is built.
	func(n int) string {
		return fmt.Sprintf(`local t = { name = "Soak", prompt = "Broken %d.", inputSchema = { type = "object" },
  isReadOnly = true, call = function() return "broken %d" end }
error("version %d fails on purpose")
return t
`, n, n, n)
	},
	// A table that breaks the contract (inputSchema is not a schema).
	func(n int) string {
		return fmt.Sprintf(`return { name = "Soak", prompt = "Broken %d.", inputSchema = %d,
  isReadOnly = true, call = function() return "broken %d" end }
`, n, n, n)
	},
	// A main chunk that returns no table.
	func(n int) string { return fmt.Sprintf("return \"broken %d\"\n", n) },
}

// soakWriter changes the tool file and records what it wrote and when.
type soakWriter struct {
	t     *testing.T
	dir   string
	start time.Time
	rng   *rand.Rand
	file  string // the file's current name
	next  int    // the next version number
	last  int    // the last good version written
	// served reports the version the engine serves now.
	served func() int
	// brokenLeft counts the broken versions still to write in a row.
	brokenLeft int

	goods   []written // good versions, in order
	deletes []window  // from a delete to the end of the recreate
	broken  int       // broken versions written
	renames int
}

// A written good version and when it was on disk, in ns since the start.
type written struct {
	n  int
	at int64
}

// A window is a span in ns since the start.
type window struct{ from, to int64 }

func (w *soakWriter) now() int64 { return int64(time.Since(w.start)) }

// writeGood writes the next good version, in place or by renaming a temporary file
// over the tool file (as VS Code saves).
func (w *soakWriter) writeGood(atomicSave bool) {
	n := w.next
	w.next++
	path := filepath.Join(w.dir, w.file)
	if atomicSave {
		writeFile(w.t, path+".tmp", soakGood(n))
		if err := os.Rename(path+".tmp", path); err != nil {
			w.t.Fatal(err)
		}
	} else {
		writeFile(w.t, path, soakGood(n))
	}
	w.last = n
	w.goods = append(w.goods, written{n, w.now()})
}

// step makes one change. Broken versions come in runs of up to 15 (a file left
// broken for a while, as by someone typing), so that reloads read them. A run
// starts only once the engine serves the last good version: the server can only
// serve what a reload read, and a broken version written over a good one no reload
// has read yet would hide it, so that staleness would measure the writer's luck
// rather than the watcher. A file is renamed whether it is good or broken: under
// its new name, a broken file that never loaded may be the old one halfway through
// a save, and the old name's tool keeps serving until the new name loads.
func (w *soakWriter) step() {
	path := filepath.Join(w.dir, w.file)
	if w.brokenLeft == 0 && w.rng.IntN(3) == 0 && w.served() == w.last {
		w.brokenLeft = 1 + w.rng.IntN(15)
	}
	if w.brokenLeft > 0 {
		w.brokenLeft--
		writeFile(w.t, path, soakBroken[w.rng.IntN(len(soakBroken))](w.next))
		w.next++
		w.broken++
		return
	}
	switch r := w.rng.IntN(100); {
	case r < 10:
		to := map[string]string{"soak_a.lua": "soak_b.lua", "soak_b.lua": "soak_a.lua"}[w.file]
		if err := os.Rename(path, filepath.Join(w.dir, to)); err != nil {
			w.t.Fatal(err)
		}
		w.file = to
		w.renames++
	case r < 20:
		from := w.now()
		if err := os.Remove(path); err != nil {
			w.t.Fatal(err)
		}
		time.Sleep(time.Duration(w.rng.IntN(3)) * time.Millisecond)
		w.writeGood(false)
		w.deletes = append(w.deletes, window{from, w.now()})
	default:
		w.writeGood(r%3 == 0)
	}
}

// A soakCall is one call of a client: when it started and ended (ns since the
// start), the version it answered with (-1: none), or its failure, or an answer
// that names no version.
type soakCall struct {
	start, end int64
	version    int
	failure    string
	answer     string
}

// TestReloadSoak checks what must hold however the writer, the watcher and the
// clients are scheduled: no client is ever answered by a broken version; every client
// comes to see the last version; a call fails only as a call of an unknown tool, and
// only if the tool was dropped, which only a delete that lasted the debounce or
// longer (the writer held up between deleting and writing, as a loaded machine holds
// it up) may cause. How stale the answers were is reported, not judged: that is
// timing (TestReloadNeverQuiet checks that a watcher never waits for a quiet that
// never comes).
func TestReloadSoak(t *testing.T) {
	length := extdata.Long(t, 5*time.Second, 30*time.Second)
	if s := os.Getenv("LUATOOL_SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("LUATOOL_SOAK=%s: %v", s, err)
		}
		length = d
	}
	dir := t.TempDir()
	eng := newLuaEngine(t)
	writeFile(t, filepath.Join(dir, "soak_a.lua"), soakGood(0))
	var loadFailed, updated, removed atomic.Int64
	eng.Subscribe(func(ev engine.Event) {
		switch ev.Kind {
		case engine.LoadFailed:
			loadFailed.Add(1)
		case engine.ToolUpdated:
			updated.Add(1)
		case engine.ToolRemoved:
			removed.Add(1)
		}
	})
	if diags := eng.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	srv := mcpserver.New(eng, mcpserver.Options{Name: "soak"})
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		if err := eng.Watch(ctx, engine.WatchOptions{Debounce: soakDebounce, MaxWait: soakMaxWait}); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-watching })
	// The watcher's first look is over once it serves a version written after it
	// started.
	writeFile(t, filepath.Join(dir, "soak_a.lua"), soakGood(1))
	eventually(t, "the watcher's first reload", func() bool {
		r := eng.Call(ctx, engine.ToolUse{ID: "start", Name: "Soak", Input: []byte(`{}`)})
		return r.Block.Content.String() == "v1"
	})
	loadFailed.Store(0) // a read of the first write halfway through is not the soak's

	start := time.Now()
	var seen atomic.Int64 // the highest version a client was answered with
	stop := make(chan struct{})
	calls := make([][]soakCall, soakClients)
	var clients sync.WaitGroup
	for c := range soakClients {
		session, err := mcp.NewClient(&mcp.Implementation{Name: "soak-" + strconv.Itoa(c), Version: "v0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		clients.Add(1)
		go func() {
			defer clients.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				call := soakCall{start: int64(time.Since(start)), version: -1}
				cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
				res, err := session.CallTool(cctx, &mcp.CallToolParams{Name: "Soak", Arguments: map[string]any{}})
				ccancel()
				call.end = int64(time.Since(start))
				switch {
				case err != nil:
					call.failure = err.Error()
				case res.IsError:
					call.failure = "isError: " + text(res)
				default:
					got := text(res)
					n, err := strconv.Atoi(strings.TrimPrefix(got, "v"))
					if !strings.HasPrefix(got, "v") || err != nil {
						call.answer = got
						break
					}
					call.version = n
					for {
						old := seen.Load()
						if int64(n) <= old || seen.CompareAndSwap(old, int64(n)) {
							break
						}
					}
				}
				calls[c] = append(calls[c], call)
			}
		}()
	}

	w := &soakWriter{t: t, dir: dir, start: start, rng: rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))),
		file: "soak_a.lua", next: 2, last: 1, goods: []written{{1, 0}}}
	w.served = func() int {
		r := eng.Call(ctx, engine.ToolUse{ID: "writer", Name: "Soak", Input: []byte(`{}`)})
		n, err := strconv.Atoi(strings.TrimPrefix(r.Block.Content.String(), "v"))
		if err != nil {
			return -1
		}
		return n
	}
	exercised := func() bool {
		return w.broken > 0 && loadFailed.Load() > 0 && len(w.deletes) > 0 && w.renames > 0
	}
	for time.Since(start) < length || !exercised() {
		if time.Since(start) > length+soakGuard {
			t.Fatalf("after %v the soak had not made every kind of change: %d broken versions written, %d failed loads, %d deletes, %d renames",
				time.Since(start).Round(time.Second), w.broken, loadFailed.Load(), len(w.deletes), w.renames)
		}
		time.Sleep(time.Duration(10+w.rng.IntN(16)) * time.Millisecond)
		w.step()
	}
	// A last good version, which every client must come to see.
	w.writeGood(false)
	last := int64(w.next - 1)
	eventually(t, fmt.Sprintf("the last version (%d) served", last), func() bool { return seen.Load() >= last })
	close(stop)
	clients.Wait()

	good := map[int]bool{}
	for _, g := range w.goods {
		good[g.n] = true
	}
	// A file away for the debounce or longer is gone (see Engine.Watch): a writer held
	// up that long between deleting and writing it makes the tool go until a reload
	// finds the file back. Only such a delete may drop the tool (each at most once),
	// and calls may fail only as calls of an unknown tool, and only if it was dropped.
	var longDeletes int
	for _, d := range w.deletes {
		if time.Duration(d.to-d.from) >= soakDebounce {
			longDeletes++
		}
	}
	var total, failed, unknown, brokenResults int
	var stale []time.Duration
	versionsSeen := map[int]bool{}
	var examples []string
	example := func(format string, args ...any) {
		if len(examples) < 5 {
			examples = append(examples, fmt.Sprintf(format, args...))
		}
	}
	for _, cs := range calls {
		for _, c := range cs {
			total++
			if c.failure != "" {
				failed++
				if strings.Contains(c.failure, "No such tool available: Soak") {
					unknown++
				} else {
					example("at %v: %s", time.Duration(c.start), c.failure)
				}
				continue
			}
			if !good[c.version] {
				// "broken <n>", or the number of a version that does not load.
				brokenResults++
				example("at %v: version %d answered %q", time.Duration(c.start), c.version, c.answer)
				continue
			}
			versionsSeen[c.version] = true
			// Staleness: how long before the call a newer good version was on disk.
			i, _ := slices.BinarySearchFunc(w.goods, c.version+1, func(g written, n int) int { return g.n - n })
			s := time.Duration(0)
			if i < len(w.goods) && w.goods[i].at < c.start {
				s = time.Duration(c.start - w.goods[i].at)
			}
			stale = append(stale, s)
		}
	}
	slices.Sort(stale)
	pct := func(p float64) time.Duration {
		if len(stale) == 0 {
			return 0
		}
		return stale[min(len(stale)-1, int(float64(len(stale))*p))]
	}
	over := len(stale) - atMost(stale, soakMaxWait+100*time.Millisecond)
	t.Logf("%v: %d calls by %d clients, %d failed (%d as calls of an unknown tool); %d deletes, %d for the debounce or longer; the tool was dropped %d times; %d results from a broken version",
		time.Since(start).Round(time.Second), total, soakClients, failed, unknown, len(w.deletes), longDeletes, removed.Load(), brokenResults)
	t.Logf("staleness: p50 %v, p99 %v, p99.9 %v, worst %v; %d results staler than max-wait + 100 ms (%v)",
		pct(0.5), pct(0.99), pct(0.999), pct(1), over, soakMaxWait+100*time.Millisecond)
	t.Logf("versions: %d good written, %d seen by clients; %d broken written, %d failed loads reported; %d renames; %d updates",
		len(w.goods), len(versionsSeen), w.broken, loadFailed.Load(), w.renames, updated.Load())
	if n := removed.Load(); n > int64(longDeletes) {
		t.Errorf("the tool was dropped %d times, but only %d deletes lasted the debounce", n, longDeletes)
	}
	if failed > unknown || (failed > 0 && removed.Load() == 0) {
		t.Errorf("%d calls failed (%d as calls of an unknown tool) though the tool was dropped %d times, e.g. %v",
			failed, unknown, removed.Load(), examples)
	}
	if brokenResults > 0 {
		t.Errorf("%d results came from a broken version, e.g. %v", brokenResults, examples)
	}
}

// atMost returns how many of the sorted durations are at most d.
func atMost(sorted []time.Duration, d time.Duration) int {
	i, _ := slices.BinarySearchFunc(sorted, d, func(a, b time.Duration) int {
		if a <= b {
			return -1
		}
		return 1
	})
	return i
}
