package tests

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestDev runs luatool dev on a tool directory: it prints the URL, the header and
// the Inspector's command; a client with that header lists the tools, and a tool
// saved meanwhile is listed without a restart.
func TestDev(t *testing.T) {
	s := newMCPDirs(t)
	cmd := exec.Command(luatoolBinary(t), "dev", "--tools", s.tools, "--root", s.root, "--debounce", "20ms")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var printed strings.Builder
	inspector := regexp.MustCompile(`npx @modelcontextprotocol/inspector --transport http --server-url (http://127\.0\.0\.1:\d+/mcp) --header "Authorization: Bearer ([0-9a-f]{64})"`)
	found := make(chan []string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			printed.WriteString(lines.Text() + "\n")
			if m := inspector.FindStringSubmatch(lines.Text()); m != nil {
				found <- m
			}
		}
		close(found)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	m := <-found
	if m == nil {
		t.Fatalf("dev printed no Inspector command; its log:\n%s", s.stderr)
	}
	url, token := m[1], m[2]
	session := clientAs(t, url, token, nil)
	if !listedOn(t, session)["Echo"] {
		t.Fatalf("the tools of the directory are not listed: %v", listedOn(t, session))
	}
	tool := `return { name = "Later", prompt = "Saved while dev runs.", inputSchema = { type = "object" }, call = function() return "later" end }`
	if err := os.WriteFile(filepath.Join(s.tools, "later.lua"), []byte(tool), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the tool saved while dev runs to be listed", func() bool { return listedOn(t, session)["Later"] })
	session.Close()
	cmd.Process.Signal(os.Interrupt)
	for range found {
	}
	if err := <-exited; err != nil {
		t.Errorf("dev ended with %v; its log:\n%s", err, s.stderr)
	}
}

// claudeCode finds Claude Code: $LUATOOL_CLAUDE, else claude on PATH. Neither CI
// nor a newcomer has it, so the tests that need it skip without it.
func claudeCode(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("LUATOOL_CLAUDE"); path != "" {
		return path
	}
	path, err := exec.LookPath("claude")
	if err != nil {
		t.Skip("Claude Code is not installed (npm install @anthropic-ai/claude-code, then put claude on PATH or set LUATOOL_CLAUDE): luatool install claude-code is not checked against it")
	}
	return path
}

// TestInstallClaudeCode installs luatool in Claude Code's own file, in a scratch
// home directory, and asks Claude Code: claude mcp list shows the server connected
// (it starts it), claude mcp get shows the command and arguments, and the entry is
// the one claude mcp add-json writes for the same server, under the same project.
func TestInstallClaudeCode(t *testing.T) {
	claude := claudeCode(t)
	s := newMCPDirs(t)
	bin := luatoolBinary(t)
	run := func(home string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = s.root
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	ours := t.TempDir()
	out := run(ours, bin, "--tools", s.tools, "install", "claude-code")
	if !strings.Contains(out, "added luatool") {
		t.Fatalf("install: %s", out)
	}
	root := resolved(t, s.root)
	list := run(ours, claude, "mcp", "list")
	if !regexp.MustCompile(`(?m)^luatool: ` + regexp.QuoteMeta(bin) + ` serve --root .* - ✔ Connected$`).MatchString(list) {
		t.Errorf("claude mcp list does not show luatool connected:\n%s", list)
	}
	get := run(ours, claude, "mcp", "get", "luatool")
	for _, want := range []string{"Scope: Local config", "Status: ✔ Connected", "Command: " + bin, "Args: serve --root " + s.root + " --tools " + s.tools} {
		if !strings.Contains(get, want) {
			t.Errorf("claude mcp get luatool has no %q:\n%s", want, get)
		}
	}

	// The entry Claude Code itself writes for the same server, in a home of its own.
	entry := claudeEntry(t, ours, root)
	mine, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	theirs := t.TempDir()
	run(theirs, claude, "mcp", "add-json", "luatool", string(mine))
	if want := claudeEntry(t, theirs, root); !reflect.DeepEqual(entry, want) {
		t.Errorf("luatool install wrote %v; claude mcp add-json writes %v", entry, want)
	}
}

// claudeEntry is the local scope's luatool entry of project in home's .claude.json.
func claudeEntry(t *testing.T, home, project string) map[string]any {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Projects map[string]struct {
			MCPServers map[string]map[string]any `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(doc, &file); err != nil {
		t.Fatal(err)
	}
	entry := file.Projects[project].MCPServers["luatool"]
	if entry == nil {
		t.Fatalf("no luatool entry for %s in %s/.claude.json:\n%s", project, home, doc)
	}
	return entry
}
