//go:build unix

package tests

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/internal/extdata"
	"github.com/luatool/luatool/internal/syncbuf"
	"github.com/luatool/luatool/session/redisstore/redistest"
)

// requireHAProxyVar set to 1 (as CI does) makes a missing haproxy fail the fleet test
// rather than skip it.
const requireHAProxyVar = "LUATOOL_REQUIRE_HAPROXY"

// counterTool counts in ctx.state under input.key: "update" adds one with
// ctx.state:update, "naive" with a get then a set (the read-modify-write that loses
// updates when calls overlap), "alone" likewise but in a call that must run alone,
// and "get" reads the count. Every other call is concurrency-safe, so that calls of
// one principal overlap, on one instance as across them.
const counterTool = `return {
  name = "Counter",
  prompt = "Counts in the session state.",
  inputSchema = {
    type = "object",
    properties = { how = { enum = { "update", "naive", "alone", "get" } }, key = { type = "string" } },
    required = { "how", "key" },
  },
  isReadOnly = true,
  isConcurrencySafe = function(input) return input.how ~= "alone" end,
  call = function(input, ctx)
    if input.how == "update" then
      return tostring(ctx.state:update(input.key, function(old) return (old or 0) + 1 end))
    end
    local n = ctx.state:get(input.key) or 0
    if input.how ~= "get" then
      n = n + 1
      ctx.state:set(input.key, n)
    end
    return tostring(n)
  end,
}
`

// TestFleetThroughHAProxy is the two-instance test of issue 28: two `serve --http`
// instances sharing one redis-server and one token file, behind a real haproxy that
// sends each request to the next instance in turn, so that one principal's calls
// land on both. 8 clients counting with ctx.state:update lose no increment, nor do
// they with a get then a set in a call that must run alone (its turn is taken in
// the store); 20 concurrent TaskCreate calls are told 20 distinct ids, all kept in
// the task list. The figures, the losses of an overlapping get-then-set beside them,
// and haproxy's log are printed.
func TestFleetThroughHAProxy(t *testing.T) {
	haproxy := lookHAProxy(t)
	srv := redistest.Start(t)
	s := newMCPDirs(t)
	conf := authConf(t)
	tokens := filepath.Join(conf, "tokens.txt")
	writeFile(t, filepath.Join(s.tools, "counter.lua"), counterTool)
	var backends []string
	for range 2 {
		// --max-calls counts alice's calls across the instances: 20 at once need more
		// than the default 16.
		endpoint := startHTTP(t, s, "--tokens", tokens, "--state", srv.URL, "--max-calls", "32")
		u, err := url.Parse(endpoint)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u.Host)
	}
	front, log := startHAProxy(t, haproxy, backends)
	endpoint := "http://" + front + "/mcp"

	const clients, callsEach = 8, 40
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = clientAs(t, endpoint, aliceToken, nil)
	}
	count := func(how, key string) (ok, failed int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, session := range sessions {
			wg.Go(func() {
				for range callsEach {
					res := callOn(t, session, "Counter", map[string]any{"how": how, "key": key})
					mu.Lock()
					if res.IsError {
						failed++
						t.Errorf("Counter %s: %s", how, text(res))
					} else {
						ok++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return ok, failed
	}
	final := func(key string) int {
		n, err := strconv.Atoi(text(callOn(t, sessions[0], "Counter", map[string]any{"how": "get", "key": key})))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		how, what string
		mayLose   bool
	}{
		{"update", "ctx.state:update", false},
		{"alone", "get then set, run alone", false},
		{"naive", "get then set, overlapping (for comparison)", true},
	} {
		ok, failed := count(c.how, c.how)
		n := final(c.how)
		t.Logf("%s: %d clients x %d calls: %d succeeded, %d failed, counter %d, lost updates %d",
			c.what, clients, callsEach, ok, failed, n, ok-n)
		if n != ok && !c.mayLose {
			t.Errorf("%s: %d increments succeeded but the counter is %d", c.what, ok, n)
		}
	}

	told := make([]string, 20)
	var wg sync.WaitGroup
	for i := range told {
		wg.Go(func() {
			res := callOn(t, sessions[i%clients], "TaskCreate", map[string]any{"subject": fmt.Sprintf("task %d", i), "description": "d"})
			told[i] = text(res)
		})
	}
	wg.Wait()
	ids := map[int]int{}
	created := regexp.MustCompile(`^Task #(\d+) created successfully: task \d+$`)
	for _, msg := range told {
		m := created.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("TaskCreate answered %q", msg)
		}
		id, _ := strconv.Atoi(m[1])
		ids[id]++
	}
	duplicates := len(told) - len(ids)
	list := text(callOn(t, sessions[0], "TaskList", map[string]any{}))
	kept := strings.Count(list, "[pending] task ")
	t.Logf("TaskCreate: %d concurrent calls, %d distinct ids %v, duplicate ids %d, tasks in the list %d",
		len(told), len(ids), slices.Sorted(maps.Keys(ids)), duplicates, kept)
	if duplicates != 0 || kept != len(told) {
		t.Errorf("ids told: %v; the list:\n%s", ids, list)
	}

	lines := log.String()
	perServer := map[string]int{}
	for _, name := range regexp.MustCompile(` be/(s\d) `).FindAllStringSubmatch(lines, -1) {
		perServer[name[1]]++
	}
	t.Logf("requests by instance, from haproxy's log: %v", perServer)
	if perServer["s1"] == 0 || perServer["s2"] == 0 {
		t.Errorf("haproxy did not send requests to both instances: %v", perServer)
	}
	t.Logf("haproxy's log:\n%s", lines)
}

// lookHAProxy returns the path of haproxy; without it, it skips the test saying how
// to install it, or fails it when requireHAProxyVar is 1.
func lookHAProxy(t *testing.T) string {
	t.Helper()
	// It names redis-server too, which the test needs as well, so that a machine
	// with neither learns both at once.
	return extdata.Program(t, "haproxy", requireHAProxyVar, "on Debian: apt-get install -y haproxy redis-server; the test needs both")
}

// startHAProxy starts haproxy in the foreground, balancing HTTP requests round robin,
// each request on its own, over backends (host:port), and returns the address it
// listens on and its log, one line per request. It is soft-stopped (SIGUSR1) when the
// test ends.
func startHAProxy(t *testing.T, bin string, backends []string) (string, *syncbuf.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := ln.Addr().String()
	ln.Close() // haproxy binds it; a port taken in between fails the start below, clearly
	var servers strings.Builder
	for i, b := range backends {
		fmt.Fprintf(&servers, "    server s%d %s\n", i+1, b)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	writeFile(t, cfg, `global
    log stderr format raw local0 info
defaults
    mode http
    log global
    option httplog
    option dontlognull
    timeout connect 1s
    timeout client 60s
    timeout server 60s
frontend fe
    bind `+front+`
    default_backend be
backend be
    balance roundrobin
`+servers.String())
	if out, err := exec.Command(bin, "-c", "-q", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	log := &syncbuf.Buffer{}
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGUSR1) // a soft stop: open requests finish, then exit 0
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	// Ready once it accepts a connection; an exit first is a failure to start.
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("haproxy exited: %v\n%s", waitErr, log)
		default:
		}
		if c, err := net.Dial("tcp", front); err == nil {
			c.Close()
			return front, log
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy does not accept connections at %s after 30s:\n%s", front, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
