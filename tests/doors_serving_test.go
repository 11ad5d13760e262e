package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The doors of issue 26 that serving opened, each reproduced against the luatool
// binary: a loopback server that served every user of the machine (item 6), and
// principals that stalled each other, and calls that ran on after their client
// cancelled them or went away (item 7). Nothing here waits for a sleep to be on
// time: what a test waits for is a process appearing or going (read from /proc), a
// line in the server's log or an answer, each under a deadline far beyond what it
// needs.

// TestDoor6LoopbackNeedsToken: serve --http on loopback without --tokens makes a
// token of its own. A request without it is refused; the token is printed once and
// kept in a file only its user may read; another user of the machine can neither
// read the file nor call a tool.
func TestDoor6LoopbackNeedsToken(t *testing.T) {
	s := newMCPDirs(t)
	runtime := reachableDir(t)
	endpoint := startServe(t, s, []string{"XDG_RUNTIME_DIR=" + runtime}, "--http", "127.0.0.1:0")
	echo := callBody(`1`, "Echo", `{"text":"hello"}`, "")
	if code, body := postMCP(t, endpoint, "", echo); code != http.StatusUnauthorized {
		t.Fatalf("a call without a token is answered %d, not 401: %s", code, body)
	}

	token, file := madeToken(t, s)
	if want := filepath.Join(runtime, "luatool"); filepath.Dir(file) != want {
		t.Errorf("the token file %s is not in %s", file, want)
	}
	checkMode(t, filepath.Dir(file), 0o700)
	checkMode(t, file, 0o600)
	if got := strings.TrimSpace(mustRead(t, file)); got != token {
		t.Errorf("the token file holds %q, not the token printed", got)
	}
	if n := strings.Count(s.stderr.String(), token); n != 1 {
		t.Errorf("the token is printed %d times, not once:\n%s", n, s.stderr)
	}
	if code, body := postMCP(t, endpoint, "wrong-"+token, echo); code != http.StatusUnauthorized {
		t.Errorf("a call with a wrong token is answered %d, not 401: %s", code, body)
	}
	if code, body := postMCP(t, endpoint, token, echo); code != http.StatusOK || !strings.Contains(body, "echo: hello") {
		t.Errorf("a call with the token: %d %s", code, body)
	}

	other := throwawayUser(t)
	if other == nil {
		return
	}
	if out, err := other.run("cat", file); err == nil {
		t.Errorf("another user read the token file: %s", out)
	}
	curl := func(header string) (string, error) {
		return other.run("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
			"-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
			"-H", header, "--data", echo, endpoint)
	}
	if out, err := curl("X-Nothing: 1"); err != nil || out != "401" {
		t.Errorf("another user's call without the token: %v, status %q (want 401)", err, out)
	}
	// The control: the address is open to them; the token is what they lack.
	if out, err := curl("Authorization: Bearer " + token); err != nil || out != "200" {
		t.Errorf("another user's call with the token: %v, status %q (want 200)", err, out)
	}
}

// TestDoor6UnixSocketIsPrivate: --http unix:PATH serves on a socket only its user may
// open (mode 0600), without a token; another user cannot connect to it.
func TestDoor6UnixSocketIsPrivate(t *testing.T) {
	s := newMCPDirs(t)
	sock := filepath.Join(reachableDir(t), "mcp.sock")
	if where := startServe(t, s, nil, "--http", "unix:"+sock); where != "unix:"+sock {
		t.Fatalf("the server says it serves at %s, not unix:%s", where, sock)
	}
	checkMode(t, sock, 0o600)
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	code, body := do(client, context.Background(), "http://localhost/mcp", "", callBody(`1`, "Echo", `{"text":"over the socket"}`, ""))
	if code != http.StatusOK || !strings.Contains(body, "echo: over the socket") {
		t.Errorf("a call over the socket: %d %s", code, body)
	}

	other := throwawayUser(t)
	if other == nil {
		return
	}
	// The control: they may reach the socket's directory; its own mode keeps them out.
	if out, err := other.run("test", "-S", sock); err != nil {
		t.Fatalf("another user cannot even see the socket: %v %s", err, out)
	}
	out, err := other.run("curl", "-sS", "--unix-socket", sock, "-X", "POST",
		"-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
		"--data", callBody(`1`, "Echo", `{"text":"intruder"}`, ""), "http://localhost/mcp")
	if err == nil || strings.Contains(out, "echo: intruder") {
		t.Errorf("another user called a tool over the socket: %v %s", err, out)
	}
}

// TestDoor7PrincipalsDoNotStallEachOther: while alice's six long Bash commands run,
// bob's read-only Bash call is answered, and so is alice's own (it is
// concurrency-safe: it is not put behind her six to run alone). The server runs with
// two CPUs' worth of Lua slots, whatever the machine, so that six calls are more than
// one tool or principal could hold before.
func TestDoor7PrincipalsDoNotStallEachOther(t *testing.T) {
	s := newMCPDirs(t)
	endpoint := startServe(t, s, []string{"GOMAXPROCS=2"}, "--http", "127.0.0.1:0", "--tokens", principalsFile(t))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var markers []string
	for i := range 6 {
		m := sleepMarker(t)
		markers = append(markers, m)
		go postMCPContext(ctx, endpoint, aliceToken, callBody(strconv.Itoa(100+i), "Bash", `{"command":"true; sleep `+m+`"}`, ""))
	}
	waitFor(t, "alice's six commands running", func() string {
		if n := len(sleeping(markers...)); n != 6 {
			return fmt.Sprintf("%d of 6 run", n)
		}
		return ""
	})
	for _, who := range []struct{ name, token string }{{"bob", bobToken}, {"alice", aliceToken}} {
		code, body := postMCP(t, endpoint, who.token, callBody(`"echo"`, "Bash", `{"command":"echo hello `+who.name+`"}`, ""))
		if code != http.StatusOK || !strings.Contains(body, "hello "+who.name) {
			t.Errorf("%s's echo: %d %s", who.name, code, body)
		}
		if n := len(sleeping(markers...)); n != 6 {
			t.Errorf("%s's echo was answered only after %d of alice's six commands ended", who.name, 6-n)
		}
	}
	if strings.Contains(s.stderr.String(), "isConcurrencySafe") {
		t.Errorf("a call's isConcurrencySafe failed while alice's commands ran:\n%s", s.stderr)
	}
}

// burnTool spins in Lua when asked to, after saying so by progress, and otherwise
// answers at once: its calls hold Lua slots, not a process.
const burnTool = `return {
  name = "Burn",
  prompt = "Spins when asked to; otherwise answers at once.",
  inputSchema = { type = "object", properties = { spin = { type = "boolean" } } },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input, ctx)
    if not input.spin then return "cool" end
    ctx:progress("burning")
    while true do end
  end,
}
`

// TestDoor7LuaSlotsAreShared: alice's calls spinning in Lua take at most her share
// of the Lua slots (half, and a quarter for one tool), so bob's call of the very same
// tool, and her own call of another tool, find one while hers spin.
func TestDoor7LuaSlotsAreShared(t *testing.T) {
	s := newMCPDirs(t)
	writeFile(t, filepath.Join(s.tools, "burn.lua"), burnTool)
	endpoint := startServe(t, s, []string{"GOMAXPROCS=2"}, "--http", "127.0.0.1:0", "--tokens", principalsFile(t))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	burning, ended := make(chan int, 6), make(chan int, 6)
	for i := range 6 {
		go func() {
			defer func() { ended <- i }()
			body := callBody(strconv.Itoa(200+i), "Burn", `{"spin":true}`, fmt.Sprintf(`"progressToken":"burn-%d"`, i))
			req, err := mcpRequest(ctx, endpoint, aliceToken, body)
			if err != nil {
				return
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			lines := bufio.NewScanner(resp.Body)
			for lines.Scan() {
				if strings.Contains(lines.Text(), "notifications/progress") {
					burning <- i
				}
			}
		}()
	}
	// Two CPUs make 8 slots, of which one principal holds 4, and one tool of a
	// principal 2.
	for range 2 {
		select {
		case <-burning:
		case i := <-ended:
			t.Fatalf("alice's Burn call %d ended:\n%s", i, s.stderr)
		case <-time.After(guardTime): // a guard: the calls start at once
			t.Fatalf("alice's calls did not start burning:\n%s", s.stderr)
		}
	}
	answered := make(chan string, 1)
	go func() {
		_, body := postMCPContext(ctx, endpoint, bobToken, callBody(`1`, "Burn", `{}`, ""))
		answered <- body
	}()
	select {
	case body := <-answered:
		if !strings.Contains(body, "cool") {
			t.Errorf("bob's Burn: %s", body)
		}
	case <-time.After(guardTime): // a guard: the call needs no more than a free slot
		t.Fatalf("bob's call of Burn was not answered while alice's calls burned:\n%s", s.stderr)
	}
	// Her other tools have room beside her runaway one.
	go func() {
		_, body := postMCPContext(ctx, endpoint, aliceToken, callBody(`2`, "Echo", `{"text":"hi"}`, ""))
		answered <- body
	}()
	select {
	case body := <-answered:
		if !strings.Contains(body, "echo: hi") {
			t.Errorf("alice's Echo: %s", body)
		}
	case <-time.After(guardTime): // a guard: the call needs no more than a free slot
		t.Fatalf("alice's call of Echo was not answered while her Burn calls burned:\n%s", s.stderr)
	}
	select {
	case i := <-ended:
		t.Errorf("alice's Burn call %d ended before bob's and her Echo were answered", i)
	default:
	}
}

// TestDoor7CancelEndsCall: over HTTP, notifications/cancelled for a request id ends
// that request's call of the same principal at once (its command is gone), and is
// logged with its outcome; bob's cancel of alice's request id does nothing. Both ways
// a call is served are tried: directly, and through the go-sdk (a call with a
// progress token). A call that must run alone then runs at once.
func TestDoor7CancelEndsCall(t *testing.T) {
	s := newMCPDirs(t)
	writeFile(t, filepath.Join(s.tools, "alone.lua"), aloneTool)
	endpoint := startServe(t, s, nil, "--http", "127.0.0.1:0", "--tokens", principalsFile(t))
	cancelled := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user pressed Esc"}}`
	for i, way := range callWays {
		t.Run(way.name, func(t *testing.T) {
			m := sleepMarker(t)
			answered := make(chan string, 1)
			go func() {
				_, body := postMCPContext(context.Background(), endpoint, aliceToken, callBody(`7`, "Bash", `{"command":"true; sleep `+m+`"}`, way.meta))
				answered <- body
			}()
			waitFor(t, "alice's command running", running(m))
			if code, body := postMCP(t, endpoint, bobToken, cancelled); code != http.StatusAccepted {
				t.Errorf("bob's cancel: %d %s", code, body)
			}
			if len(sleeping(m)) != 1 {
				t.Errorf("bob's cancel of request 7 ended alice's call 7")
			}
			if code, body := postMCP(t, endpoint, aliceToken, cancelled); code != http.StatusAccepted {
				t.Errorf("alice's cancel: %d %s", code, body)
			}
			waitFor(t, "alice's command to end after her cancel", gone(m))
			select {
			case <-answered:
			case <-time.After(guardTime): // a guard: the call ended with its command
				t.Fatalf("alice's cancelled call was never answered:\n%s", s.stderr)
			}
			waitForLog(t, s, i+1, `level=\w+ msg="tool call" principal=alice tool=Bash duration=\S+ outcome=cancelled reason="the client cancelled the request" since_cancel=\S+`)
			waitForLog(t, s, i+1, `level=INFO msg=cancel principal=bob request=7 calls=0`)
			waitForLog(t, s, i+1, `level=INFO msg=cancel principal=alice request=7 calls=1`)
			if code, body := postMCP(t, endpoint, aliceToken, callBody(`8`, "Alone", `{}`, "")); !strings.Contains(body, "ran alone") {
				t.Errorf("alice's call that must run alone, after her cancel: %d %s", code, body)
			}
		})
	}
}

// aloneTool must run alone: it waits for every other call of its principal.
const aloneTool = `return {
  name = "Alone",
  prompt = "Runs alone.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  isConcurrencySafe = false,
  call = function() return "ran alone" end,
}
`

// TestDoor7DroppedClientEndsCall: a client that goes away while its POST waits for
// the result (its connection closes) ends its call, served directly or through the
// go-sdk; the end is logged.
func TestDoor7DroppedClientEndsCall(t *testing.T) {
	s := newMCPDirs(t)
	endpoint := startServe(t, s, nil, "--http", "127.0.0.1:0", "--tokens", principalsFile(t))
	for i, way := range callWays {
		t.Run(way.name, func(t *testing.T) {
			m := sleepMarker(t)
			ctx, hangUp := context.WithCancel(context.Background())
			defer hangUp()
			id := strconv.Itoa(90 + i)
			go postMCPContext(ctx, endpoint, aliceToken, callBody(id, "Bash", `{"command":"true; sleep `+m+`"}`, way.meta))
			waitFor(t, "alice's command running", running(m))
			hangUp()
			waitFor(t, "alice's command to end once her client went away", gone(m))
			waitForLog(t, s, i+1, `level=\w+ msg="tool call" principal=alice tool=Bash duration=\S+ outcome=cancelled reason="the client went away" since_cancel=\S+`)
		})
	}
}

// callWays are the two ways a tools/call is served: directly, and through the
// go-sdk (a call with a progress token), with the _meta members that choose it.
var callWays = []struct{ name, meta string }{{"direct", ""}, {"through the SDK", `"progressToken":"p7"`}}

// callBody is a tools/call request with id (JSON), the tool's arguments (a JSON
// object) and members of its _meta ("" for none).
func callBody(id, tool, args, meta string) string {
	params := fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args)
	if meta != "" {
		params += `,"_meta":{` + meta + `}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{%s}}`, id, params)
}

// mcpRequest is a POST of body to endpoint as a client of protocol 2025-06-18 sends
// it, with a bearer token ("" for none).
func mcpRequest(ctx context.Context, endpoint, token, body string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// postMCP posts body and returns the status and the whole response body, within
// guardTime: no request here needs more than a moment.
func postMCP(t *testing.T, endpoint, token, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guardTime)
	defer cancel()
	code, out := postMCPContext(ctx, endpoint, token, body)
	if code == 0 {
		t.Fatalf("POST %s: %s", body, out)
	}
	return code, out
}

// postMCPContext is postMCP under ctx, for requests in goroutines: status 0 and the
// error for a request that failed.
func postMCPContext(ctx context.Context, endpoint, token, body string) (int, string) {
	return do(http.DefaultClient, ctx, endpoint, token, body)
}

// do posts body with client, as postMCPContext does.
func do(client *http.Client, ctx context.Context, endpoint, token, body string) (int, string) {
	req, err := mcpRequest(ctx, endpoint, token, body)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(out)
}

// madeToken returns the token serve made for itself and the file it keeps it in,
// from the line it logged.
func madeToken(t *testing.T, s *mcpServer) (token, file string) {
	t.Helper()
	m := regexp.MustCompile(`token=([0-9a-f]{64}) file=(\S+)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("serve printed no token of its own:\n%s", s.stderr)
	}
	return m[1], m[2]
}

// principalsFile writes a token file of alice and bob, private as serve wants it.
func principalsFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.txt")
	if err := os.WriteFile(path, []byte("alice "+aliceToken+"\nbob "+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sleepMarker is the argument of a sleep command no other process has: under a
// minute, so that a test that fails leaves nothing running for long. The ones made
// are killed when the test ends. Bash refuses a foreground command that starts
// with so long a sleep, as the original does, so the commands run `true; sleep M`.
func sleepMarker(t *testing.T) string {
	m := fmt.Sprintf("59.%09d", rand.IntN(1e9))
	t.Cleanup(func() {
		for _, pid := range sleeping(m) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	return m
}

// sleeping returns the processes running `sleep M` for the markers M, read from
// /proc.
func sleeping(markers ...string) []int {
	want := map[string]bool{}
	for _, m := range markers {
		want["sleep\x00"+m+"\x00"] = true
	}
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && want[string(cmdline)] {
			pids = append(pids, pid)
		}
	}
	return pids
}

// running and gone are the waitFor conditions of a sleep command that runs, and
// that has ended.
func running(m string) func() string {
	return func() string {
		if len(sleeping(m)) == 0 {
			return "not running"
		}
		return ""
	}
}

func gone(m string) func() string {
	return func() string {
		if len(sleeping(m)) > 0 {
			return "still running"
		}
		return ""
	}
}

// waitFor polls cond, which says what is still missing ("" when nothing is), until
// it holds, failing the test past guardTime.
func waitFor(t *testing.T, what string, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(guardTime)
	for {
		missing := cond()
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %s after %v", what, missing, guardTime)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// guardTime bounds every wait of these tests: far beyond what a working server
// needs (milliseconds), and short of the minute a command of sleepMarker sleeps, so
// that a command that ended by itself is not taken for one that was ended.
const guardTime = 30 * time.Second

// waitForLog waits for n lines of the server's log matching pattern.
func waitForLog(t *testing.T, s *mcpServer, n int, pattern string) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	waitFor(t, fmt.Sprintf("%d log lines %s", n, pattern), func() string {
		if got := len(re.FindAllString(s.stderr.String(), -1)); got < n {
			return fmt.Sprintf("%d in the log:\n%s", got, s.stderr)
		}
		return ""
	})
}

// checkMode fails unless path's permission bits are want.
func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, not %04o", path, got, want)
	}
}

// reachableDir is a new directory every user may enter (t.TempDir's may not), so
// that what keeps another user out of what serve makes in it is its own mode.
func reachableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "luatool-door-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// osUser is another user of the machine.
type osUser struct{ uid, gid uint32 }

// throwawayUser makes a user for the test, removed at its end, when the test runs
// as root on a machine with useradd and curl; otherwise it returns nil, and the
// test checks modes only.
func throwawayUser(t *testing.T) *osUser {
	t.Helper()
	_, errAdd := exec.LookPath("useradd")
	_, errCurl := exec.LookPath("curl")
	if os.Geteuid() != 0 || errAdd != nil || errCurl != nil {
		t.Log("not root, or no useradd or curl: another user's attempts are not tried")
		return nil
	}
	name := fmt.Sprintf("ltdoor%d%03d", os.Getpid()%100000, rand.IntN(1000))
	if out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &osUser{uid: uint32(uid), gid: uint32(gid)}
}

// run runs a program as the user, returning its output.
func (u *osUser) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	if err := runAs(cmd, u.uid, u.gid); err != nil {
		return "", err
	}
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", err
	}
	return strings.TrimSpace(out.String()), err
}
