package hostmod

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestParseGitConfig: git's configuration syntax, read as git reads it: sections
// and subsections, keys alone or with values, quotes, escapes, continuations,
// comments, and a key on a section header's line; what git rejects is an error.
func TestParseGitConfig(t *testing.T) {
	text := "\xef\xbb\xbf# comment\n[core]\n\tbare = false\n\tFSMonitor = \"/x y\" ; comment\n" +
		"[diff \"Evil\"] textconv = sh -c \\\"id\\\" # inline\n" +
		"[Pager.Sub]\n\tlog\n[alias]\n\tx = a\\\n  b\n\tq = \"a;b\" \n"
	got, err := parseGitConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []gitConfigEntry{
		{section: "core", key: "bare", value: "false"},
		{section: "core", key: "fsmonitor", value: "/x y"},
		{section: "diff", subsection: "Evil", key: "textconv", value: `sh -c "id"`},
		{section: "pager", subsection: "sub", key: "log", implicit: true},
		{section: "alias", key: "x", value: "a  b"},
		{section: "alias", key: "q", value: "a;b"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", got, want)
	}
	for _, bad := range []string{"key = x\n", "[core\n", "[core]\n\t=x\n", "[core]\n\tk = \"open\n", "[core]\n\tk = \\q\n",
		"[a \"b]\n", "[a \"b\" ]\n", "[core]\n\t1k = x\n"} {
		if _, err := parseGitConfig([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestGitKeysThatRunPrograms: the keys of a repository's configuration that could
// make a read-only git command run a program, and some that cannot.
func TestGitKeysThatRunPrograms(t *testing.T) {
	runs := map[string]bool{
		"[core]\nfsmonitor = ./hook\n": true, "[core]\nfsmonitor = true\n": true, "[core]\nfsmonitor\n": true,
		"[core]\nfsmonitor = false\n": false, "[core]\nusebuiltinfsmonitor = yes\n": true,
		"[core]\npager = less -R | sh\n": true, "[core]\npager = cat\n": false, "[pager]\nlog = sh\n": true,
		"[pager]\nlog = false\n": false, "[diff]\nexternal = x\n": true, "[diff \"d\"]\ntextconv = x\n": true,
		"[diff \"d\"]\ncommand = x\n": true, "[diff \"d\"]\nxfuncname = x\n": false, "[filter \"f\"]\nclean = x\n": true,
		"[filter \"f\"]\nsmudge = x\n": true, "[filter \"f\"]\nprocess = x\n": true, "[gpg]\nprogram = x\n": true,
		"[gpg \"ssh\"]\nprogram = x\n": true, "[log]\nshowSignature = true\n": true, "[log]\nshowsignature = false\n": false,
		"[core]\nsshCommand = x\n": true, "[include]\npath = x\n": true, "[includeIf \"gitdir:/\"]\npath = x\n": true,
		"[credential]\nhelper = x\n": true, "[remote \"o\"]\nurl = ext::sh -c id\n": true,
		"[remote \"o\"]\nurl = https://example.com/x\n": false, "[merge \"m\"]\ndriver = x\n": true,
		"[core]\neditor = x\n": true, "[user]\nname = x\n": false, "[http]\nproxy = http://x\n": false,
		"[color]\nui = auto\n": false, "[submodule \"s\"]\nupdate = !sh\n": true, "[core]\nhooksPath = .husky\n": false,
	}
	for text, want := range runs {
		entries, err := parseGitConfig([]byte(text))
		if err != nil || len(entries) != 1 {
			t.Fatalf("%q: %v %v", text, entries, err)
		}
		if got := gitKeyRuns(entries[0]) != ""; got != want {
			t.Errorf("%q: runs a program %v, want %v", text, got, want)
		}
	}
}

// gitIn runs git in dir, failing the test on an error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// gitFixture makes a repository with two commits in a new root and returns the root.
func gitFixture(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	gitIn(t, root, "init", "-q", "-b", "main")
	for i, text := range []string{"one\n", "two\n"} {
		if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, root, "add", "a.txt")
		gitIn(t, root, "commit", "-q", "-m", string(rune('a'+i)))
	}
	return root
}

// TestGitRepositoryCheck: a git command is read-only only when the repository git
// would use from its directory is inside the roots and can run no program: not one
// whose configuration names one (in its config, a worktree config or a submodule's),
// not a bare repository found by discovery, not one reached through a .git file
// whose target sets one, not one borrowing objects from outside.
func TestGitRepositoryCheck(t *testing.T) {
	root := gitFixture(t)
	rs, err := newRootSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	verdict := func(cwd string) commandVerdict {
		v, _ := rs.classifyCommand("git diff HEAD~1 HEAD", cwd, nil, true)
		return v
	}
	if v := verdict(""); v != commandReadOnly {
		t.Fatalf("a plain repository: %v", v)
	}
	// A committed bare repository, found by discovery from its own directory.
	emb := filepath.Join(root, "vendor", "emb")
	gitIn(t, root, "init", "-q", "--bare", emb)
	if v := verdict(emb); v != commandWrites {
		t.Errorf("in an implicit bare repository: %v, want writes", v)
	}
	if v := verdict(filepath.Join(root, "vendor")); v != commandReadOnly {
		t.Errorf("beside it (the root's repository): %v", v)
	}
	// A .git file leading to a directory whose configuration runs a program.
	evil := filepath.Join(root, "evil-gitdir")
	gitIn(t, root, "init", "-q", "--bare", evil)
	gitIn(t, evil, "config", "diff.external", "./x")
	linked := filepath.Join(root, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: ../evil-gitdir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := verdict(linked); v != commandWrites {
		t.Errorf("through a .git file to diff.external: %v, want writes", v)
	}
	dotgit := filepath.Join(root, ".git")
	for _, tc := range []struct {
		file, text string
		want       commandVerdict
	}{
		{"config", "[core]\n\tfsmonitor = ./hook\n", commandWrites},
		{"config", "[diff \"x\"]\n\ttextconv = ./x\n", commandWrites},
		{"config", "[include]\n\tpath = other\n", commandWrites},
		{"config", "[core]\n\tworktree = /\n", commandWrites}, // a work tree outside the roots
		{"config", "[core\n", commandWrites},                  // cannot be checked
		{"config.worktree", "[core]\n\tpager = ./x\n", commandWrites},
		{"modules/sub/config", "[core]\n\tfsmonitor = ./hook\n", commandWrites},
		{"objects/info/alternates", "/usr/share\n", commandOutside},
		{"hooks/post-index-change", "#!/bin/sh\n", commandWrites},
	} {
		p := filepath.Join(dotgit, tc.file)
		old, _ := os.ReadFile(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(old, tc.text...), 0o644); err != nil {
			t.Fatal(err)
		}
		if v := verdict(""); v != tc.want {
			t.Errorf("%s with %q: %v, want %v", tc.file, tc.text, v, tc.want)
		}
		if old == nil {
			err = os.Remove(p)
		} else {
			err = os.WriteFile(p, old, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A repository above the roots is read outside them.
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inner, err := newRootSet([]string{sub})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := inner.classifyCommand("git status", "", nil, true); v != commandOutside {
		t.Errorf("a root inside a repository: %v, want outside", v)
	}
}

// TestReadOnlyEnvironSwitchesOffGit: with a read-only call's environment, git does
// not run the fsmonitor hook or the pager a repository's configuration names, which
// it runs without (so the test would see it if the environment stopped working).
func TestReadOnlyEnvironSwitchesOffGit(t *testing.T) {
	root := gitFixture(t)
	marker := filepath.Join(root, "marker")
	hook := filepath.Join(root, "hook.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "config", "core.fsmonitor", hook)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(env []string) bool {
		t.Helper()
		cmd := exec.Command("git", "status", "--short")
		cmd.Dir, cmd.Env = root, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git status: %v\n%s", err, out)
		}
		_, err := os.Stat(marker)
		os.Remove(marker)
		return err == nil
	}
	base := ShellOptions{}.Environ(t.TempDir())
	if !run(base) {
		t.Fatal("git status did not run the fsmonitor hook at all: the test proves nothing")
	}
	passed := append(slices.Clone(base), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0="+hook)
	if run(readOnlyEnviron(passed)) {
		t.Error("git status ran the fsmonitor hook with a read-only call's environment")
	}
}
