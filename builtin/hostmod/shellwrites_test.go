package hostmod

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteTargets: what a command line may write, told before it runs: output
// redirections, the operands of the commands that write files (a copy's destination
// under each source's name, a recursive one's trees), in every directory a cd may
// have led to, globs expanded with dot files; and the words it cannot tell.
func TestWriteTargets(t *testing.T) {
	cwd := t.TempDir()
	for _, d := range []string{"tools", "sub"} {
		if err := os.Mkdir(filepath.Join(cwd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cwd, ".hidden"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		want    []string // relative to cwd; a trailing "/**" marks a tree
		unknown []string // substrings of the unknown words, in order
	}{
		{"ls -la", nil, nil},
		{"echo x > a", []string{"a"}, nil},
		{"echo x >> a 2>&1 >&2 2>/dev/null", []string{"a", "/dev/null"}, nil},
		{"echo x &> all >| clob", []string{"all", "clob"}, nil},
		{"echo x >&file", []string{"file"}, nil},
		{"cat > out <<EOF\nhi\nEOF", []string{"out"}, nil},
		{"cp a b", []string{"a", "b", "b/a"}, nil},
		{"cp -r src dst", []string{"src/**", "dst/**", "dst/src/**"}, nil},
		{"mv a dir/", []string{"a/**", "dir//**", "dir//a/**"}, nil},
		{"rm -rf x", []string{"f", "x/**"}, nil}, // "f" as if -r took it attached: more, never less
		{"rm x", []string{"x"}, nil},
		{"chmod -R 700 d", []string{"700/**", "d/**"}, nil},
		{"cd sub && echo > f", []string{"f", "sub/f"}, nil},
		{`cd "$D" && echo > f`, nil, []string{"f"}},
		{`echo > "$F"`, nil, []string{`"$F"`}},
		{"echo x | tee -a log", []string{"log"}, nil},
		{"sed -i s/a/b/ f", []string{"s/a/b/", "f"}, nil},
		{"dd if=a of=b", []string{"a", "b", "if=a", "of=b"}, nil},
		{"sort -o.git/config x", []string{".git/config", "x"}, nil},
		{"git config core.fsmonitor evil", []string{"./.git/config"}, nil},
		{"git -C sub config x y", []string{"sub/.git/config"}, nil},
		{"git status", nil, nil},
		{"git submodule add u p", []string{"./.gitmodules", "./.git/config"}, nil},
		{"sh -c 'echo > inner'", []string{"inner"}, nil},
		{`eval "touch e"`, []string{"e"}, nil},
		{"bash script.sh", nil, []string{"script.sh"}},
		{"xargs rm < list", nil, []string{"xargs reads from its input for rm"}},
		{"tar xf a.tar", []string{"xf", "a.tar"}, []string{"the files tar writes"}},
		{"tar -czf out.tgz dir", []string{"zf", "out.tgz", "dir"}, nil},
		{"unzip a.zip", []string{"a.zip"}, []string{"the files unzip writes"}},
		{"find . -name x -delete", []string{"./**"}, nil},
		{"find src -name x", nil, nil},
		{"find . -fprint out", []string{"out", "./**"}, nil},
		{"nice -n 5 touch n", []string{"n"}, nil},
		{"sudo -u bob touch s", []string{"s"}, nil},
		{"timeout 10s env A=b /usr/bin/touch w", []string{"w"}, nil},
		{"ln -s ../tools sub/t", []string{"../tools", "sub/t", "sub/t/tools", "sub/t/../tools", "sub/../tools"}, nil},
		{"rm -rf t*", []string{"f", "tools/**"}, nil},
		{"touch .h*", []string{".hidden"}, nil},
		{"touch {a,b}.txt", []string{"a.txt", "b.txt"}, nil},
		{"touch 'q*'", []string{"q*"}, nil},
		{"$CMD x", nil, []string{"$CMD"}},
		{"env -C /x touch y", nil, []string{"y"}},
		{"(cd sub; touch z)", []string{"z", "sub/z"}, nil},
		// The scratch directory holds nothing protected, while TMPDIR keeps its value.
		{"echo x > $TMPDIR/a && sort -o \"${TMPDIR}/s\" a", []string{"a"}, nil},
		{"mknod $TMPDIR/disk b 7 0", []string{"b", "7", "0"}, nil},
		{"TMPDIR=tools; echo > $TMPDIR/x", nil, []string{"$TMPDIR/x"}},
		{"read TMPDIR; echo > $TMPDIR/x", nil, []string{"$TMPDIR/x"}},
		{"v=TMP; read ${v}DIR; echo > $TMPDIR/x", nil, []string{"$TMPDIR/x"}},
		{"echo > ${TMPDIR:=tools}/x", nil, []string{"${TMPDIR:=tools}/x"}},
		{"echo > $TMPDIR/../tools/x", nil, []string{"$TMPDIR/../tools/x"}},
		{"sh -c 'echo > $TMPDIR/x'", nil, []string{"$TMPDIR/x"}},
	} {
		t.Run(tc.command, func(t *testing.T) {
			got, err := writeTargets(tc.command, cwd)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, w := range got.targets {
				p := w.path
				if rel, ok := strings.CutPrefix(p, cwd+"/"); ok {
					p = rel
				}
				if w.tree {
					p += "/**"
				}
				paths = append(paths, p)
			}
			if !slices.Equal(paths, tc.want) {
				t.Errorf("targets %q, want %q", paths, tc.want)
			}
			if len(got.unknown) != len(tc.unknown) {
				t.Fatalf("unknown %q, want %q", got.unknown, tc.unknown)
			}
			for i, u := range tc.unknown {
				if !strings.Contains(got.unknown[i], u) {
					t.Errorf("unknown %q, want %q", got.unknown, tc.unknown)
				}
			}
		})
	}
	if _, err := writeTargets("echo 'unclosed", cwd); err == nil {
		t.Error("a command that does not parse: no error")
	}
}
