package engine

import (
	"path/filepath"
	"testing"
)

func TestHiddenPathsFromReadDenyRules(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "work")
	rs, err := parseRules(PermissionSettings{
		Deny: []SourcedRule{
			{Text: "Read(/private/**)", Source: sourceSession, Root: root},
			{Text: "Edit(./edited/**)", Source: sourceSession, Root: root},
			{Text: "Bash(cat:*)", Source: sourceSession, Root: root},
			{Text: "Read", Source: sourceSession, Root: root},
		},
		Ask:   []SourcedRule{{Text: "Read(./asked/**)", Source: sourceSession, Root: root}},
		Allow: []SourcedRule{{Text: "Read(./allowed/**)", Source: sourceSession, Root: root}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	if rs2, _ := parseRules(PermissionSettings{}, ""); rs2.hiddenPaths(cwd) != nil {
		t.Error("no rules: hiddenPaths is not nil")
	}
	// A turn's deny rule counts too, relative to the call's cwd.
	rs = rs.with(ruleAdditions{deny: []string{"Read(.env)"}}, cwd)
	hidden := rs.hiddenPaths(cwd)
	if hidden == nil {
		t.Fatal("hiddenPaths is nil with Read deny rules")
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "private"), true},
		{filepath.Join(root, "private", "a", "b.txt"), true},
		{filepath.Join(cwd, ".env"), true},
		{filepath.Join(cwd, "sub", ".env"), true},
		{filepath.Join(cwd, "edited", "x"), false},
		{filepath.Join(cwd, "asked", "x"), false},
		{filepath.Join(cwd, "allowed", "x"), false},
		{filepath.Join(cwd, "open.txt"), false},
	} {
		if got := hidden(tc.path); got != tc.want {
			t.Errorf("hidden(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
