package tests

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

// architectureDoc is the project's record of what is built.
const architectureDoc = "../docs/architecture.md"

// A layerRow is a package's row in the architecture document's Layers table.
type layerRow struct {
	layer   int
	imports []string
}

// architectureLayers reads the Layers section of the architecture document: the
// rows of its table, and the leaf packages its text names before the table.
func architectureLayers(t *testing.T) (rows map[string]layerRow, leaves []string) {
	t.Helper()
	doc, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	i := strings.Index(section, "\n## Layers\n")
	if i < 0 {
		t.Fatalf("%s has no Layers section", architectureDoc)
	}
	section = section[i+1:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	table := strings.Index(section, "\n| package |")
	if table < 0 {
		t.Fatalf("%s's Layers section has no table", architectureDoc)
	}
	name := regexp.MustCompile("`([a-z][a-z/]*)`")
	for _, m := range name.FindAllStringSubmatch(section[:table], -1) {
		leaves = append(leaves, m[1])
	}
	rows = map[string]layerRow{}
	row := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\| ([0-9]+) \\|[^|]*\\|([^|]*)\\|$")
	for _, m := range row.FindAllStringSubmatch(section[table:], -1) {
		layer, _ := strconv.Atoi(m[2])
		var deps []string
		for _, d := range name.FindAllStringSubmatch(m[3], -1) {
			deps = append(deps, d[1])
		}
		sort.Strings(deps)
		rows[m[1]] = layerRow{layer: layer, imports: deps}
	}
	return rows, leaves
}

// TestArchitectureTable checks the architecture document's Layers table against the
// code: every package of the module has a row (but the tests' and bench/'s programs,
// which measure and check luatool and are no part of it, and the leaves its text
// names, which import no package of the module), the module packages each one
// imports (leaves left out) are exactly those its row lists, and each of those lies
// in a lower layer: imports point down.
func TestArchitectureTable(t *testing.T) {
	rows, leaves := architectureLayers(t)
	if len(rows) == 0 || len(leaves) == 0 {
		t.Fatalf("%s: read %d rows and %d leaves: is the test reading the right section?", architectureDoc, len(rows), len(leaves))
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := modulePackage(fields[0])
		if !ok || pkg == "tests" || strings.HasPrefix(pkg, "tests/") || strings.HasPrefix(pkg, "bench/") {
			continue
		}
		seen[pkg] = true
		var deps []string
		for _, imp := range fields[1:] {
			if d, ok := modulePackage(imp); ok && !slices.Contains(leaves, d) {
				deps = append(deps, d)
			}
		}
		sort.Strings(deps)
		if slices.Contains(leaves, pkg) {
			if slices.ContainsFunc(fields[1:], func(imp string) bool { _, ok := modulePackage(imp); return ok }) {
				t.Errorf("leaf package %s imports packages of the module (%s): a leaf imports none", pkg, line)
			}
			continue
		}
		r, ok := rows[pkg]
		if !ok {
			t.Errorf("package %s has no row in %s's Layers table, and is not one of its leaves", pkg, architectureDoc)
			continue
		}
		if !slices.Equal(deps, r.imports) {
			t.Errorf("package %s imports %v; %s says %v", pkg, deps, architectureDoc, r.imports)
		}
		for _, d := range deps {
			if dr, ok := rows[d]; ok && dr.layer >= r.layer {
				t.Errorf("package %s (layer %d) imports %s (layer %d): imports must point down", pkg, r.layer, d, dr.layer)
			}
		}
	}
	for pkg := range rows {
		if !seen[pkg] {
			t.Errorf("%s has a row for %s, which is not a package", architectureDoc, pkg)
		}
	}
	for _, leaf := range leaves {
		if !seen[leaf] {
			t.Errorf("%s names %s as a leaf, which is not a package", architectureDoc, leaf)
		}
	}
}

// TestArchitectureContract checks the architecture document's contract table
// against the contract itself, engine.Members(): the same members, in order, each
// with what it may be, what a tool gets without it and what it gets when it fails.
func TestArchitectureContract(t *testing.T) {
	doc, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	i := strings.Index(section, "\n## The Tool contract\n")
	if i < 0 {
		t.Fatalf("%s has no section \"The Tool contract\"", architectureDoc)
	}
	section = section[i+1:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\| ([^|]*) \\| ([^|]*) \\| ([^|]*) \\|$")
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, strings.Join(m[1:], " | "))
	}
	for _, m := range engine.Members() {
		want = append(want, strings.Join([]string{m.Name, m.Kind.String(), m.Absent, m.OnError}, " | "))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s's contract table differs from engine.Members(); it should read, row by row:\n%s\n\nit reads:\n%s",
			architectureDoc, strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}
