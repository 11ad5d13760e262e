package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReleaseStampsVersion: the release build's -X flag (.goreleaser.yaml) names
// the variable luatool version prints: a binary built with it, as the release
// builds it, prints the stamped tag. A renamed variable or package would otherwise
// leave every release printing "devel", silently (-X ignores a name it cannot find).
func TestReleaseStampsVersion(t *testing.T) {
	cfg, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-X (\S+\.version)=\{\{`).FindSubmatch(cfg)
	if m == nil {
		t.Fatal(".goreleaser.yaml has no -X ....version={{...}} in its ldflags")
	}
	bin := filepath.Join(t.TempDir(), "luatool")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X "+string(m[1])+"=v9.8.7", "-o", bin, "../cmd/luatool")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("luatool version: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "luatool v9.8.7 (go1.") {
		t.Errorf("luatool version printed %q, want the stamped v9.8.7", out)
	}
}
