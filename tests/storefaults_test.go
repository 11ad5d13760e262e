package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/session/redisstore/redistest"
)

// storeHangBound is an upper bound on a call while the store is down or hung that
// only a hang would break (the defaults answer in about 300 ms at worst; the loaded
// machine may take more). The real figures are logged.
const storeHangBound = 5 * time.Second

// unavailableText is what the model is told of a call that needed the store.
const unavailableText = "the session store is unavailable"

// authTokens returns the token file of testdata/mcp_auth.txtar, alice's and bob's,
// readable by its owner only, as serve wants it.
func authTokens(t *testing.T) string {
	dir := t.TempDir()
	unpack(t, "testdata/mcp_auth.txtar", dir)
	tokens := filepath.Join(dir, "tokens.txt")
	must(t, os.Chmod(tokens, 0o600))
	return tokens
}

// A `serve --http` whose Redis store goes down (killed) or hangs (SIGSTOP) stays
// fast and truthful: Glob, which keeps no state, is not slowed; an Edit after a Read
// made before the outage is told the store is unavailable, not that the file was
// never read; a Read during the outage is refused, since its record cannot be kept;
// the task list says the same. Once the store is back, calls succeed without
// restarting luatool. go-redis's own lines are JSON with --log-format json.
func TestStoreFaultsOverHTTP(t *testing.T) {
	srv := redistest.Start(t)
	s := newMCPDirs(t)
	alice := clientAs(t, startHTTP(t, s, "--tokens", authTokens(t), "--state", srv.URL, "--log-format", "json"), aliceToken, nil)
	notes := filepath.Join(s.root, "notes.txt")
	read := func() *mcp.CallToolResult { return callOn(t, alice, "Read", map[string]any{"file_path": notes}) }
	edit := func(from, to string) *mcp.CallToolResult {
		return callOn(t, alice, "Edit", map[string]any{"file_path": notes, "old_string": from, "new_string": to})
	}
	globs := func(what string) {
		t.Helper()
		var took []time.Duration
		for range 5 {
			start := time.Now()
			res := callOn(t, alice, "Glob", map[string]any{"pattern": "*.txt"})
			took = append(took, time.Since(start))
			if res.IsError || !strings.Contains(text(res), "notes.txt") {
				t.Errorf("Glob with the store %s: %q", what, text(res))
			}
		}
		slices.Sort(took)
		t.Logf("Glob with the store %s: median %v, max %v", what, took[2].Round(100*time.Microsecond), took[4].Round(100*time.Microsecond))
		if took[4] > storeHangBound {
			t.Errorf("Glob with the store %s took %v", what, took[4])
		}
	}
	unavailable := func(what string, res *mcp.CallToolResult) {
		t.Helper()
		if got := text(res); !res.IsError || !strings.Contains(got, unavailableText) || strings.Contains(got, "has not been read") {
			t.Errorf("%s: isError=%v %q, want the store unavailable", what, res.IsError, got)
		}
	}
	outage := func(what string) {
		t.Helper()
		globs(what)
		start := time.Now()
		unavailable("an Edit after a Read made before the store was "+what, edit("first line", "never"))
		t.Logf("Edit with the store %s: told so after %v", what, time.Since(start).Round(time.Millisecond))
		unavailable("a Read with the store "+what, read())
		unavailable("TaskList with the store "+what, callOn(t, alice, "TaskList", map[string]any{}))
	}

	globs("up")
	if res := read(); res.IsError {
		t.Fatalf("Read: %q\n%s", text(res), s.stderr)
	}

	srv.Pause()
	outage("hung")
	srv.Resume()
	start := time.Now()
	if res := edit("first line", "edited after the hang"); res.IsError {
		t.Errorf("the Edit once the store answers again: %q", text(res))
	}
	t.Logf("first Edit once the store answers again: ok after %v", time.Since(start).Round(time.Millisecond))

	srv.Stop()
	outage("down")
	srv.Restart() // empty: what the store kept is gone, and the file must be read again
	start = time.Now()
	if res := read(); res.IsError {
		t.Errorf("the Read once the store is back: %q", text(res))
	}
	t.Logf("first Read once the store is back: ok after %v", time.Since(start).Round(time.Millisecond))
	if res := edit("edited after the hang", "edited after the restart"); res.IsError {
		t.Errorf("the Edit after it: %q", text(res))
	}
	if got := mustRead(t, notes); got != "edited after the restart\nsecond line\n" {
		t.Errorf("notes.txt = %q", got)
	}

	dials := 0
	for line := range strings.Lines(s.stderr.String()) {
		if !strings.Contains(line, "failed to dial") {
			continue
		}
		dials++
		var rec struct{ From string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.From != "go-redis" {
			t.Errorf("go-redis's line is not JSON from go-redis (%v): %s", err, line)
		}
	}
	if dials == 0 {
		t.Errorf("no go-redis line about the failed dials in the log:\n%s", s.stderr)
	}
}

// serve with a --state server that cannot be reached, refused or hung, does not
// start: the error names the address, and says what to do.
func TestServeWithUnreachableStore(t *testing.T) {
	hung := redistest.Start(t)
	hung.Pause()
	defer hung.Resume()
	for what, addr := range map[string]string{"refused": "127.0.0.1:1", "hung": hung.Addr} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s := newMCPDirs(t)
		cmd := exec.CommandContext(ctx, luatoolBinary(t), "serve", "--standard-tools", "--http", "127.0.0.1:0", "--root", s.root, "--tools", s.tools, "--state", "redis://"+addr)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("serve with a store %s: %v after %v: %s", what, err, time.Since(start).Round(time.Millisecond), out)
		if err == nil || ctx.Err() != nil {
			t.Fatalf("serve with a store %s: %v, want an error at start", what, err)
		}
		for _, want := range []string{"--state", "cannot reach the server at " + addr, "does not start without the session store"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the error with a store %s does not say %q: %s", what, want, out)
			}
		}
	}
}
