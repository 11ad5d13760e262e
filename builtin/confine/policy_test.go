package confine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAllowTree: every entry of a tree is granted except the excluded ones, a
// directory holding an excluded entry is granted entry by entry, and a link is
// granted only when what it leads to could be.
func TestAllowTree(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "etc")
	outside := filepath.Join(base, "share", "zoneinfo")
	for _, f := range []string{"passwd", "shadow", "shadow-", "ssh/ssh_config", "ssh/ssh_host_rsa_key", "ssh/ssh_host_rsa_key.pub",
		"ssl/certs/ca.pem", "ssl/private/host.key", "apt/sources.list", "sudoers.d/admins"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"localtime": outside,                  // outside the tree: granted
		"mtab":      "/proc/self/mounts",      // into /proc: left out
		"keys":      "ssl/private",            // to an excluded directory: left out
		"hostkey":   "ssh/ssh_host_rsa_key",   // to an excluded file: left out
		"sshdir":    "ssh",                    // to a directory holding excluded entries: left out
		"certs":     "ssl/certs",              // to a readable directory: granted
		"all":       "/",                      // to a directory holding the tree: left out
		"dangling":  filepath.Join(base, "x"), // to nothing: left out
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range allowTree(root, etcSecrets) {
		got = append(got, strings.TrimPrefix(p, root+"/"))
	}
	slices.Sort(got)
	want := []string{"apt", "certs", "localtime", "passwd", "ssh/ssh_config", "ssh/ssh_host_rsa_key.pub", "ssl/certs"}
	if !slices.Equal(got, want) {
		t.Errorf("allowTree =\n%v\nwant\n%v", got, want)
	}
}

// TestWithSystem: the system paths come first, the policy's own after them, and
// /etc's secrets are not among them.
func TestWithSystem(t *testing.T) {
	p := Policy{Read: []string{"/r"}, Write: []string{"/w"}, Network: true}.withSystem()
	if !slices.Contains(p.Read, "/usr") || p.Read[len(p.Read)-1] != "/r" || !p.Network {
		t.Errorf("Read = %v", p.Read)
	}
	if !slices.Contains(p.Write, "/dev/null") || p.Write[len(p.Write)-1] != "/w" {
		t.Errorf("Write = %v", p.Write)
	}
	for _, secret := range []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/etc"} {
		if slices.Contains(p.Read, secret) {
			t.Errorf("Read grants %s", secret)
		}
	}
	if _, err := os.Stat("/etc/passwd"); err == nil && !slices.Contains(p.Read, "/etc/passwd") {
		t.Errorf("Read leaves out /etc/passwd: %v", p.Read)
	}
}
