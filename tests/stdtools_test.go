package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStandardToolsLuaTests runs the Lua tests of the standard tools with luatool
// test, and requires every standard tool to have some.
func TestStandardToolsLuaTests(t *testing.T) {
	tools, err := filepath.Glob("../scripts/tools/*.lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tools {
		if strings.HasSuffix(f, "_test.lua") || strings.HasSuffix(f, ".d.lua") {
			continue
		}
		if _, err := os.Stat(strings.TrimSuffix(f, ".lua") + "_test.lua"); err != nil {
			t.Errorf("%s has no Lua tests: %v", filepath.Base(f), err)
		}
	}
	stdout, stderr, code := runCLI(t, "test", "../scripts/tools")
	if code != 0 || !regexp.MustCompile(`(?m)^\d+ cases passed, 0 failed$`).MatchString(stdout) {
		t.Errorf("luatool test ../scripts/tools exited %d:\n%s%s", code, stdout, stderr)
	}
	t.Log(strings.TrimSpace(stdout[strings.LastIndex(strings.TrimSpace(stdout), "\n")+1:]))
}
