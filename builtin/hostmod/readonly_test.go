package hostmod

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadOnlyCommand: the verdict from the text alone. Everyday reads are
// read-only; every way found of making a "read-only" command write, run a program
// or read what it should not is not: abbreviated and clustered options, option
// values, scripts, test's subscripts, wrappers, expansions.
func TestReadOnlyCommand(t *testing.T) {
	readOnly := []string{
		"ls", "ls -la src", "ls 2>/dev/null", "ls >/dev/null 2>&1", "cat README.md", "head -n 5 a.txt | tail -n 2",
		"head -5 a.txt", "wc -l a.txt b.txt", "grep -rn foo .", "grep foo a.txt || echo none", "grep -e a -e b f",
		"rg -n 'x+' src", "sort -u a.txt",
		"sort --key=2 a.txt", "sort a.txt | uniq -c | sort -rn", "sed -n '1,5p' a.txt",
		"git status", "git log -3", "git diff HEAD~1 -- a.go", "git show HEAD:a.go",
		"git blame a.go", "git branch -a", "git branch --list 'feat'", "git branch --merged", "git branch --contains HEAD",
		"git tag -l", "git ls-files", "git rev-parse HEAD", "git grep -n foo", "git remote -v", "git stash list",
		"git log --format='%h %s'", "git log --pretty=oneline", "git config --get user.name", "git worktree list",
		"find . -name '*.go'", "find . -type f | wc -l", "find . -newermt 2020-01-01", "find . -maxdepth 1 -print0",
		"fd -e go", "echo hello world", "echo 'a b' && pwd", "echo '$HOME'", "pwd; whoami", "cd src",
		"which go", "sleep 1", "true", "test -f a.txt", "[ -d src ]", "[[ -f a.txt ]]", "[[ a == b ]]", "test 1 -eq 1",
		"date", "date +%Y", "date -u -d 2020-01-01", "file a.txt", "ps aux", "ps -ef", "sha256sum a.txt", "base64 a.txt",
		"jq .name package.json", "jq -r '.items[]' f.json", "jq --arg x y .a f.json", "node -v", "python --version",
		"stat a.txt", "diff a.txt b.txt", "cut -d: -f1 a.txt | tr a-z A-Z", "cat <<'EOF'\nhello\nEOF", "grep x < a.txt", `ls \*.go`, "du -sh .", "timeout 5 ls", "timeout 5s cat a.txt",
		"LC_ALL=C sort a.txt",
		"type ls", "printf '%s\\n' a b", "printf '%d\\n' 5", "tail -f --pid=1 a.txt",
		"tree -L 2", "od -c a.txt", "stat --printf=%s a.txt",
		"grep --color=never x f", "sort -k 2,2n -t : a.txt", "sed -n '1,5p;7p' a.txt", "sed 's/a/b/g'",
		"sed -nE 5p a.txt", "echo a | sed 's/a\\/b/c/I'", "git log --oneline -n 5", "sort -k 2 -t : a.txt",
		"uniq -c", "grep -A3 -m1 x f", "command ls", "timeout 1.5m git status", "if true; then ls; fi",
		"if [ -f a ]; then cat a; elif true; then pwd; else ls; fi", "while false; do ls; done", "tput cols",
	}
	notReadOnly := []string{
		// the original asks about these: luatool runs none of what it would not
		"grep -2 x f", "grep --colo=never x f", "sort -k2,2n a.txt", "sort -t: a.txt", "sed 's/a/b/g' a.txt",
		"sed -e 's/a/b/'", "sed --expr='s/a/b/'", "sed -n '$p' a.txt", "sed 's|/|_|g'", "sed -n '/x/p' f",
		"sed '$a end'", "sed 'y/ab/xy/'", "sed '1d' a.txt", "git --no-pager log", "git -P log", "git --version",
		"nice -n 5 cat a.txt", "nohup cat a.txt", "stdbuf -oL grep x f", "env LC_ALL=C sort a.txt",
		"command -v git", "uniq -c a.txt", "cut -d'|' -f1 a.txt", "cat 'a;b'", "ls '$x'", "git log -n5",
		"timeout -s KILL 5 ls", "timeout 5 cd x", "pwd -P", "whoami --help", "jq -n", "jq . f -r", "test -f a -a -f b",
		"printf '$x'", "hostname -fs", "xargs -I{} cat {}", "ps -eo pid", "ps -o user", "go version", "python -V",
		"sha512sum a", "b2sum a", ": x", "git ls-tree HEAD", "git config --list", "git config user.name",
		"git status -uno", "git diff --stat=80", "git branch --merged -a", "git remote show -n 'a b'",
		// writes, runs programs, or reads what it cannot name
		"ls > f", "ls >> f", "ls 2> err.txt", "ls $(pwd)", "ls `pwd`", "cat <(ls)", "ls <> f", "ls | sh", "ls | tee out",
		"rm -rf /", "mkdir x", "touch a", "curl https://example.com", "npm install", "bash -c 'ls'", "sh -c ls", "/bin/ls",
		"node script.js", "python -c 'print(1)'", "awk '{print}' f", "sleep 10 &", "(ls)", "for f in a b; do cat $f; done",
		"f() { ls; }; f", "X=1 ls", "X=1", "PATH=. ls", "cat <<EOF > out\nhi\nEOF", "cat <<EOF\n$(rm x)\nEOF", "cat <<EOF\nplain\nEOF", "{ ls; pwd; }", "cd src && ls",
		"if true; then rm a; fi", "while true; do cd x; done", "if true; then ls; fi > out", "tput reset",
		"case x in x) ls;; esac",
		"echo $HOME", `echo "$HOME"`, "echo ${PATH}", "echo $((1+2))", "ls 'unterminated", "", "cat {a,b}.txt",
		"cat {a..c}.txt", "echo {x,y}", "ls *.go", "cat ?.txt", "exec ls", "eval ls",
		// abbreviated long options resolve as the program resolves them
		"sed --expr='1e id' p - <<< x", "sed --ex='1e id' f", "sed --in f", "sed --i f", "sed -ni 's/a/b/p' f",
		"sort --comp=sh f", "sort --compress-prog=sh f", "sort --out=x f", "sort --o=x f", "sort --files0=l",
		"sort --te=. f", "sort -T . f", "sort -o out a.txt", "wc --fil=l", "wc --files0-from=l", "date --s=x", "date --se=x",
		"date -s x", "date 0101000020", "grep --deref x .", "grep -R x .", "ls --hyp", "ls -L", "du -L .",
		"git diff --out=x", "git diff --output=x", "git log --output=x", "git grep --open-files=sh -l x",
		"git grep --open=sh x", "git grep --op=sh x", "git grep -O sh x", "git grep -Osh x", "git grep -lO sh x",
		"git grep --open-files-in-pager=sh x", "git diff --ext-diff", "git log --textconv -p", "git show --ext-diff",
		// sed scripts that write, read or execute
		"sed 's/a/b/w out' a.txt", "sed 's/a/b/ w out' a.txt", "sed 's/a/b/e' a.txt", "sed '1w out' a.txt",
		"sed 'e id' a.txt", "sed '1r /etc/passwd' a.txt", "sed 'R f' g", "sed 's/x/y/;s/a/b/w o' f",
		"sed 's/[/]/x/w o' f", "sed -f edit.sed f", "sed $'s/a/b/' f", "sed -i 's/a/b/' a.txt",
		// test and printf evaluate subscripts
		"test -v 'a[$(touch pwned)]'", "[ -v 'a[$(touch pwned)]' ]", "test -v HOME", "[ -R x ]",
		"[[ -v 'a[$(touch pwned)]' ]]", "[[ 'a[$(touch pwned)]' -eq 0 ]]", "test 'a[$(id)]' -eq 1",
		"[ 'a[1]' = x ]", "printf -v x hi", "printf '%d' 'a[$(id)]'",
		// find, xargs, file lists
		"find . -exec rm {} \\;", "find . -name x -delete", "find . -fprint out", "find . -execdir ls \\;",
		"find -L . -name x", "find . -follow", "find . -files0-from l", "fd -x rm", "fd --exec cat", "fd -l",
		"cat a | xargs rm", "xargs ls", "xargs -a list.txt cat", "file -f list.txt", "file --files-from=l",
		"file -C -m m", "sha256sum -c list", "strings @opts",
		// git's global options, subcommands and formats
		"git -c core.pager=evil status", "git --exec-path=/tmp status", "git --config-env=core.pager=X log",
		"git -C sub status", "git --git-dir=x status", "git --bare log", "git -p log", "git commit -m x", "git push",
		"git branch -D main", "git branch newbranch", "git tag v1", "git stash", "git reflog expire --all",
		"git config user.name x", "git remote add x y", "git remote show origin", "git log --show-signature",
		"git log --format=%G?", "git log --pretty=%GS", "git log --format='%(signature)'", "git log --pretty=mine",
		"git for-each-ref --sort=signature", "git help log", "cd /tmp && git status", "cd sub && git log",
		// wrappers run what they wrap
		"timeout 5 rm a.txt", "nice rm a.txt", "nohup rm a", "env rm a", "env -i git status", "env -u X git log",
		"env GIT_EXTERNAL_DIFF=sh git diff", "env -C sub ls", "env -S 'ls -l'", "env", "printenv", "command rm a",
		"time rm a", "timeout 5 sh -c ls", "TZ=../../etc/x date", "LD_PRELOAD=x.so ls",
		// programs not in the table, or only some of their forms
		"rg --pre ./evil x", "rg -z x", "rg --search-zip x", "rg -L x", "jq -f prog.jq a.json", "jq env f",
		"jq '$ENV.PATH' f", "jq -L . 'include \"x\"; .' f", "jq --rawfile x a -n .", "tree -o out", "tree -Lo 2 out",
		"hostname newname", "ps e", "ps auxe", "diff -r a b", "uniq a.txt out.txt", "less a", "vim a",
		"node script.js", "python -c 'print(1)'",
	}
	for _, cmd := range readOnly {
		if !ReadOnlyCommand(cmd) {
			t.Errorf("ReadOnlyCommand(%q) = false, want true", cmd)
		}
	}
	for _, cmd := range notReadOnly {
		if ReadOnlyCommand(cmd) {
			t.Errorf("ReadOnlyCommand(%q) = true, want false", cmd)
		}
	}
	t.Logf("%d commands classified", len(readOnly)+len(notReadOnly))
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

// classifierFixture makes a root with a.txt, b.txt, sub/util.go, secrets/key.txt,
// links leading out of it (sub/outlink to a file, sub/outdir to a directory) and to
// the secret, and a file outside; it returns the root set, the root, the secrets
// directory and the file outside.
func classifierFixture(t *testing.T) (*rootSet, string, string, string) {
	t.Helper()
	box := t.TempDir()
	root := filepath.Join(box, "ws")
	secrets := filepath.Join(root, "secrets")
	outside := filepath.Join(box, "outside", "outside.txt")
	for _, err := range []error{
		os.MkdirAll(filepath.Join(root, "sub", "nested"), 0o755),
		os.MkdirAll(filepath.Dir(outside), 0o755),
		os.Mkdir(secrets, 0o755),
		os.WriteFile(outside, []byte("x"), 0o644),
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644),
		os.WriteFile(filepath.Join(root, "b.txt"), []byte("b"), 0o644),
		os.WriteFile(filepath.Join(root, "notes.txt"), []byte("n"), 0o644),
		os.WriteFile(filepath.Join(root, ".hidden"), []byte("h"), 0o644),
		os.WriteFile(filepath.Join(root, "sub", "util.go"), []byte("u"), 0o644),
		os.WriteFile(filepath.Join(secrets, "key.txt"), []byte("k"), 0o644),
		os.Symlink("../../outside/outside.txt", filepath.Join(root, "sub", "outlink")),
		os.Symlink("../../outside", filepath.Join(root, "sub", "outdir")),
		os.Symlink(outside, filepath.Join(root, "out-link")),
		os.Symlink(filepath.Join(secrets, "key.txt"), filepath.Join(root, "key-link")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	rs, err := newRootSet([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	return rs, root, secrets, outside
}

// TestClassifyCommandPaths: a command is read-only only when every path it reads
// lies inside the roots, relative paths taken from the working directory and the cd
// before them, resolved component by component as the kernel resolves them (so
// that sub/outdir/.. is the parent of where the link leads); a path a Read deny rule
// hides makes it hidden whatever it does; what the shell expands (~) or cannot be
// told is not read-only.
func TestClassifyCommandPaths(t *testing.T) {
	rs, root, secrets, _ := classifierFixture(t)
	hidden := func(p string) bool { return p == secrets || strings.HasPrefix(p, secrets+"/") }
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
		{"cd /", "", commandOutside, "/"},
		{"cd sub", "", commandReadOnly, ""},
		{"cd sub && cat " + root + "/a.txt", "", commandReadOnly, ""},
		{"cd sub && cat ../notes.txt", "", commandWrites, ""}, // a relative path after a cd
		{"cd / && cat etc/passwd", "", commandWrites, ""},
		{"cd sub; ls", "", commandWrites, ""},
		{"cd sub || cat ../a.txt", "", commandWrites, ""},
		{"cd sub && cd nested && ls", "", commandWrites, ""},
		{"cd nowhere && ls", "", commandWrites, ""},
		{"cd sub/outdir/.. && ls", "", commandWrites, ""}, // bash and the kernel disagree on where that is
		{"cat ~/.ssh/id_rsa", "", commandOutside, "~/.ssh/id_rsa"},
		{"cd", "", commandOutside, "~"},
		{"echo a=~/x", "", commandOutside, "a=~/x"},
		{"grep --file=/etc/shadow x", "", commandOutside, "/etc/shadow"},
		{"grep -f ../x y a.txt", "", commandOutside, "../x"},
		{"grep /etc/passwd a.txt", "", commandReadOnly, ""}, // the pattern is not a file
		{"cat secrets/key.txt", "", commandHidden, secrets + "/key.txt"},
		{"cd secrets && cat key.txt", "", commandHidden, secrets},
		{"cat key.txt", secrets, commandHidden, secrets + "/key.txt"},
		{"cat secrets/key.txt > out.txt", "", commandHidden, secrets + "/key.txt"},
		{"grep secrets a.txt", "", commandReadOnly, ""},
		{"cat out-link", "", commandOutside, "out-link"},
		{"cat sub/outlink", "", commandOutside, "sub/outlink"},
		{"cat sub/outdir/outside.txt", "", commandOutside, "sub/outdir/outside.txt"},
		{"cat sub/outdir/../outside/outside.txt", "", commandOutside, "sub/outdir/../outside/outside.txt"},
		{"cat sub/outdir/../ws/a.txt", "", commandOutside, "sub/outdir/../ws/a.txt"}, // a .. after a name
		{"cat sub/../a.txt", "", commandOutside, "sub/../a.txt"},
		{"readlink sub/outlink", "", commandReadOnly, ""}, // the link itself
		{"readlink -f sub/outlink", "", commandOutside, "sub/outlink"},
		{"cat < /dev/null", "", commandReadOnly, ""},
		{"ls sub/outdir", "", commandOutside, "sub/outdir"},
		{"ls -l sub", "", commandReadOnly, ""},
		{"cat key-link", "", commandHidden, secrets + "/key.txt"},
		{"rm notes.txt", "", commandWrites, ""},
		{"cat $HOME/x", "", commandWrites, ""},
		{"cat /dev/null", "", commandOutside, "/dev/null"},
		{"cat /dev/sda", "", commandOutside, "/dev/sda"},
		{"cat " + root + "/a.txt", "", commandReadOnly, ""},
		{"test -f ../x", "", commandOutside, "../x"},
		{"[[ -f ../x ]]", "", commandOutside, "../x"},
		{"[ a.txt -nt ../x ]", "", commandOutside, "../x"},
		{"grep --exclude-from=../r x a.txt", "", commandOutside, "../r"},
		{"diff --to-file=../x a.txt", "", commandOutside, "../x"},
		{"timeout 5 cat sub/outlink", "", commandOutside, "sub/outlink"},
		{"find sub/outdir", "", commandOutside, "sub/outdir"},
		{"find . -newer ../x", "", commandOutside, "../x"},
		{"ls", secrets, commandHidden, secrets},
		{"grep -r x", secrets, commandHidden, secrets},
	} {
		got, culprit := rs.classifyCommand(tc.command, tc.cwd, hidden, true)
		if got != tc.want || culprit != tc.culprit {
			t.Errorf("%q in %q: %v %q, want %v %q", tc.command, tc.cwd, got, culprit, tc.want, tc.culprit)
		}
	}
}

// TestClassifyGlobs: a glob is expanded as bash would, from the command's
// directory, and each name checked as a literal path would be; a name that would
// be read as an option, a directory listing outside the roots or hidden, or a
// program whose operand positions matter, is not read-only.
func TestClassifyGlobs(t *testing.T) {
	rs, root, secrets, _ := classifierFixture(t)
	hidden := func(p string) bool { return p == secrets || strings.HasPrefix(p, secrets+"/") }
	for _, tc := range []struct {
		command string
		want    commandVerdict
	}{
		{"ls *.txt", commandReadOnly},
		{"cat *.txt", commandReadOnly},
		{"cat [ab].txt", commandReadOnly},
		{"wc -l sub/*.go", commandReadOnly},
		{"cat sub/*.go */util.go", commandReadOnly},
		{"cat */*.go", commandHidden},      // bash lists secrets/ to match it
		{"cat *.nothing", commandReadOnly}, // no match: bash passes the word, a missing file
		{"echo *", commandReadOnly},
		{"timeout 5 cat *.txt", commandReadOnly},
		{"cat secrets/*", commandHidden},
		{"cat sub/outdir/*", commandOutside},
		{"cat sub/*/outside.txt", commandOutside}, // matches sub/outdir, a link out of the root
		{"ls .*", commandOutside},                 // bash before 5.2 matches ..
		{"ls ../*", commandOutside},
		{"cat /etc/host*", commandOutside},
		{"*.txt", commandWrites},           // the command itself
		{"sed -n 1p *.txt", commandWrites}, // the first name would be the script
		{"find *.txt", commandWrites},
		{"git diff *.txt", commandWrites},
		{"timeout 5 *.txt", commandWrites}, // a.txt would be the command
		{"cat < *.txt", commandWrites},
	} {
		got, _ := rs.classifyCommand(tc.command, "", hidden, true)
		if got != tc.want {
			t.Errorf("%q: %v, want %v", tc.command, got, tc.want)
		}
	}
	// A file whose name is an option, matched by a glob, is not given to a program
	// as a name: sort would take it as --compress-program.
	if err := os.WriteFile(filepath.Join(root, "--compress-program=sh"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"sort *", "cat *", "ls -- *"} {
		if got, _ := rs.classifyCommand(cmd, "", nil, true); got != commandWrites {
			t.Errorf("%q with a file named --compress-program=sh: %v, want writes", cmd, got)
		}
	}
	// A glob matching too many names cannot be checked.
	many := filepath.Join(root, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= maxGlobMatches; i++ {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := rs.classifyCommand("ls many/*", "", nil, true); got != commandWrites {
		t.Errorf("a glob of %d names: %v, want writes", maxGlobMatches+1, got)
	}
}

// TestClassifyXargs: xargs runs a command with names from its input, which the
// classifier cannot see: read-only only when the command is one whose every option
// only reads, and only inside the kernel sandbox that bounds what the names reach.
func TestClassifyXargs(t *testing.T) {
	rs, root, secrets, _ := classifierFixture(t)
	_ = root
	for _, tc := range []struct {
		command  string
		confined bool
		hidden   func(string) bool
		want     commandVerdict
	}{
		{"find . -name '*.go' | xargs wc -l", true, nil, commandReadOnly},
		{"find . -name '*.go' -print0 | xargs -0 wc -c", true, nil, commandReadOnly},
		{"find . -name '*.go' | xargs grep -l x", true, nil, commandWrites}, // prints what it reads
		{"cat list | xargs", true, nil, commandReadOnly},
		{"cat list | xargs -n 1 wc -l", true, nil, commandReadOnly},
		{"cat list | xargs -I{} grep x {}", true, nil, commandWrites}, // the input inside the command
		{"cat list | xargs cat", true, nil, commandWrites},            // the original runs only a few
		{"find . | xargs wc -l", false, nil, commandWrites},           // no sandbox bounds the names
		// The kernel keeps what a deny rule hides from the names xargs reads.
		{"find . | xargs wc -l", true, func(p string) bool { return strings.HasPrefix(p, secrets) }, commandReadOnly},
		{"cat list | xargs sort", true, nil, commandWrites}, // an input word --compress-program=sh
		{"cat list | xargs file", true, nil, commandWrites}, // -C writes
		{"cat list | xargs sed -n 1p", true, nil, commandWrites},
		{"cat list | xargs rm", true, nil, commandWrites},
		{"cat list | xargs sh -c ls", true, nil, commandWrites},
		{"cat list | xargs -I cat cat", true, nil, commandWrites}, // the input names the command
		{"xargs -a list cat", true, nil, commandWrites},
		{"cat list | xargs --process-slot-var=PATH wc", true, nil, commandWrites},
		{"cat list | xargs -p cat", true, nil, commandWrites},
	} {
		got, _ := rs.classifyCommand(tc.command, "", tc.hidden, tc.confined)
		if got != tc.want {
			t.Errorf("%q (confined %v): %v, want %v", tc.command, tc.confined, got, tc.want)
		}
	}
}

// TestSedScript: sed scripts are parsed as GNU sed parses them (a bracket
// expression holds the delimiter, blanks may separate the s flags), so that no
// command or flag that writes or executes hides in one.
func TestSedScript(t *testing.T) {
	for script, want := range map[string]bool{
		"p": true, "1,5p": true, "$p": true, "/x/p": true, "/x/Ip": true, `\,x,p`: true, "1~2p": true,
		"0,/x/p": true, "1,+2p": true, "1!p": true, "s/a/b/": true, "s/a/b/g": true, "s/a/b/gp2": true,
		"s/a/b/ p": true, "s|a/b|c|": true, "s/[/]/x/": true, "s/[]/]/x/": true, "s/[[:alpha:]/]/x/": true,
		`s/a\/b/c/`: true, "y/ab/cd/": true, "1{p;q}": true, "{p}": true, "$a text; w out": true,
		"a\\\ntext": true, ":a;N;$!ba": true, "b end;p;:end": true, "=": true, "l 5": true, "q5": true, "# w out\np": true,
		"w out": false, "1w out": false, "s/a/b/w out": false, "s/a/b/ w out": false, "s/a/b/e": false,
		"e id": false, "1e id": false, "r /etc/passwd": false, "R f": false, "W out": false, "s/[/]/x/w o": false,
		"s/a/b/;w o": false, "p;s/x/y/w o": false, "s/a/b": false, "s/[/x/": false, "y/a/b/ p": false, "k": false,
		"s/a/b/\nw o": false, "{p;w o}": false, "s/a\\/b/x/w o": false,
	} {
		if got := sedScript(script); got != want {
			t.Errorf("sedScript(%q) = %v, want %v", script, got, want)
		}
	}
	// The parser agrees with GNU sed where it is installed: what it accepts, sed
	// runs without writing (w /dev/stdout would print twice).
	if _, err := exec.LookPath("sed"); err != nil {
		return
	}
	for _, script := range []string{"s/[/]/x/ w /dev/stdout", "s/x/y/;p", "/[/]/p"} {
		if sedScript(script) {
			out, _ := exec.Command("sed", "-n", script).CombinedOutput()
			if strings.Count(string(out), "x") > 1 {
				t.Errorf("sedScript(%q) accepted a script sed writes with: %q", script, out)
			}
		}
	}
}
