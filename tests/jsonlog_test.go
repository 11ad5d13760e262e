package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/session/redisstore/redistest"
)

// TestServeJSONLogEveryLine: serve configured by LUATOOL_ variables alone, with
// LUATOOL_LOG_FORMAT=json, through calls (one failing), a reload, a broken save and
// a warning the CLI prints itself: every line on stderr is one JSON object with a
// time, a level and a message.
func TestServeJSONLogEveryLine(t *testing.T) {
	s := newMCPDirs(t)
	conf := t.TempDir()
	tokens := filepath.Join(conf, "tokens")
	must(t, os.WriteFile(tokens, []byte("alice alice-token-0123456789abcdef\n"), 0o600))
	// A value for a tool no tool is named: the CLI's own warning line.
	settingsFile := filepath.Join(conf, "settings.json")
	writeFile(t, settingsFile, `{"env": {"CITY": {"value": "Oslo", "secret": false, "tools": ["Ecco"]}}}`)
	endpoint := startServe(t, s, []string{"LUATOOL_LOG_FORMAT=json", "LUATOOL_TOKENS=" + tokens, "LUATOOL_SETTINGS=" + settingsFile, "LUATOOL_HTTP=127.0.0.1:0"})

	alice := clientAs(t, endpoint, "alice-token-0123456789abcdef", nil)
	if got := text(callOn(t, alice, "Echo", map[string]any{"text": "one"})); got != "echo: one" {
		t.Errorf("Echo: %q", got)
	}
	if res := callOn(t, alice, "Noisy", map[string]any{"fail": true}); !res.IsError {
		t.Errorf("Noisy did not fail: %q", text(res))
	}
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), toolSource("Fresh", "fresh result"))
	eventually(t, "Fresh served", func() bool { return listedOn(t, alice)["Fresh"] })
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), "return {")
	eventually(t, "the broken save in the log", func() bool {
		return strings.Contains(s.stderr.String(), "the last good version keeps serving")
	})

	seen := map[string]string{} // what each expected line was found as
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON object: %s", line)
			continue
		}
		msg, _ := rec["msg"].(string)
		level, _ := rec["level"].(string)
		if _, ok := rec["time"].(string); !ok || msg == "" || level == "" {
			t.Errorf("no time, level or msg: %s", line)
		}
		for what, match := range map[string]bool{
			"the CLI's warning":   level == "WARN" && strings.Contains(msg, "env CITY is given to the tool Ecco"),
			"the failed call":     msg == "tool call" && rec["outcome"] == "error" && rec["tool"] == "Noisy",
			"the reload":          rec["change"] != nil && rec["tool"] == "Fresh",
			"the broken save":     level == "ERROR" && strings.Contains(msg, "fresh.lua:1"),
			"where it serves":     strings.HasPrefix(msg, "serving MCP at http://127.0.0.1:"),
			"the successful call": msg == "tool call" && rec["outcome"] == "ok" && rec["principal"] == "alice",
			"the sandbox it says": strings.HasPrefix(msg, "shell sandbox: "),
			"no token in the log": strings.Contains(line, "alice-token"),
		} {
			if match {
				seen[what] = line
			}
		}
	}
	if line, ok := seen["no token in the log"]; ok {
		t.Errorf("a token in the log: %s", line)
	}
	for _, what := range []string{"the CLI's warning", "the failed call", "the reload", "the broken save", "where it serves", "the successful call", "the sandbox it says"} {
		if _, ok := seen[what]; !ok {
			t.Errorf("no line for %s", what)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", s.stderr)
	}
}

// TestServeStorePasswordAndRedisLog: the store's password reaches Redis from
// --redis-password-file (a wrong one stops serve at start without showing it), and
// with --log-format json go-redis's own lines, once the server is gone, are JSON
// records like every other line.
func TestServeStorePasswordAndRedisLog(t *testing.T) {
	srv := redistest.Start(t)
	const password = "s3cret-store-pass"
	conn, err := net.Dial("tcp", srv.Addr)
	must(t, err)
	fmt.Fprintf(conn, "CONFIG SET requirepass %s\r\n", password)
	reply, err := bufio.NewReader(conn).ReadString('\n')
	conn.Close()
	if err != nil || reply != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q, %v", reply, err)
	}
	pwFile := filepath.Join(t.TempDir(), "redis-password")
	must(t, os.WriteFile(pwFile, []byte(password+"\n"), 0o600))

	cmd := exec.Command(luatoolBinary(t), "--state", srv.URL, "serve")
	cmd.Env = append(os.Environ(), "LUATOOL_REDIS_PASSWORD=not-the-password", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "cannot reach the server at "+srv.Addr) || strings.Contains(string(out), "not-the-password") {
		t.Errorf("serve with a wrong password: exit %d, %v:\n%s", code, err, out)
	}

	s := serveStdio(t, nil, "--state", srv.URL, "--redis-password-file", pwFile, "--log-format", "json")
	if got := text(s.call(t, "TaskCreate", map[string]any{"subject": "one", "description": "d"})); !strings.Contains(got, "created") {
		t.Fatalf("TaskCreate with the password from the file: %q", got)
	}
	srv.Stop()
	if res := s.call(t, "TaskList", map[string]any{}); !res.IsError {
		t.Errorf("TaskList with the store gone: %q", text(res))
	}
	eventually(t, "go-redis's line in the log", func() bool { return strings.Contains(s.stderr.String(), `"msg":"redis: `) })
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["level"] == nil || rec["msg"] == nil {
			t.Errorf("not a JSON log record: %s", line)
		}
		if strings.Contains(line, password) {
			t.Errorf("the password in the log: %s", line)
		}
	}
}
