package tests

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// leafPackages may be imported by any package: the Architecture table leaves them out.
var leafPackages = []string{"srcpos", "filestate", "internal/spell", "internal/jsonvalue", "internal/dirlock", "internal/callctx", "internal/groupwrite", "internal/syncbuf", "internal/nameshape", "internal/gitdir"}

// TestArchitectureTable checks the README's Architecture table against the code:
// every package of the module has a row (but the tests' and bench/'s programs, which
// measure and check luatool and are no part of it), and the module packages each one imports
// (leaving out the shared leaf packages) are exactly those its row lists.
func TestArchitectureTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "## Architecture"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal("README.md has no Architecture section")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|[^|]*\\|([^|]*)\\|$")
	documented := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		var deps []string
		for _, d := range regexp.MustCompile("`([a-z/]+)`").FindAllStringSubmatch(m[2], -1) {
			deps = append(deps, d[1])
		}
		sort.Strings(deps)
		documented[m[1]] = deps
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module+"/")
		if !ok || pkg == "tests" || strings.HasPrefix(pkg, "tests/") || strings.HasPrefix(pkg, "bench/") || slices.Contains(leafPackages, pkg) {
			continue
		}
		var deps []string
		for _, imp := range fields[1:] {
			if d, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(leafPackages, d) {
				deps = append(deps, d)
			}
		}
		sort.Strings(deps)
		want, ok := documented[pkg]
		if !ok {
			t.Errorf("package %s has no row in README.md's Architecture table", pkg)
			continue
		}
		if !slices.Equal(deps, want) {
			t.Errorf("package %s imports %v; the Architecture table says %v", pkg, deps, want)
		}
		delete(documented, pkg)
	}
	for pkg := range documented {
		t.Errorf("README.md's Architecture table has a row for %s, which is not a package", pkg)
	}
}
