package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mkdirs makes the directories under root.
func mkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
}

// writeFile writes a file, failing the test when it cannot.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestProtectedPaths: which paths are protected, under which names. Names are
// protected at any depth and without regard to case, trailing dots and spaces or an
// NTFS stream suffix; a path is judged under each of its forms, so a link, or a ".."
// after a link, that leads into a protected directory is protected; a directory
// holding HEAD, objects and refs is a git repository whatever its name; and the
// host's directories are protected under their own names and through links.
func TestProtectedPaths(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mkdirs(t, root, ".git/hooks", "sub", "tools", "vendor/emb/objects", "vendor/emb/refs", "vendor/plain/objects")
	writeFile(t, filepath.Join(root, "vendor/emb/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "vendor/plain/HEAD"), "not a repository: no refs\n")
	must(t, os.Symlink(filepath.Join(root, ".git", "hooks"), filepath.Join(root, "sub", "hooklink")))
	must(t, os.Symlink(filepath.Join(root, "tools"), filepath.Join(root, "sub", "toolslink")))
	must(t, os.Symlink("../.bashrc", filepath.Join(root, "sub", "rc")))
	// Links to directories not made yet, which a write through them creates.
	must(t, os.Symlink(".luatool", filepath.Join(root, "lt")))
	must(t, os.Symlink("../.claude", filepath.Join(root, "sub", "cl")))
	must(t, os.Symlink(filepath.Join(root, "nowhere", "deeper"), filepath.Join(root, "plainlink")))
	pr := Protected{Dirs: []ProtectedPath{{Path: filepath.Join(root, "tools"), Why: "a test's tool directory"}}}
	for _, tc := range []struct {
		path, want string // want: a substring of the reason; "" for not protected
	}{
		{".git/config", "core.fsmonitor"},
		{"a/b/.git/hooks/pre-commit", "core.fsmonitor"},
		{".GIT/config", "core.fsmonitor"},
		{".git./config", "core.fsmonitor"},
		{".git::$INDEX_ALLOCATION/config", "core.fsmonitor"},
		{".gitmodules", "submodules"},
		{"x/.bashrc", "bash runs .bashrc"},
		{".ZshRC", "zsh runs .zshrc"},
		{".envrc", "direnv"},
		{".vscode/tasks.json", "VS Code"},
		{".idea/workspace.xml", "JetBrains"},
		{".luatool/tools/x.lua", "luatool loads"},
		{".claude/settings.json", "Claude Code"},
		{".mcp.json", "MCP"},
		{".npmrc", "script-shell"},
		{"tools/pwn.lua", "a test's tool directory"},
		{"TOOLS/pwn.lua", "a test's tool directory"},
		{"tools/lib/util.lua", "a test's tool directory"},
		{"sub/toolslink/pwn.lua", "a test's tool directory"},
		{"sub/hooklink/pre-commit", "core.fsmonitor"},
		{"sub/hooklink/../config", "core.fsmonitor"}, // the kernel's "..": .git/config
		{"sub/rc", "bash runs .bashrc"},              // a link to a file not yet made
		{"lt/tools/evil.lua", "luatool loads"},       // through a link to a directory not yet made
		{"sub/cl/commands/e.md", "Claude Code"},
		{"plainlink/x.txt", ""},
		{"vendor/emb/config", "vendor/emb is a git repository"},
		{"vendor/emb/hooks/post-checkout", "vendor/emb is a git repository"},
		{"vendor/plain/config", ""},
		{"src/main.go", ""},
		{".gitignore", ""},
		{".github/workflows/ci.yml", ""},
		{"toolsmith/x.lua", ""},
		{"sub/../README.md", ""},
	} {
		got := pr.Why(root + "/" + tc.path)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestProtectedTrees: a write anywhere inside a directory is protected when the
// directory holds something protected (a protected name, a git repository, a
// directory of the host's) or is too large to look through.
func TestProtectedTrees(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mkdirs(t, root, "clean/a/b", "deep/x/y/.husky", "bare/objects", "bare/refs", "host/tools", "many")
	writeFile(t, filepath.Join(root, "clean/a/b/f.txt"), "f")
	writeFile(t, filepath.Join(root, "bare/HEAD"), "ref: refs/heads/main\n")
	for i := range 30 {
		writeFile(t, filepath.Join(root, "many", fmt.Sprint(i)), "")
	}
	pr := Protected{Dirs: []ProtectedPath{{Path: filepath.Join(root, "host/tools"), Why: "the host's"}}}
	for _, tc := range []struct{ dir, want string }{
		{"clean", ""},
		{"deep", "deep/x/y/.husky, inside it"},
		{".", "inside it"},
		{"host", "host/tools, inside it, is the host's"},
		{"bare", "bare is a git repository"},
		{"many", ""},
	} {
		if got := pr.WhyWithin(root + "/" + tc.dir); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.dir, got, tc.want)
		}
	}
	defer func(n int) { maxTreeScan = n }(maxTreeScan)
	maxTreeScan = 10
	if got := pr.WhyWithin(root + "/many"); !strings.Contains(got, "more than 10 files") {
		t.Errorf("a directory past the bound: %q", got)
	}
}
