package engine

import (
	"context"
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
	pr := protector{dirs: []ProtectedPath{{Path: filepath.Join(root, "tools"), Why: "a test's tool directory"}}}
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
		{"vendor/emb/config", "vendor/emb is a git repository"},
		{"vendor/emb/hooks/post-checkout", "vendor/emb is a git repository"},
		{"vendor/plain/config", ""},
		{"src/main.go", ""},
		{".gitignore", ""},
		{".github/workflows/ci.yml", ""},
		{"toolsmith/x.lua", ""},
		{"sub/../README.md", ""},
	} {
		got := pr.path(root + "/" + tc.path)
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
	pr := protector{dirs: []ProtectedPath{{Path: filepath.Join(root, "host/tools"), Why: "the host's"}}}
	for _, tc := range []struct{ dir, want string }{
		{"clean", ""},
		{"deep", "deep/x/y/.husky, inside it"},
		{".", "inside it"},
		{"host", "host/tools, inside it, is the host's"},
		{"bare", "bare is a git repository"},
		{"many", ""},
	} {
		if got := pr.tree(root + "/" + tc.dir); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.dir, got, tc.want)
		}
	}
	defer func(n int) { maxTreeScan = n }(maxTreeScan)
	maxTreeScan = 10
	if got := pr.tree(root + "/many"); !strings.Contains(got, "more than 10 files") {
		t.Errorf("a directory past the bound: %q", got)
	}
}

// protectedTool writes the path its input names; read-only when the input says so.
func protectedTool(name string) ToolDef {
	return ToolDef{
		Name:        name,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "ro": map[string]any{"type": "boolean"}}},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		IsReadOnly:  func(_ context.Context, in map[string]any) (bool, error) { return in["ro"] == true, nil },
		GetPath: func(_ context.Context, in map[string]any) (string, error) {
			p, _ := in["path"].(string)
			return p, nil
		},
		CheckPermissions: func(context.Context, map[string]any, *CallContext) (PermissionResult, error) {
			return PermissionResult{Behavior: Allow}, nil
		},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ran"}, nil
		},
	}
}

// TestSafetyCheckBeatsModesAndAllows: a call that writes a protected path asks a
// person, whatever acceptEdits, bypassPermissions, allow rules, the tool's own allow
// or a hook's allow say (the original's step 1g); the ask offers no rule and keeps
// none; without anyone to ask, or in dontAsk mode, it is denied with the reason. A
// deny rule and plan mode still come first, a read-only call is not checked, and a
// tool's own safety check asks the same way.
func TestSafetyCheckBeatsModesAndAllows(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mkdirs(t, root, ".git")
	gitConfig := filepath.Join(root, ".git", "config")
	in := func(path string, readOnly bool) []byte {
		return fmt.Appendf(nil, `{"path": %q, "ro": %v}`, path, readOnly)
	}
	selfCheck := ToolDef{
		Name:        "Shellish",
		InputSchema: map[string]any{"type": "object"},
		Prompt:      func(context.Context, PromptOptions) (string, error) { return "p", nil },
		CheckPermissions: func(_ context.Context, _ map[string]any, cc *CallContext) (PermissionResult, error) {
			why := cc.Protected(gitConfig)
			return PermissionResult{Behavior: Ask, Message: "Shellish writes .git/config.", SafetyCheck: why}, nil
		},
		Call: func(context.Context, map[string]any, *CallContext) (*ToolResult, error) {
			return &ToolResult{Data: "ran"}, nil
		},
	}
	allowHook := decides(PreToolUse, "", "allow", HookDecision{Permission: Allow})
	for _, tc := range []struct {
		name    string
		mode    Mode
		allow   []string
		deny    []string
		hooks   []Hook
		tool    string
		input   []byte
		answer  bool   // a CanUseTool answers yes
		want    string // "ran", "asked", or a substring of the refusal
		protect bool   // the ask is the safety check's
	}{
		{"acceptEdits asks", ModeAcceptEdits, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"bypassPermissions asks", ModeBypassPermissions, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a broad allow rule asks", ModeDefault, []string{"Edit(**)"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"an exact allow rule asks", ModeDefault, []string{"Edit(//" + strings.TrimPrefix(gitConfig, "/") + ")"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a tool-level allow rule asks", ModeDefault, []string{"Edit"}, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"a hook's allow asks", ModeDefault, nil, nil, []Hook{allowHook}, "Edit", in(gitConfig, false), true, "asked", true},
		{"an ask rule's ask is the safety check's", ModeDefault, nil, nil, nil, "Edit", in(gitConfig, false), true, "asked", true},
		{"no one to ask denies with the reason", ModeBypassPermissions, nil, nil, nil, "Edit", in(gitConfig, false), false, "core.fsmonitor", false},
		{"dontAsk denies with the reason", ModeDontAsk, []string{"Edit"}, nil, nil, "Edit", in(gitConfig, false), true, "dontAsk mode, which refuses whatever would need approval. Edit wants to write " + gitConfig, false},
		{"a deny rule comes first", ModeBypassPermissions, nil, []string{"Edit(//" + strings.TrimPrefix(gitConfig, "/") + ")"}, nil, "Edit", in(gitConfig, false), true, "denied by the rule", false},
		{"plan mode comes first", ModePlan, nil, nil, nil, "Edit", in(gitConfig, false), true, "plan mode", false},
		{"a read-only call is not checked", ModeDefault, nil, nil, nil, "Edit", in(gitConfig, true), true, "ran", false},
		{"a path that is not protected is left to the mode", ModeAcceptEdits, nil, nil, nil, "Edit", in(filepath.Join(root, "main.go"), false), true, "ran", false},
		{"a relative path is judged from the cwd", ModeBypassPermissions, nil, nil, nil, "Edit", in(".git/config", false), true, "asked", true},
		{"no path: what is written cannot be told", ModeBypassPermissions, nil, nil, nil, "Edit", in("", false), true, "asked", true},
		{"the tool's own safety check asks in bypass", ModeBypassPermissions, []string{"Shellish"}, nil, nil, "Shellish", []byte(`{}`), true, "asked", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asks []PermissionRequest
			opts := Options{
				Cwd: root, Mode: tc.mode, Tools: []ToolDef{protectedTool("Edit"), selfCheck}, Hooks: tc.hooks,
				Permissions: PermissionSettings{Allow: rules(tc.allow...), Deny: rules(tc.deny...)},
			}
			if tc.name == "an ask rule's ask is the safety check's" {
				opts.Permissions.Ask = rules("Edit")
			}
			if tc.answer {
				opts.CanUseTool = func(_ context.Context, req PermissionRequest) (PermissionDecision, error) {
					asks = append(asks, req)
					return PermissionDecision{Behavior: Allow, AddRules: []string{"Edit"}}, nil
				}
			}
			e := newTestEngine(t, opts)
			r := e.Call(bg, ToolUse{ID: "1", Name: tc.tool, Input: tc.input})
			got := r.Block.Content.String()
			switch tc.want {
			case "ran":
				if len(asks) > 0 || got != "ran" {
					t.Fatalf("asked %d times, %q; want it to run unasked", len(asks), got)
				}
			case "asked":
				if len(asks) != 1 || got != "ran" {
					t.Fatalf("asked %d times, %q; want one ask", len(asks), got)
				}
			default:
				if len(asks) > 0 || !r.Block.IsError || !strings.Contains(got, tc.want) {
					t.Fatalf("asked %d times, %q; want a refusal containing %q", len(asks), got, tc.want)
				}
			}
			if len(asks) == 1 {
				req := asks[0]
				if req.Protected != tc.protect || tc.protect && (len(req.Suggestions) > 0 || !strings.Contains(req.Message, "Only a person can approve this")) {
					t.Errorf("the ask: protected %v, suggestions %q, message %q", req.Protected, req.Suggestions, req.Message)
				}
			}
			if tc.protect {
				// The "always" answer was not kept: the next call asks again.
				asks = nil
				e.Call(bg, ToolUse{ID: "2", Name: tc.tool, Input: tc.input})
				if len(asks) != 1 {
					t.Errorf("the second call asked %d times; an answer's rules must not let a protected write through", len(asks))
				}
			}
		})
	}
}

// TestLoadedDirectoriesAreProtected: the directories Load reads tools from are
// protected without the host naming them, and Options.Protected must be absolute.
func TestLoadedDirectoriesAreProtected(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mkdirs(t, root, "mytools")
	e := newTestEngine(t, Options{Cwd: root, Mode: ModeBypassPermissions, Tools: []ToolDef{protectedTool("Edit")}})
	e.Load(DirSource(filepath.Join(root, "mytools")))
	r := e.Call(bg, ToolUse{ID: "1", Name: "Edit", Input: fmt.Appendf(nil, `{"path": %q}`, filepath.Join(root, "mytools", "pwn.lua"))})
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "a directory luatool loads tools from") {
		t.Errorf("a write into a loaded tool directory: %q", r.Block.Content.String())
	}
	if _, err := New(Options{Cwd: root, Protected: []ProtectedPath{{Path: "tools", Why: "x"}}}); err == nil || !strings.Contains(err.Error(), `"tools" is not an absolute path`) {
		t.Errorf("a relative protected path: %v", err)
	}
}
