package tests

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/luatool/luatool"

// rootPackage is how the module's root package (import path module) is named among
// the others, which go by their directory: by its package name.
const rootPackage = "luatool"

// modulePackage returns the name of a package of the module by its import path: its
// directory within the module, or rootPackage; false for a package of another
// module.
func modulePackage(importPath string) (string, bool) {
	if importPath == module {
		return rootPackage, true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// TestImportsPointDown guards the dependency direction of DESIGN.md: cmd, the root
// package (the host API of the common case) and the CLI on top; then the Lua loader
// and test runner, the settings files, prompts and resources and MCP serving over
// the engine; then the engine, which knows no Lua, and hostmod; then the engine's
// seams (schema, rules, hooks, env, diag), which import neither the engine nor Lua;
// then bindings; then the leaves. No package reaches up.
func TestImportsPointDown(t *testing.T) {
	// overEngine are the packages above the engine, which its seams must not import.
	overEngine := []string{"engine", "engine/settings", "engine/feature", "engine/luaload", "engine/luatest", "engine/codemode", "engine/apischema", "engine/mcpserver"}
	seam := append([]string{"bindings/...", "builtin/..."}, overEngine...)
	// enginePackages are the engine, its seams and the packages over it: the Lua VM
	// and the modules Lua tools require import none of them.
	enginePackages := append([]string{"engine/schema", "engine/rules", "engine/hooks", "engine/env", "engine/diag"}, overEngine...)
	// forbidden maps a package pattern to the module packages it must not import
	// ("..." is every package of the module). A pattern is a package directory, or
	// a directory and its subpackages ("x/...").
	forbidden := map[string][]string{
		"engine":                   {"bindings/...", "builtin/...", "scripts/...", "cmd/..."},
		"engine/...":               {"builtin/hostmod", "builtin/confine/...", "scripts/...", "cmd/...", rootPackage},
		"engine/schema":            seam,
		"engine/rules":             seam,
		"engine/hooks":             seam,
		"engine/env":               seam,
		"engine/diag":              seam,
		"engine/settings":          {"bindings/...", "engine/luaload"},
		"engine/feature":           {"bindings/...", "engine/luaload"},
		"engine/apischema":         {"bindings/...", "engine/luaload"},
		"engine/mcpserver":         {"bindings/...", "engine/luaload"},
		"bindings/...":             append([]string{"builtin/...", "scripts/...", "cmd/...", rootPackage}, enginePackages...),
		"builtin/...":              append([]string{"scripts/...", "cmd/...", rootPackage}, enginePackages...),
		"builtin/puremod/...":      {"builtin/hostmod", "builtin/confine/..."},
		"builtin/confine":          {"..."},
		"scripts/...":              {"..."},
		"engine/srcpos/...":        {"..."},
		"engine/netpolicy/...":     {"..."},
		"session/filestate/...":    {"..."},
		"internal/...":             {"..."},
		"cmd/luatool/internal/...": {"cmd/luatool"},
	}
	imports := moduleImports(t, "..")
	for _, pkg := range []string{"engine", "engine/luaload", "engine/settings", "cmd/luatool/internal/cli"} {
		if len(imports[pkg]) == 0 {
			t.Fatalf("found no imports for %s; is the test reading the right tree? got %v", pkg, imports)
		}
	}
	if !slices.Contains(imports["engine/luaload"], "engine") || !slices.Contains(imports["engine/luaload"], "bindings") {
		t.Fatalf("engine/luaload imports %v, not engine and bindings: is the test reading the right tree?", imports["engine/luaload"])
	}
	for pkg, deps := range imports {
		// internal/extdata imports testing: it is for tests and the helper packages of
		// tests (redistest) only.
		if slices.Contains(deps, "internal/extdata") && pkg != "session/redisstore/redistest" {
			t.Errorf("%s imports internal/extdata outside its tests: that package imports testing and is for tests and their helper packages only", pkg)
		}
		for pattern, bad := range forbidden {
			if !matchPackage(pattern, pkg) {
				continue
			}
			for _, dep := range deps {
				for _, b := range bad {
					if b == "..." || matchPackage(b, dep) {
						t.Errorf("%s imports %s: imports must point down (see DESIGN.md)", pkg, dep)
					}
				}
			}
		}
	}
}

// TestEngineKnowsNoLua guards what the import rules above cannot see: that nothing
// the engine depends on, directly or through other packages (of the module or not),
// is the Lua VM. The language-agnostic packages over the engine are held to the same.
func TestEngineKnowsNoLua(t *testing.T) {
	const lua = "github.com/yuin/gopher-lua"
	// The Lua loader depends on the VM: seeing it there shows the check can fail.
	if !slices.Contains(packageDeps(t, "engine/luaload"), lua) {
		t.Fatalf("go list -deps ./engine/luaload does not list %s: the check would prove nothing", lua)
	}
	for _, pkg := range []string{"engine", "engine/schema", "engine/rules", "engine/hooks", "engine/env", "engine/diag", "engine/settings", "engine/feature", "engine/apischema", "engine/mcpserver"} {
		deps := packageDeps(t, pkg)
		if !slices.Contains(deps, module+"/"+pkg) {
			t.Fatalf("go list -deps ./%s does not list the package itself: %q", pkg, deps)
		}
		var vm []string
		for _, d := range deps {
			if d == lua || strings.HasPrefix(d, lua+"/") {
				vm = append(vm, d)
			}
		}
		if len(vm) > 0 {
			t.Errorf("%s depends on %s (see go list -deps ./%s): the engine knows no Lua, tool files enter through a Loader (see DESIGN.md)", pkg, strings.Join(vm, ", "), pkg)
		}
	}
}

// packageDeps returns the import paths of a module package (a directory relative to
// the module root) and of everything it depends on, tests left out, as go list -deps
// gives them.
func packageDeps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg)
	cmd.Dir = ".."
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v\n%s", pkg, err, stderr.String())
	}
	return strings.Fields(string(out))
}

// matchPackage reports whether a package directory is matched by a pattern: the
// directory itself, or, for "dir/...", the directory or any under it.
func matchPackage(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

// moduleImports returns, for each package directory under root, the module packages
// its non-test files import (relative to the module path).
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = rootPackage
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if d, ok := modulePackage(p); ok {
				out[rel] = append(out[rel], d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
