package tests

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/luatool/luatool"

// TestImportsPointDown guards the dependency direction of DESIGN.md: cmd and the CLI
// on top, then engine and hostmod, then bindings, with no package reaching up.
func TestImportsPointDown(t *testing.T) {
	// forbidden maps a package directory (prefix) to the module packages it must not import.
	forbidden := map[string][]string{
		"engine":             {"hostmod", "scripts", "internal/cli", "cmd"},
		"bindings":           {"engine", "hostmod", "scripts", "internal/cli", "cmd"},
		"hostmod":            {"engine", "scripts", "internal/cli", "cmd"},
		"scripts":            {"engine", "bindings", "hostmod", "internal/cli", "cmd"},
		"internal/jsonvalue": {"engine", "bindings", "hostmod", "scripts", "internal/cli", "cmd"},
		"internal/extdata":   {"engine", "bindings", "hostmod", "scripts", "internal/cli", "internal/jsonvalue", "cmd"},
	}
	imports := moduleImports(t, "..")
	if len(imports["engine"]) == 0 || len(imports["internal/cli"]) == 0 {
		t.Fatalf("found no imports for engine or internal/cli; is the test reading the right tree? got %v", imports)
	}
	for pkg, deps := range imports {
		if slices.Contains(deps, "internal/extdata") {
			t.Errorf("%s imports internal/extdata outside its tests: that package imports testing and is for tests only", pkg)
		}
		for prefix, bad := range forbidden {
			if pkg != prefix && !strings.HasPrefix(pkg, prefix+"/") {
				continue
			}
			for _, dep := range deps {
				for _, b := range bad {
					if dep == b || strings.HasPrefix(dep, b+"/") {
						t.Errorf("%s imports %s: imports must point down (see DESIGN.md)", pkg, dep)
					}
				}
			}
		}
	}
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
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module+"/") {
				out[rel] = append(out[rel], strings.TrimPrefix(p, module+"/"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
