package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// The doors of issue 26 that pass through Bash's read-only classifier (items 1, 4
// and 10), each reproduced against luatool's real Bash tool in default mode, with
// no permission rule and nobody to ask: a command runs only if Bash finds it
// read-only.

// bashEngine is an engine serving the standard tools confined to root, working in
// root, default mode, no rules; an ask is answered by ask (nil: nobody to ask, a
// refusal). sandbox chooses the kernel sandbox: without it, only the classifier
// stands between a command and what it would do, which is what these tests look at.
func bashEngine(t *testing.T, root string, sandbox bool, ask engine.CanUseToolFunc) *engine.Engine {
	t.Helper()
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root}, Shell: hostmod.ShellOptions{NoSandbox: !sandbox}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{
		Loaders:    []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Cwd:        root,
		Roots:      []string{root},
		Timeout:    time.Minute,
		CanUseTool: ask,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if diags := e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}); len(diags) > 0 {
		t.Fatalf("loading the standard tools: %v", diags)
	}
	return e
}

// runBash calls Bash with command on e in ctx's session and returns the result's
// text and whether the permission decision refused it.
func runBash(t *testing.T, ctx context.Context, e *engine.Engine, command string) (string, bool) {
	t.Helper()
	in, err := json.Marshal(map[string]any{"command": command, "timeout": 10000})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: "Bash", Input: in})
	var text strings.Builder
	for _, c := range r.Block.Content {
		text.WriteString(c.Text)
	}
	return text.String(), strings.HasPrefix(text.String(), "Permission to use Bash")
}

// git runs git in dir for a fixture, with fixed identities and dates.
func fixtureGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=Fixture",
		"GIT_AUTHOR_EMAIL=fixture@example.com", "GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com",
		"GIT_AUTHOR_DATE=2024-01-01T10:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T10:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// writeFiles writes files (relative name: text) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// classifierBox builds the fixture of the comparison with Claude Code (the
// oracle's classify.py builds the same): box/ws a git repository with two commits
// on main and a branch feature, work-tree changes, secrets/, lists of files, links
// sub/outlink and sub/outdir leading out to box/outside. It returns box.
func classifierBox(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the fixture needs git")
	}
	box := t.TempDir()
	ws := filepath.Join(box, "ws")
	writeFiles(t, box, map[string]string{"outside/outside.txt": "outside the root\n"})
	writeFiles(t, ws, map[string]string{
		"a.txt":               "hello world\nsecond line\nHello again\nlast line\n",
		"notes.md":            "# Notes\n\nTODO: write docs\npassword: none here\nTODO: add tests\n",
		"main.go":             "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
		"sub/util.go":         "package sub\n\nfunc Util() string {\n\treturn \"util\"\n}\n",
		"sub/nested/deep.txt": "deep file\nhello from deep\n",
		"data.json":           "{\"name\": \"fixture\", \"items\": [1, 2, 3]}\n",
		"secrets/key.txt":     "SECRET-KEY-0123456789\n",
		"script.sh":           "#!/bin/sh\ntouch pwned-by-script\necho script ran\n",
		"prog.awk":            "BEGIN { system(\"touch pwned-by-awk\") }\n{ print }\n",
		"edit.sed":            "w sed-out.txt\n",
		"list.txt":            "a.txt\nb.txt\n",
		"list0.txt":           "a.txt\x00b.txt\x00",
		"outlist.txt":         "../outside/outside.txt\n",
		"outlist0.txt":        "../outside/outside.txt\x00",
		".gitignore":          "*.log\n",
	})
	for _, l := range [][2]string{{"../../outside/outside.txt", "sub/outlink"}, {"../../outside", "sub/outdir"}} {
		if err := os.Symlink(l[0], filepath.Join(ws, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	fixtureGit(t, ws, "init", "-q", "-b", "main")
	fixtureGit(t, ws, "add", "-A")
	fixtureGit(t, ws, "commit", "-q", "-m", "initial files")
	fixtureGit(t, ws, "branch", "feature")
	writeFiles(t, ws, map[string]string{
		"b.txt":   "hello world\nsecond line changed\nHello again\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n\nfunc helper() int {\n\treturn 42\n}\n",
	})
	fixtureGit(t, ws, "add", "-A")
	fixtureGit(t, ws, "commit", "-q", "-m", "add b.txt and a helper to delete later")
	writeFiles(t, ws, map[string]string{
		"notes.md":      "# Notes\n\nTODO: write docs\npassword: none here\nTODO: add tests\ndraft line\n",
		"untracked.txt": "not tracked\n",
	})
	return box
}

// TestDoor1ReadOnlyByConstruction: commands that read as read-only by their option
// names but write, run a program or read outside the root through an abbreviation,
// an option value, a subscript bash evaluates, a link or an expansion are refused;
// run without the kernel sandbox, none of them leaves its mark, and what they would
// print from outside the root is not printed. Everyday reads still run.
func TestDoor1ReadOnlyByConstruction(t *testing.T) {
	box := classifierBox(t)
	ws := filepath.Join(box, "ws")
	e := bashEngine(t, ws, false, nil)
	for _, cmd := range []string{
		"sed --expr='1e touch m1' p - <<< x",
		"sed --ex='1e touch m1' a.txt",
		"git grep --open-files='touch m2' -l hello",
		"git grep --op='touch m2' -l hello",
		"test -v 'a[$(touch m3)]'",
		"[ -v 'a[$(touch m4)]' ]",
		"[[ 'a[$(touch m5)]' -eq 0 ]]",
		"printf '%d' 'a[$(touch m6)]'",
		"sort --out=m7 a.txt",
		"git diff --out=m8",
		"sed --in=.bak -e 's/hello/m9/' a.txt",
		"timeout 5 touch m10",
		"env touch m11",
		"cat list.txt | xargs touch m12",
		"date --se='not-a-date'",
		"cat sub/outdir/../outside/outside.txt",
		"cat sub/outlink",
		"cat {a,sub/outlink}.txt",
		"sort --files0-from=outlist0.txt",
		"file -f outlist.txt",
		"xargs -a outlist.txt cat",
		"grep -R 'outside the root' sub",
		"ls sub/*/",
	} {
		out, refused := runBash(t, context.Background(), e, cmd)
		if !refused {
			t.Errorf("%q ran unasked: %s", cmd, out)
		}
		if !refused && strings.Contains(out, "outside the root") {
			t.Errorf("%q printed the file outside the root: %s", cmd, out)
		}
	}
	for i := 1; i <= 12; i++ {
		if _, err := os.Stat(filepath.Join(ws, fmt.Sprintf("m%d", i))); err == nil {
			t.Errorf("m%d was made", i)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); strings.Contains(string(b), "m9") {
		t.Error("sed --in edited a.txt")
	}
	for _, cmd := range []string{"sed -n '1p' a.txt", "git log --oneline -1", "ls *.txt", "cat a.txt | sort | uniq -c"} {
		if out, refused := runBash(t, context.Background(), e, cmd); refused {
			t.Errorf("%q was refused: %s", cmd, out)
		}
	}
}

// TestDoor4GitConfigRunsNoProgram: a committed bare repository whose configuration
// names an external diff, reached by a cd in one call and git in the next, and a
// .git/config naming an fsmonitor hook, do not run their programs unasked: the
// calls are refused and the marker files are not made. The classifier judges the
// git call in the directory the first call left, for the permission decision and
// for isConcurrencySafe alike.
func TestDoor4GitConfigRunsNoProgram(t *testing.T) {
	box := classifierBox(t)
	ws := filepath.Join(box, "ws")
	emb := filepath.Join(ws, "vendor", "emb")
	fixtureGit(t, ws, "init", "-q", "--bare", "-b", "main", emb)
	fixtureGit(t, ws, "push", "-q", emb, "main")
	marker := filepath.Join(box, "marker-diff")
	writeFiles(t, ws, map[string]string{"mark-diff.sh": "#!/bin/sh\ntouch " + marker + "\n"})
	fixtureGit(t, emb, "config", "diff.external", filepath.Join(ws, "mark-diff.sh"))

	e := bashEngine(t, ws, false, nil)
	ctx := engine.WithPrincipal(context.Background(), engine.Principal{Session: "door4"})
	if out, refused := runBash(t, ctx, e, "cd vendor/emb"); refused {
		t.Fatalf("cd vendor/emb was refused: %s", out)
	}
	in, _ := json.Marshal(map[string]any{"command": "git diff HEAD~1 HEAD"})
	if e.Prepare(ctx, engine.ToolUse{ID: "toolu_2", Name: "Bash", Input: in}).ConcurrencySafe(ctx) {
		t.Error("git diff HEAD~1 HEAD after cd vendor/emb is concurrency-safe (judged in the root, not where it runs)")
	}
	if out, refused := runBash(t, ctx, e, "git diff HEAD~1 HEAD"); !refused {
		t.Errorf("git diff in the committed bare repository ran unasked: %s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the bare repository's diff.external ran")
	}

	// The root's own repository, whose .git/config an edit made to run an fsmonitor
	// hook on git status.
	hookMarker := filepath.Join(box, "marker-fsmonitor")
	writeFiles(t, ws, map[string]string{"mark-fs.sh": "#!/bin/sh\ntouch " + hookMarker + "\n"})
	fixtureGit(t, ws, "config", "core.fsmonitor", filepath.Join(ws, "mark-fs.sh"))
	fresh := engine.WithPrincipal(context.Background(), engine.Principal{Session: "door4-fsmonitor"})
	if out, refused := runBash(t, fresh, e, "git status"); !refused {
		t.Errorf("git status with core.fsmonitor ran unasked: %s", out)
	}
	if _, err := os.Stat(hookMarker); err == nil {
		t.Error("the fsmonitor hook ran")
	}
}

// maxRefusedThatClaudeCodeRuns is R, the commands of the comparison luatool
// refuses and Claude Code runs, as measured when the list was last recorded (920
// commands, Claude Code 2.1.328; main at 1bc2b8d refused 135 and ran 98 the
// original refuses): a higher count fails. docs/classifier.md says why each that
// remains is refused. Without the kernel sandbox xargs is not read-only, and its
// commands are not counted.
const maxRefusedThatClaudeCodeRuns = 39

// TestDoor10AgainstTheOriginal classifies every command of
// testdata/classifier/commands.json with luatool's Bash tool (default mode, no
// rule, nobody to ask, the oracle's fixture, a session of its own each) and
// compares with Claude Code's recorded answers (testdata/classifier/cc-answers.json,
// from /work/shared/cc-oracle/classifier/run.sh): no command Claude Code refuses
// may run, and no more than maxRefusedThatClaudeCodeRuns that it runs may be
// refused.
func TestDoor10AgainstTheOriginal(t *testing.T) {
	var commands []string
	readJSON(t, "testdata/classifier/commands.json", &commands)
	var cache struct {
		Version string `json:"cc_version"`
		Answers map[string]struct {
			Verdict string `json:"verdict"`
		} `json:"answers"`
	}
	readJSON(t, "testdata/classifier/cc-answers.json", &cache)
	box := classifierBox(t)
	ws := filepath.Join(box, "ws")
	e := bashEngine(t, ws, true, nil)

	type verdict struct {
		cmd     string
		refused bool
		out     string
	}
	results := make([]verdict, len(commands))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cmd := strings.ReplaceAll(strings.ReplaceAll(commands[i], "<WS>", ws), "<BOX>", box)
				ctx := engine.WithPrincipal(context.Background(), engine.Principal{Session: fmt.Sprint("door10-", i)})
				out, refused := runBash(t, ctx, e, cmd)
				results[i] = verdict{commands[i], refused, out}
			}
		}()
	}
	for i := range commands {
		next <- i
	}
	close(next)
	wg.Wait()

	_, noSandbox := confine.Landlock()
	var dangerous, annoying []string
	for _, r := range results {
		a, ok := cache.Answers[r.cmd]
		if !ok || a.Verdict != "ran" && a.Verdict != "refused" {
			t.Errorf("no answer of Claude Code's for %q: record it with the oracle's run.sh", r.cmd)
			continue
		}
		switch {
		case a.Verdict == "refused" && !r.refused:
			dangerous = append(dangerous, fmt.Sprintf("%q ran: %.200s", r.cmd, r.out))
		case a.Verdict == "ran" && r.refused && (noSandbox == nil || !strings.Contains(r.cmd, "xargs")):
			annoying = append(annoying, r.cmd)
		}
	}
	sort.Strings(annoying)
	for _, d := range dangerous {
		t.Errorf("luatool runs what Claude Code %s refuses: %s", cache.Version, d)
	}
	if len(annoying) > maxRefusedThatClaudeCodeRuns {
		t.Errorf("luatool refuses %d commands Claude Code runs, more than %d:\n%s", len(annoying),
			maxRefusedThatClaudeCodeRuns, strings.Join(annoying, "\n"))
	}
	t.Logf("%d commands; luatool runs what Claude Code refuses: %d; luatool refuses what Claude Code runs: %d:\n%s",
		len(commands), len(dangerous), len(annoying), strings.Join(annoying, "\n"))
}

// readJSON decodes the JSON file path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
