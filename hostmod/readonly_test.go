package hostmod

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadOnlyCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		want bool
	}{
		// Read-only.
		{"ls", true},
		{"ls -la src", true},
		{"ls 2>/dev/null", true},
		{"ls >/dev/null 2>&1", true},
		{"cat README.md", true},
		{"head -n 5 a.txt | tail -n 2", true},
		{"wc -l a.txt b.txt", true},
		{"grep -rn foo .", true},
		{"grep foo a.txt || echo none", true},
		{"rg -n 'x+' src", true},
		{"sort -u a.txt", true},
		{"sed -n '1,5p' a.txt", true},
		{"sed 's/a/b/g' a.txt", true},
		{"sed -e 's/a/b/' -e '/x/d' a.txt", true},
		{"git status", true},
		{"git --no-pager log --oneline -n 5", true},
		{"git diff HEAD~1 -- a.go", true},
		{"git show HEAD:a.go", true},
		{"git blame a.go", true},
		{"git branch -a", true},
		{"git branch --list 'feat'", true},
		{"git tag -l", true},
		{"git ls-files", true},
		{"git rev-parse HEAD", true},
		{"git grep -n foo", true},
		{"find . -name '*.go'", true},
		{"find . -type f | wc -l", true},
		{"fd -e go", true},
		{"echo hello world", true},
		{"echo 'a b' && pwd", true},
		{"pwd; whoami", true},
		{"cd src && ls", true},
		{"which go", true},
		{"sleep 1", true},
		{"true", true},
		{"test -f a.txt", true},
		{"[ -d src ]", true},
		{"date", true},
		{"file a.txt", true},
		{"ps aux", true},
		{"sha256sum a.txt", true},
		{"base64 a.txt", true},
		{"tree src", true},
		{"jq .name package.json", true},
		{"node -v", true},
		{"python --version", true},
		{"stat a.txt", true},
		{"diff a.txt b.txt", true},
		{"cut -d: -f1 a.txt | tr a-z A-Z", true},
		{"cat <<'EOF'\nhello\nEOF", true},
		{"grep x < a.txt", true},
		{"{ ls; pwd; }", true},
		{`ls \*.go`, true},
		// Not read-only.
		{"ls > f", false},
		{"ls >> f", false},
		{"ls 2> err.txt", false},
		{"ls $(pwd)", false},
		{"ls `pwd`", false},
		{"cat <(ls)", false},
		{"find . -exec rm {} \\;", false},
		{"find . -name x -delete", false},
		{"find . -fprint out", false},
		{"find . -execdir ls \\;", false},
		{"git -c core.pager=evil status", false},
		{"git --exec-path=/tmp status", false},
		{"git --config-env=core.pager=X log", false},
		{"git commit -m x", false},
		{"git push", false},
		{"git branch -D main", false},
		{"git branch newbranch", false},
		{"git tag v1", false},
		{"git diff --output=out.txt", false},
		{"ls | sh", false},
		{"cat a | xargs rm", false},
		{"sed -i 's/a/b/' a.txt", false},
		{"sed -ni 's/a/b/p' a.txt", false},
		{"sed 's/a/b/w out' a.txt", false},
		{"sed 's/a/b/e' a.txt", false},
		{"sed '1w out' a.txt", false},
		{"sort -o out a.txt", false},
		{"echo $HOME", false},
		{`echo "$HOME"`, false},
		{"echo ${PATH}", false},
		{"echo '$HOME'", false},
		{"rm -rf /", false},
		{"curl https://example.com", false},
		{"npm install", false},
		{"cd /tmp && git status", false},
		{"xargs ls", false},
		{"env X=1 ls", false},
		{"X=1 ls", false},
		{"bash -c 'ls'", false},
		{"sh -c ls", false},
		{"ls | tee out", false},
		{"cat <<EOF > out\nhi\nEOF", false},
		{"cat <<EOF\n$(rm x)\nEOF", false},
		{"ls *.go", false},
		{"cat ?.txt", false},
		{"sleep 10 &", false},
		{"(ls)", false},
		{"for f in a b; do cat $f; done", false},
		{"f() { ls; }; f", false},
		{"/bin/ls", false},
		{"node script.js", false},
		{"python -c 'print(1)'", false},
		{"fd -x rm", false},
		{"rg --pre ./evil x", false},
		{"jq -f prog.jq a.json", false},
		{"date -s 2020-01-01", false},
		{"tree -o out", false},
		{"echo $((1+2))", false},
		{"ls <> f", false},
		{"ls 'unterminated", false},
		{"", false},
		{"mkdir x", false},
		{"touch a", false},
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		if got := ReadOnlyCommand(c.cmd); got != c.want {
			t.Errorf("ReadOnlyCommand(%q) = %v, want %v", c.cmd, got, c.want)
		}
	}
	t.Logf("%d commands classified", len(cases))
}

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string
	}{
		{"git status", []string{"git status"}},
		{"cd /tmp && git status", []string{"cd /tmp", "git status"}},
		{"ls | grep x > out; pwd", []string{"ls", "grep x > out", "pwd"}},
		{"ls $(rm -rf x)", []string{"ls $(rm -rf x)", "rm -rf x"}},
	}
	for _, c := range cases {
		got, err := SplitCommand(c.cmd)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", c.cmd, got, err, c.want)
		}
	}
	if _, err := SplitCommand("ls 'x"); err == nil {
		t.Error("unterminated quote: no error")
	}
}

// TestClassifyCommandPaths: a command is read-only only when every path it reads
// lies inside the roots, relative paths taken from the working directory and the cd
// targets before them; a path a Read deny rule hides makes it hidden whatever it
// does; what the shell expands (~) or cannot be told is not read-only.
func TestClassifyCommandPaths(t *testing.T) {
	root := t.TempDir()
	rs, err := newRootSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(root, "secrets")
	hidden := func(p string) bool { return p == secrets || strings.HasPrefix(p, secrets+"/") }
	// Links inside the root that lead out of it, or to a hidden file.
	outside := filepath.Join(t.TempDir(), "outside.txt")
	for _, err := range []error{
		os.WriteFile(outside, []byte("x"), 0o644),
		os.Mkdir(secrets, 0o755),
		os.WriteFile(filepath.Join(secrets, "key.txt"), []byte("k"), 0o644),
		os.Symlink(outside, filepath.Join(root, "out-link")),
		os.Symlink(filepath.Join(secrets, "key.txt"), filepath.Join(root, "key-link")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		command string
		cwd     string
		want    commandVerdict
		culprit string
	}{
		{"cat notes.txt", "", commandReadOnly, ""},
		{"head -2 /etc/passwd", "", commandOutside, "/etc/passwd"},
		{"cat /proc/self/environ", "", commandOutside, "/proc/self/environ"},
		{"cat < /etc/hosts", "", commandOutside, "/etc/hosts"},
		{"cat ../outside.txt", "", commandOutside, "../outside.txt"},
		{"ls ..", "", commandOutside, ".."},
		{"cd / && cat etc/passwd", "", commandOutside, "/"},
		{"cd sub && cat ../notes.txt", "", commandReadOnly, ""},
		{"cd sub && cat ../../x", "", commandOutside, "../../x"},
		{"cat ~/.ssh/id_rsa", "", commandOutside, "~/.ssh/id_rsa"},
		{"cd && ls", "", commandOutside, "~"},
		{"grep --file=/etc/shadow x", "", commandOutside, "/etc/shadow"},
		{"cat secrets/key.txt", "", commandHidden, secrets + "/key.txt"},
		{"cd secrets && cat key.txt", "", commandHidden, secrets},
		{"cat key.txt", secrets, commandHidden, secrets + "/key.txt"},
		{"cat secrets/key.txt > out.txt", "", commandHidden, secrets + "/key.txt"},
		{"cat out-link", "", commandOutside, "out-link"},
		{"cat key-link", "", commandHidden, secrets + "/key.txt"},
		{"rm notes.txt", "", commandWrites, ""},
		{"cat $HOME/x", "", commandWrites, ""},
		{"cat *.txt", "", commandWrites, ""},
	} {
		got, culprit := rs.classifyCommand(tc.command, tc.cwd, hidden, true)
		if got != tc.want || culprit != tc.culprit {
			t.Errorf("%q in %q: %v %q, want %v %q", tc.command, tc.cwd, got, culprit, tc.want, tc.culprit)
		}
	}
}
