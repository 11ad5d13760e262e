package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pathTree builds this tree in a temporary directory T and returns T:
//
//	T/home/.ssh/id_rsa, T/home/notes.md
//	T/proj/.env, src/main.go, src/.env, src/util/helper.go, build/out.bin,
//	       docs/readme.md, {a,b}.txt, *.txt
//	T/proj/link-out     -> T/outside/secret.txt    a file link leaving the project
//	T/proj/linkdir-out  -> T/outside               a directory link leaving it
//	T/proj/deep         -> T/outside/sub           for ".." after a link
//	T/proj/dangling     -> T/outside/new.txt       a link to nothing yet
//	T/proj/chain        -> ../mid/hop1 -> T/outside/secret.txt
//	T/proj/loop1 -> loop2 -> loop1
//	T/outside/secret.txt, T/outside/sub/
//	T/outside/in-link   -> T/proj/.env             a link entering the project
//	T/cwdlink           -> T/proj                  a symlinked working directory
func pathTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"home/.ssh/id_rsa", "home/notes.md",
		"proj/.env", "proj/src/main.go", "proj/src/.env", "proj/src/util/helper.go",
		"proj/build/out.bin", "proj/docs/readme.md", "proj/{a,b}.txt", "proj/*.txt",
		"outside/secret.txt", "outside/sub/.keep", "mid/.keep",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"proj/link-out":    root + "/outside/secret.txt",
		"proj/linkdir-out": root + "/outside",
		"proj/deep":        root + "/outside/sub",
		"proj/dangling":    root + "/outside/new.txt",
		"proj/chain":       "../mid/hop1",
		"mid/hop1":         root + "/outside/secret.txt",
		"proj/loop1":       "loop2",
		"proj/loop2":       "loop1",
		"outside/in-link":  root + "/proj/.env",
		"cwdlink":          root + "/proj",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	return root
}

func TestMatchPathRule(t *testing.T) {
	T := pathTree(t)
	x := func(s string) string { return strings.ReplaceAll(s, "$T", T) }
	base := pathBase{Root: T + "/proj", Cwd: T + "/proj", Home: T + "/home"}
	sub := pathBase{Root: T + "/proj", Cwd: T + "/proj/src", Home: T + "/home"}
	viaLink := pathBase{Root: T + "/cwdlink", Cwd: T + "/cwdlink", Home: T + "/home"}
	tests := []struct {
		name     string
		pattern  string
		base     pathBase
		path     string
		behavior Behavior
		want     bool
	}{
		// Bare names match at any depth below the cwd, and nowhere else.
		{"bare at top", ".env", base, "$T/proj/.env", Deny, true},
		{"bare at depth", ".env", base, "$T/proj/src/.env", Deny, true},
		{"bare outside cwd", ".env", base, "$T/outside/.env", Deny, false},
		{"bare, cwd below root", ".env", sub, "$T/proj/.env", Deny, false},
		{"bare, cwd below root, inside", ".env", sub, "$T/proj/src/.env", Deny, true},
		{"dot-slash is bare", "./.env", base, "$T/proj/src/.env", Deny, true},
		{"glob at any depth", "*.go", base, "$T/proj/src/util/helper.go", Deny, true},
		{"glob no match", "*.go", base, "$T/proj/docs/readme.md", Deny, false},
		{"bare dir at depth", "util", base, "$T/proj/src/util/helper.go", Deny, true},
		// A slash in the middle anchors to the cwd.
		{"anchored star", "src/*.go", base, "$T/proj/src/main.go", Deny, true},
		{"star stays in its element", "src/*.go", base, "$T/proj/src/util/helper.go", Deny, false},
		{"anchored not at depth", "src/*.go", base, "$T/proj/lib/src/main.go", Deny, false},
		{"double star", "src/**/*.go", base, "$T/proj/src/util/helper.go", Deny, true},
		{"double star, zero elements", "src/**/*.go", base, "$T/proj/src/main.go", Deny, true},
		{"leading double star", "**/helper.go", base, "$T/proj/src/util/helper.go", Deny, true},
		{"dot-slash anchored", "./src/**", base, "$T/proj/src/main.go", Allow, true},
		{"dot-slash anchored, not at depth", "./src/**", base, "$T/proj/x/src/main.go", Deny, false},
		{"anchored to cwd, not root", "util/*.go", sub, "$T/proj/src/util/helper.go", Allow, true},
		// Directories cover their contents; trailing / and /** are the same.
		{"dir covers contents", "src", base, "$T/proj/src/util/helper.go", Deny, true},
		{"dir matches itself", "src", base, "$T/proj/src", Deny, true},
		{"trailing slash", "build/", base, "$T/proj/build/out.bin", Deny, true},
		{"trailing slash matches the dir", "build/", base, "$T/proj/build", Deny, true},
		{"trailing slash unanchored", "util/", base, "$T/proj/src/util/helper.go", Deny, true},
		{"trailing double star", "src/**", base, "$T/proj/src", Allow, true},
		{"trailing double star anchored", "src/**", base, "$T/proj/lib/src/x", Deny, false},
		{"name prefix is not a dir", "src", base, "$T/proj/srcs/x", Deny, false},
		{"base itself, bare", "src", base, "$T/proj", Deny, false},
		// Root-relative, home-relative and absolute patterns.
		{"root anchored", "/.env", base, "$T/proj/.env", Deny, true},
		{"root anchored not at depth", "/.env", base, "$T/proj/src/.env", Deny, false},
		{"root is the settings root", "/src/main.go", sub, "$T/proj/src/main.go", Allow, true},
		{"root everything", "/", base, "$T/proj/docs/readme.md", Allow, true},
		{"root everything includes root", "/", base, "$T/proj", Allow, true},
		{"root everything excludes outside", "/", base, "$T/outside/secret.txt", Allow, false},
		{"double star everything", "**", base, "$T/proj/src/util/helper.go", Allow, true},
		{"dot everything", ".", base, "$T/proj/src/main.go", Allow, true},
		{"home", "~/.ssh/**", base, "$T/home/.ssh/id_rsa", Deny, true},
		{"home dir", "~/.ssh", base, "$T/home/.ssh/id_rsa", Deny, true},
		{"home file", "~/notes.md", base, "$T/home/notes.md", Deny, true},
		{"home anchored", "~/.ssh/**", base, "$T/proj/.ssh/id_rsa", Deny, false},
		{"home everything", "~", base, "$T/home/notes.md", Deny, true},
		{"absolute", "/$T/outside/**", base, "$T/outside/secret.txt", Deny, true},
		{"absolute file", "/$T/outside/secret.txt", base, "$T/outside/secret.txt", Deny, true},
		{"absolute exact name", "/$T/outside/secret.txt", base, "$T/outside/secret.txt.bak", Deny, false},
		{"absolute everything", "//", base, "$T/outside/secret.txt", Deny, true},
		// Glob syntax.
		{"question mark", "docs/?eadme.md", base, "$T/proj/docs/readme.md", Deny, true},
		{"class", "docs/[rR]eadme.md", base, "$T/proj/docs/readme.md", Deny, true},
		{"negated class", "docs/[!r]eadme.md", base, "$T/proj/docs/readme.md", Deny, false},
		{"braces are literal", "{a,b}.txt", base, "$T/proj/{a,b}.txt", Deny, true},
		{"braces do not alternate", "{a,b}.txt", base, "$T/proj/a.txt", Deny, false},
		{"escaped star", `\*.txt`, base, "$T/proj/*.txt", Deny, true},
		{"escaped star is literal", `\*.txt`, base, "$T/proj/a.txt", Deny, false},
		// Case: deny and ask ignore it, allow does not.
		{"deny ignores case", ".ENV", base, "$T/proj/.env", Deny, true},
		{"ask ignores case", "SRC/**", base, "$T/proj/src/main.go", Ask, true},
		{"allow keeps case", ".ENV", base, "$T/proj/.env", Allow, false},
		{"allow exact case", ".env", base, "$T/proj/.env", Allow, true},
		// ".." is cleaned, and also followed physically.
		{"dotdot cleaned", "/.env", base, "$T/proj/src/../.env", Deny, true},
		{"dotdot leaves root", "/**", base, "$T/proj/../outside/secret.txt", Deny, false},
		{"dotdot leaves root, absolute", "/$T/outside/**", base, "$T/proj/../outside/secret.txt", Deny, true},
		{"dotdot after link, deny the physical", "/$T/outside/**", base, "$T/proj/deep/../secret.txt", Deny, true},
		{"dotdot after link, allow needs both", "/**", base, "$T/proj/deep/../secret.txt", Allow, false},
		// Symbolic links: inside to outside.
		{"file link out, deny target", "/$T/outside/**", base, "$T/proj/link-out", Deny, true},
		{"file link out, deny name", "link-out", base, "$T/proj/link-out", Deny, true},
		{"file link out, allow project", "/**", base, "$T/proj/link-out", Allow, false},
		{"plain file, allow project", "/**", base, "$T/proj/src/main.go", Allow, true},
		{"dir link out, deny target", "/$T/outside/secret.txt", base, "$T/proj/linkdir-out/secret.txt", Deny, true},
		{"dir link out, allow project", "/**", base, "$T/proj/linkdir-out/secret.txt", Allow, false},
		{"dir link out, new file", "/$T/outside/**", base, "$T/proj/linkdir-out/new/file.txt", Deny, true},
		{"dangling link, deny destination", "/$T/outside/new.txt", base, "$T/proj/dangling", Deny, true},
		{"dangling link, allow project", "/**", base, "$T/proj/dangling", Allow, false},
		{"chain, deny a hop", "/$T/mid/**", base, "$T/proj/chain", Deny, true},
		{"chain, deny the end", "/$T/outside/**", base, "$T/proj/chain", Deny, true},
		{"chain, allow project", "/**", base, "$T/proj/chain", Allow, false},
		{"loop, deny name", "loop1", base, "$T/proj/loop1", Deny, true},
		{"loop stays inside", "/**", base, "$T/proj/loop1", Allow, true},
		// Symbolic links: outside to inside.
		{"link in, deny target", "/.env", base, "$T/outside/in-link", Deny, true},
		{"link in, deny bare target", ".env", base, "$T/outside/in-link", Deny, true},
		{"link in, allow outside", "/$T/outside/**", base, "$T/outside/in-link", Allow, false},
		{"link in, deny name", "/$T/outside/in-link", base, "$T/outside/in-link", Deny, true},
		// A symlinked base counts under both names.
		{"linked cwd, real path", "src/**", viaLink, "$T/proj/src/main.go", Allow, true},
		{"linked cwd, linked path", "src/**", viaLink, "$T/cwdlink/src/main.go", Allow, true},
		{"linked root, deny", "/.env", viaLink, "$T/proj/.env", Deny, true},
		{"real cwd, path via an outside link, deny", "src/*.go", base, "$T/cwdlink/src/main.go", Deny, true},
		// The name as given lies outside the cwd, so not every form passes.
		{"real cwd, path via an outside link, allow", "src/*.go", base, "$T/cwdlink/src/main.go", Allow, false},
		// Paths that do not exist yet.
		{"new file", "new/**", base, "$T/proj/new/dir/file.go", Deny, true},
		{"new file allowed", "/**", base, "$T/proj/new/dir/file.go", Allow, true},
		{"new file outside", "/**", base, "$T/outside/new.txt", Allow, false},
		// Fail closed: invalid patterns, bases and paths.
		{"bad glob, deny", "src/[", base, "$T/proj/docs/readme.md", Deny, true},
		{"bad glob, allow", "src/[", base, "$T/proj/src/[", Allow, false},
		{"tilde user, deny", "~bob/x", base, "$T/proj/x", Deny, true},
		{"no home, deny", "~/.ssh", pathBase{Root: base.Root, Cwd: base.Cwd}, "$T/proj/x", Deny, true},
		{"no home, allow", "~/**", pathBase{Root: base.Root, Cwd: base.Cwd}, "$T/proj/x", Allow, false},
		{"relative path, deny", "nothing-like-it", base, "src/main.go", Deny, true},
		{"relative path, allow", "**", base, "src/main.go", Allow, false},
	}
	for _, tt := range tests {
		got := matchPathRule(x(tt.pattern), tt.base, x(tt.path), tt.behavior)
		if got != tt.want {
			t.Errorf("%s: matchPathRule(%q, %s) on %s = %v, want %v", tt.name, tt.pattern, tt.behavior, tt.path, got, tt.want)
		}
	}
}

func TestValidatePathPattern(t *testing.T) {
	valid := []string{".env", "./src/**", "src/", "/", "//", "//etc/hosts", "~", "~/", "~/.ssh/**",
		"**", "**/*.go", "a/**/b", "[a-z]*.md", `\!x`, `\*.txt`, "{a,b}", "./!x", "/!x", "."}
	for _, p := range valid {
		if err := validatePathPattern(p); err != nil {
			t.Errorf("validatePathPattern(%q) = %v", p, err)
		}
	}
	invalid := []struct{ pattern, problem string }{
		{"", "empty"},
		{"~bob/x", "~user"},
		{"!secret", "negation"},
		{"a//b", "empty path element"},
		{"/a//", "empty path element"},
		{"a/../b", `".." element`},
		{"..", `".." element`},
		{"../x", `".." element`},
		{"./.", `"." element`},
		{"//etc/./hosts", `"." element`},
		{"src/[", "bad glob"},
		{`a\`, `\ at the end`},
		{`a\/b`, `\ at the end`},
	}
	for _, tt := range invalid {
		err := validatePathPattern(tt.pattern)
		if err == nil || !strings.Contains(err.Error(), tt.problem) || !strings.Contains(err.Error(), "path pattern") {
			t.Errorf("validatePathPattern(%q) = %v, want an error about %s", tt.pattern, err, tt.problem)
		}
	}
}

func TestResolvePath(t *testing.T) {
	T := pathTree(t)
	tests := []struct{ in, want string }{
		{T + "/proj/src/main.go", T + "/proj/src/main.go"},
		{T + "/proj/link-out", T + "/outside/secret.txt"},
		{T + "/proj/linkdir-out/a/b", T + "/outside/a/b"},
		{T + "/proj/deep/../secret.txt", T + "/outside/secret.txt"},
		{T + "/proj/missing/../x", T + "/proj/x"},
		{T + "/cwdlink/", T + "/proj"},
		{"/", "/"},
	}
	for _, tt := range tests {
		if got := resolvePath(tt.in); got != tt.want {
			t.Errorf("resolvePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMatchBelow: a deny rule may match below a directory when its base lies below
// the directory, or the directory's elements inside the base match the glob's up to
// a "**"; it fails closed on what cannot be told.
func TestMatchBelow(t *testing.T) {
	root := pathTree(t)
	proj := filepath.Join(root, "proj")
	base := pathBase{Root: proj, Cwd: proj, Home: filepath.Join(root, "home")}
	for _, tc := range []struct {
		pattern, dir string
		want         bool
	}{
		{"./secrets/**", proj, true},
		{"./secrets/**", root, true}, // the base lies below
		{"./secrets/**", "/", true},
		{"./secrets/**", proj + "/secrets", true},
		{"./secrets/**", proj + "/secrets/deep/er", true},
		{"./secrets/**", proj + "/SECRETS", true},
		{"./secrets/**", proj + "/src", false},
		{"./secrets/**", root + "/home", false},
		{".env", proj + "/src/util", true}, // unanchored: any depth
		{".env", root + "/outside", false},
		{"src/*.go", proj + "/src", true},
		{"src/*.go", proj + "/src/util", false},
		{"src/*.go", proj + "/docs", false},
		{"src/**/*.go", proj + "/src/util/deeper", true},
		{"/build", proj + "/build", true},
		{"/build", proj + "/docs", false},
		{"~/.ssh/**", root + "/home", true},
		{"~/.ssh/**", root + "/home/docs", false},
		{"//etc/shadow", "/etc", true},
		{"//etc/shadow", "/usr", false},
		{"//**", "/usr", true},
		{".", proj + "/docs", true},
		{"!x", proj + "/docs", true},     // invalid: fails closed
		{"./linkdir-out/**", proj, true}, // the link's own name, below proj
		{"./linkdir-out/sub", proj + "/src", false},
	} {
		if got := newPathMatcher(tc.pattern, base, Deny).matchBelow(tc.dir); got != tc.want {
			t.Errorf("matchBelow(%q, %s) = %v, want %v", tc.pattern, tc.dir, got, tc.want)
		}
	}
	if newPathMatcher("src/**", base, Allow).matchBelow(proj) {
		t.Error("an allow rule matches below")
	}
	if !newPathMatcher("~/.ssh/**", pathBase{Root: proj, Cwd: proj}, Deny).matchBelow("/usr") {
		t.Error("a rule whose base is unknown does not fail closed")
	}
}

// TestMatchBelowHoldsAboveEveryMatch: for each pattern and each path of the tree a
// rule matches, reached without following links, matchBelow holds for every
// directory above it; a directory where it is false has no match below it.
func TestMatchBelowHoldsAboveEveryMatch(t *testing.T) {
	root := pathTree(t)
	proj := filepath.Join(root, "proj")
	base := pathBase{Root: proj, Cwd: proj, Home: filepath.Join(root, "home")}
	patterns := []string{"./secrets/**", ".env", "src/*.go", "src/**/*.go", "/build", "~/.ssh/**",
		"*.txt", "\\*.txt", "{a,b}.txt", "docs/", "**/util/**", "[bd]*/**"}
	for _, pattern := range patterns {
		m := newPathMatcher(pattern, base, Deny)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || !m.match(p) || d.Type()&os.ModeSymlink != 0 {
				return err
			}
			for dir := p; ; dir = filepath.Dir(dir) {
				if !m.matchBelow(dir) {
					t.Errorf("%q matches %s but not below %s", pattern, p, dir)
				}
				if dir == "/" {
					return nil
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
