package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/syncbuf"
)

// holdTool writes its marker file, then sleeps input.ms milliseconds: the marker
// tells the test the call is running, whatever the machine's load.
const holdTool = `local fs = require("fs")
local time = require("time")
return {
  name = "Hold",
  prompt = "Writes the marker file, then sleeps ms milliseconds.",
  inputSchema = { type = "object", properties = { marker = { type = "string" }, ms = { type = "number" } }, required = { "marker", "ms" } },
  call = function(input)
    assert(fs.write(input.marker, "started"))
    time.sleep(input.ms)
    return "held " .. input.ms .. " ms"
  end,
}
`

// startLifecycle serves s's tools and Hold over HTTP to alice and bob (the token
// file returned), with the extra arguments.
func startLifecycle(t *testing.T, s *mcpServer, extraArgs ...string) (*serveProcess, string) {
	t.Helper()
	writeFile(t, filepath.Join(s.tools, "hold.lua"), holdTool)
	tokens := principalsFile(t)
	args := append([]string{"--http", "127.0.0.1:0", "--tokens", tokens, "--allow", "Hold"}, extraArgs...)
	return startServeProcess(t, s, nil, args...), tokens
}

// hold starts alice's call of Hold for ms milliseconds, waits until it runs, and
// returns the channel its answer arrives on.
func hold(t *testing.T, s *mcpServer, endpoint string, ms int) <-chan string {
	t.Helper()
	marker := filepath.Join(s.root, fmt.Sprintf("held-%d", ms))
	answer := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), guardTime)
		defer cancel()
		code, body := postMCPContext(ctx, endpoint, aliceToken, callBody("1", "Hold", fmt.Sprintf(`{"marker":%q,"ms":%d}`, marker, ms), ""))
		answer <- fmt.Sprintf("%d %s", code, body)
	}()
	waitFor(t, "the Hold call running", func() string {
		if _, err := os.Stat(marker); err != nil {
			return "no marker"
		}
		return ""
	})
	return answer
}

// answerOf waits for the answer hold delivers.
func answerOf(t *testing.T, s *mcpServer, answer <-chan string) string {
	t.Helper()
	select {
	case got := <-answer:
		return got
	case <-time.After(guardTime):
		t.Fatalf("the call was never answered:\n%s", s.stderr)
		return ""
	}
}

// logMatches fails for each pattern the server's log does not match.
func logMatches(t *testing.T, s *mcpServer, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(s.stderr.String()) {
			t.Errorf("the log lacks %s:\n%s", p, s.stderr)
		}
	}
}

// exited waits for the server to end and fails unless it ended with status 0.
func exited(t *testing.T, p *serveProcess, s *mcpServer) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(guardTime):
		t.Fatalf("the server did not exit:\n%s", s.stderr)
	}
	if p.err != nil {
		t.Fatalf("the server exited with %v, want status 0:\n%s", p.err, s.stderr)
	}
}

// TestServeSIGTERMLetsCallsFinish stops a server by SIGTERM while a 2-second call
// runs: the call finishes and is answered, the process exits 0, the log has the
// call's outcome, and no new connection is taken meanwhile; a SIGHUP meanwhile
// reloads, as it would at any other time.
func TestServeSIGTERMLetsCallsFinish(t *testing.T) {
	s := newMCPDirs(t)
	p, _ := startLifecycle(t, s)
	answer := hold(t, s, p.endpoint, 2000)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, s, 1, `msg="shutting down: a stop signal; no new calls are taken" in_flight=1 grace=30s`)
	hangUp(t, p) // a reload asked for meanwhile does not end the process
	waitForLog(t, s, 1, `msg="tokens reloaded"`)
	if code, body := postMCPContext(context.Background(), p.endpoint, bobToken, callBody("2", "Echo", `{"text":"late"}`, "")); code != 0 {
		t.Errorf("a request after SIGTERM was answered %d %s: the listener should be closed", code, body)
	}
	if got := answerOf(t, s, answer); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "held 2000 ms") || strings.Contains(got, `"isError":true`) {
		t.Errorf("the call across SIGTERM was answered %s", got)
	}
	exited(t, p, s)
	logMatches(t, s,
		`msg="tool call" principal=alice tool=Hold duration=\S+ outcome=ok\n`,
		`msg="shutdown: every call has ended"`)
}

// TestServeSIGTERMCancelsPastGrace stops a server whose grace is shorter than the
// call in flight: the call is cancelled at the end of the grace, answered, and
// logged as cancelled because the server is shutting down, and the process exits 0.
func TestServeSIGTERMCancelsPastGrace(t *testing.T) {
	s := newMCPDirs(t)
	p, _ := startLifecycle(t, s, "--shutdown-grace", "300ms")
	answer := hold(t, s, p.endpoint, 10*60*1000)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if got := answerOf(t, s, answer); !strings.HasPrefix(got, "200 ") || strings.Contains(got, "held") {
		t.Errorf("the call cut by the end of the grace was answered %s", got)
	}
	exited(t, p, s)
	logMatches(t, s,
		`msg="tool call" principal=alice tool=Hold duration=\S+ outcome=cancelled reason="the server is shutting down"`,
		`msg="shutdown: the grace is over: the calls still running were cancelled" cancelled=1`)
}

// TestServeSIGHUPReloadsTokens revokes bob's token and reloads with SIGHUP: bob's
// next request is refused (401) while alice, on the connection she had open, goes
// on; a malformed token file at the next SIGHUP keeps the tokens in force and logs
// file:line; the process never dies of the signal.
func TestServeSIGHUPReloadsTokens(t *testing.T) {
	s := newMCPDirs(t)
	p, tokens := startLifecycle(t, s)
	aliceEcho := echoOnOneConnection(p.endpoint)
	if code, body, _ := aliceEcho("before"); code != http.StatusOK || !strings.Contains(body, "echo: before") {
		t.Fatalf("alice before the reload: %d %s", code, body)
	}
	if code, body := postMCP(t, p.endpoint, bobToken, callBody("2", "Echo", `{"text":"bob"}`, "")); code != http.StatusOK {
		t.Fatalf("bob before the reload: %d %s", code, body)
	}

	carolToken := "carol-token-0123456789abcdef"
	writePrivateFile(t, tokens, "alice "+aliceToken+"\ncarol "+carolToken+"\n")
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="tokens reloaded" file=\S+ principals=2 added=\[carol\] removed=\[bob\] changed=\[\]`)
	if code, body := postMCP(t, p.endpoint, bobToken, callBody("3", "Echo", `{"text":"bob"}`, "")); code != http.StatusUnauthorized {
		t.Errorf("bob after his token was revoked: %d %s, want 401", code, body)
	}
	if code, body := postMCP(t, p.endpoint, carolToken, callBody("4", "Echo", `{"text":"carol"}`, "")); code != http.StatusOK || !strings.Contains(body, "echo: carol") {
		t.Errorf("carol, added: %d %s", code, body)
	}
	if code, body, reused := aliceEcho("after"); code != http.StatusOK || !strings.Contains(body, "echo: after") || !reused {
		t.Errorf("alice after the reload: %d %s, on her open connection: %v", code, body, reused)
	}
	if strings.Contains(s.stderr.String(), carolToken) || strings.Contains(s.stderr.String(), bobToken) {
		t.Errorf("a token is in the log:\n%s", s.stderr)
	}

	writePrivateFile(t, tokens, "alice "+aliceToken+"\ndave\n")
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="tokens not reloaded: the ones in force are kept" file=\S+ error="\S+tokens.txt:2: a line is NAME TOKEN \[PROFILE\], not 1 field\(s\)"`)
	if code, body := postMCP(t, p.endpoint, carolToken, callBody("5", "Echo", `{"text":"carol"}`, "")); code != http.StatusOK {
		t.Errorf("carol after a malformed file: %d %s, want her token kept", code, body)
	}
	if code, _, _ := aliceEcho("still"); code != http.StatusOK {
		t.Errorf("alice after a malformed file: %d", code)
	}

	// A profile is a settings file: a change of it changes its principal; one that
	// does not read keeps everything as it was, and says where.
	profile := filepath.Join(filepath.Dir(tokens), "carol.json")
	writePrivateFile(t, profile, `{"permissions": {"deny": ["Echo"]}}`)
	writePrivateFile(t, tokens, "alice "+aliceToken+"\ncarol "+carolToken+" carol.json\n")
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="tokens reloaded" file=\S+ principals=2 added=\[\] removed=\[\] changed=\[carol\]`)
	if code, body := postMCP(t, p.endpoint, carolToken, callBody("6", "Echo", `{"text":"carol"}`, "")); code != http.StatusOK || strings.Contains(body, "echo: carol") {
		t.Errorf("carol's Echo, which her new profile denies: %d %s", code, body)
	}
	writePrivateFile(t, profile, `{"permissions": {"dney": ["Echo"]}}`)
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="tokens not reloaded: the ones in force are kept" file=\S+ error="\S+tokens.txt:2: profile carol.json: \S+carol.json:1:\d+: permissions: unknown key \\"dney\\"`)
	if code, body, _ := aliceEcho("last"); code != http.StatusOK || !strings.Contains(body, "echo: last") {
		t.Errorf("alice after a malformed profile: %d %s", code, body)
	}
	select {
	case <-p.done:
		t.Fatalf("the server ended on SIGHUP: %v\n%s", p.err, s.stderr)
	default:
	}
}

// echoOnOneConnection returns alice's Echo over one connection she keeps: each
// answer says whether the request went over the connection she had open.
func echoOnOneConnection(endpoint string) func(text string) (code int, body string, reused bool) {
	alice := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	return func(text string) (code int, body string, reused bool) {
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		})
		ctx, cancel := context.WithTimeout(ctx, guardTime)
		defer cancel()
		code, body = do(alice, ctx, endpoint, aliceToken, callBody("1", "Echo", fmt.Sprintf(`{"text":%q}`, text), ""))
		return code, body, reused
	}
}

// TestServeSIGHUPReloadsSettings adds a deny rule to the --settings file and
// reloads with SIGHUP: alice's next Echo, on the connection she had open, is
// refused, and the log names the rule added and the env change that waits for a
// restart; a malformed file at the next SIGHUP keeps the deny in force and logs
// file:line; taking the rule away serves Echo again.
func TestServeSIGHUPReloadsSettings(t *testing.T) {
	s := newMCPDirs(t)
	file := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, file, `{}`)
	p, _ := startLifecycle(t, s, "--settings", file)
	aliceEcho := echoOnOneConnection(p.endpoint)
	if code, body, _ := aliceEcho("before"); code != http.StatusOK || !strings.Contains(body, "echo: before") {
		t.Fatalf("alice before the reload: %d %s", code, body)
	}

	writeFile(t, file, `{"permissions": {"deny": ["Echo"]}, "env": {"REGION": "north"}}`)
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="settings reloaded" added="\[deny:Echo \(--settings\)\]" removed=\[\]`)
	waitForLog(t, s, 1, `msg="settings not applied until a restart: serve builds them in when it starts" changed=\[env\]`)
	code, body, reused := aliceEcho("denied")
	if code != http.StatusOK || strings.Contains(body, "echo: denied") || !strings.Contains(body, "Echo") || !reused {
		t.Errorf("alice's Echo after the deny, on her open connection (%v): %d %s", reused, code, body)
	}

	writeFile(t, file, `{"permissions": {"allow": ["Echo"], "dney": ["Echo"]}}`)
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="settings not reloaded: the ones in force are kept" error="\S+settings.json:1:\d+: permissions: unknown key \\"dney\\"`)
	if code, body, _ := aliceEcho("still denied"); code != http.StatusOK || strings.Contains(body, "echo: still denied") {
		t.Errorf("alice's Echo after a malformed file: %d %s, want the deny kept", code, body)
	}

	writeFile(t, file, `{}`)
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="settings reloaded" added=\[\] removed="\[deny:Echo \(--settings\)\]"`)
	if code, body, reused := aliceEcho("again"); code != http.StatusOK || !strings.Contains(body, "echo: again") || !reused {
		t.Errorf("alice's Echo once the deny is gone, on her open connection (%v): %d %s", reused, code, body)
	}
	select {
	case <-p.done:
		t.Fatalf("the server ended on SIGHUP: %v\n%s", p.err, s.stderr)
	default:
	}
}

// TestServeSIGHUPKeepsTrustedProjectSettings changes a trusted project's settings
// file: SIGHUP keeps the version trusted (Echo still serves) and says how to trust
// the new one; once luatool trust has, the next SIGHUP applies its deny rule.
func TestServeSIGHUPKeepsTrustedProjectSettings(t *testing.T) {
	s := newMCPDirs(t)
	settings := filepath.Join(s.root, ".luatool", "settings.json")
	must(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	writeFile(t, settings, `{}`)
	if _, stderr, code := runLuatool(t, s.root, "", "trust", s.root); code != 0 {
		t.Fatalf("trust: exit %d, %s", code, stderr)
	}
	writeFile(t, filepath.Join(s.tools, "hold.lua"), holdTool)
	p := startServeProcess(t, s, []string{"XDG_CONFIG_HOME=" + filepath.Join(s.root, ".config-home")},
		"--http", "127.0.0.1:0", "--tokens", principalsFile(t))
	aliceEcho := echoOnOneConnection(p.endpoint)

	writeFile(t, settings, `{"permissions": {"deny": ["Echo"]}}`)
	hangUp(t, p)
	waitForLog(t, s, 1, `keeping the project settings of \S+ as they were trusted: \S+settings.json is not as it was when the folder was trusted; to use them, run: luatool trust \S+ and send SIGHUP again`)
	waitForLog(t, s, 1, `msg="settings reloaded" added=\[\] removed=\[\]`)
	if code, body, _ := aliceEcho("kept"); code != http.StatusOK || !strings.Contains(body, "echo: kept") {
		t.Errorf("alice's Echo under the project settings trusted: %d %s", code, body)
	}

	if _, stderr, code := runLuatool(t, s.root, "", "trust", s.root); code != 0 {
		t.Fatalf("trust: exit %d, %s", code, stderr)
	}
	hangUp(t, p)
	waitForLog(t, s, 1, `msg="settings reloaded" added="\[deny:Echo \(project\)\]"`)
	if code, body, reused := aliceEcho("denied"); code != http.StatusOK || strings.Contains(body, "echo: denied") || !reused {
		t.Errorf("alice's Echo once the new project settings are trusted, on her open connection (%v): %d %s", reused, code, body)
	}
}

// writePrivateFile writes a file only its owner may read, as a token file must be.
func writePrivateFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hangUp sends the server SIGHUP.
func hangUp(t *testing.T, p *serveProcess) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
}

// TestServeStdioLetsCallsFinish serves over stdio: a call across SIGTERM finishes
// and is answered; at the end of stdin a call longer than the grace is ended,
// answered, and logged as cancelled; either way serve exits 0.
func TestServeStdioLetsCallsFinish(t *testing.T) {
	for _, c := range []struct {
		name string
		ms   int
		args []string
		// end ends the session: a signal, or closing stdin.
		end  func(cmd *exec.Cmd, stdin io.Closer) error
		want string // in the answer
		log  string
	}{
		{"SIGTERM", 2000, nil,
			func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGTERM) },
			`"text":"held 2000 ms"`, `msg="tool call" tool=Hold duration=\S+ outcome=ok`},
		{"end of stdin", 10 * 60 * 1000, []string{"--shutdown-grace", "300ms"},
			func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() },
			`"isError":true`, `msg="tool call" tool=Hold duration=\S+ outcome=cancelled reason="the server is shutting down"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newMCPDirs(t)
			writeFile(t, filepath.Join(s.tools, "hold.lua"), holdTool)
			marker := filepath.Join(s.root, "held")
			p := startStdioServe(t, s, append([]string{"--allow", "Hold"}, c.args...)...)
			fmt.Fprintf(p.stdin, "%s\n%s\n%s\n",
				`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				callBody("1", "Hold", fmt.Sprintf(`{"marker":%q,"ms":%d}`, marker, c.ms), ""))
			waitFor(t, "the Hold call running", func() string {
				if _, err := os.Stat(marker); err != nil {
					return "no marker"
				}
				return ""
			})
			if err := c.end(p.cmd, p.stdin); err != nil {
				t.Fatal(err)
			}
			p.exitedOK(t, s)
			answer := regexp.MustCompile(`(?m)^\{"jsonrpc":"2.0","id":1,.*$`).FindString(p.stdout.String())
			if !strings.Contains(answer, c.want) {
				t.Errorf("the call was answered %q, want %s; stdout:\n%s", answer, c.want, p.stdout.String())
			}
			logMatches(t, s, c.log)
		})
	}
}

// TestServeStdioExitsWithAListenOpen closes the stdin of a serve whose client, of
// protocol 2026-07-28, listens for list changes: the listen, which lasts until it
// is cancelled, does not keep the process alive, and its acknowledgement named the
// listen by the client's own id.
func TestServeStdioExitsWithAListenOpen(t *testing.T) {
	s := newMCPDirs(t)
	p := startStdioServe(t, s)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{%s,"notifications":{"toolsListChanged":true}}}`+"\n", meta)
	ack := regexp.MustCompile(`"method":"notifications/subscriptions/acknowledged","params":\{"_meta":\{"io.modelcontextprotocol/subscriptionId":"listen:0"\}`)
	waitFor(t, "the listen acknowledged under the client's id", func() string {
		if !ack.MatchString(p.stdout.String()) {
			return "stdout: " + p.stdout.String()
		}
		return ""
	})
	p.stdin.Close()
	p.exitedOK(t, s)
}

// A stdioServe is a serve process over stdio.
type stdioServe struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout syncbuf.Buffer
	exit   chan error
}

// startStdioServe starts serve over stdio on s's directories, with the extra
// arguments; it is killed, if still running, when the test ends.
func startStdioServe(t *testing.T, s *mcpServer, extra ...string) *stdioServe {
	t.Helper()
	p := &stdioServe{exit: make(chan error, 1)}
	p.cmd = exec.Command(luatoolBinary(t), append([]string{"serve", "--tools", s.tools, "--root", s.root}, extra...)...)
	p.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	p.cmd.Stderr = s.stderr
	p.cmd.Stdout = &p.stdout
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exit <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exit
	})
	return p
}

// exitedOK waits for the process to exit, and fails unless it exited with status 0.
func (p *stdioServe) exitedOK(t *testing.T, s *mcpServer) {
	t.Helper()
	select {
	case err := <-p.exit:
		p.exit <- err // for the cleanup
		if err != nil {
			t.Fatalf("serve exited with %v, want status 0:\n%s", err, s.stderr)
		}
	case <-time.After(guardTime):
		t.Fatalf("serve did not exit:\n%s", s.stderr)
	}
}
