package hostmod

import (
	"reflect"
	"strings"
	"testing"
)

// TestOptionParserReadsAsGetoptLong: the shared parser reads a command line as GNU
// getopt_long does (abbreviations, attached and separate values, clusters, "--",
// permutation), and as the other syntaxes of the table say.
func TestOptionParserReadsAsGetoptLong(t *testing.T) {
	gnuSet := newOptionSet(getoptSyntax, true, "-n --lines=N", "-q --quiet --silent", "-v --verbose",
		"--verbose-extra", "-o --output=FILE !", "--color[=WHEN]", "-i[=SUFFIX]", "--merged=COMMIT?",
		"--out-of-order")
	type parsed struct {
		opts     []string // spec=value for each option
		operands []string
	}
	show := func(p *parsedArgs) parsed {
		var r parsed
		for _, po := range p.opts {
			s := po.opt.spec
			if po.hasValue {
				s += "=" + po.value
			}
			r.opts = append(r.opts, s)
		}
		r.operands = p.operands
		return r
	}
	for _, tc := range []struct {
		args []string
		want *parsed // nil: refused
	}{
		{[]string{"--lines=5", "a"}, &parsed{[]string{"-n --lines=N=5"}, []string{"a"}}},
		{[]string{"--lines", "5"}, &parsed{[]string{"-n --lines=N=5"}, nil}},
		{[]string{"--li=5"}, &parsed{[]string{"-n --lines=N=5"}, nil}},   // an unambiguous prefix
		{[]string{"--l", "5"}, &parsed{[]string{"-n --lines=N=5"}, nil}}, // the shortest one
		{[]string{"-n5"}, &parsed{[]string{"-n --lines=N=5"}, nil}},
		{[]string{"-n", "5"}, &parsed{[]string{"-n --lines=N=5"}, nil}},
		{[]string{"-qn5"}, &parsed{[]string{"-q --quiet --silent", "-n --lines=N=5"}, nil}},
		{[]string{"-qn", "5", "x"}, &parsed{[]string{"-q --quiet --silent", "-n --lines=N=5"}, []string{"x"}}},
		{[]string{"a", "-q", "b"}, &parsed{[]string{"-q --quiet --silent"}, []string{"a", "b"}}}, // permuted
		{[]string{"--", "-q", "--output=x"}, &parsed{nil, []string{"-q", "--output=x"}}},
		{[]string{"-", "-q"}, &parsed{[]string{"-q --quiet --silent"}, []string{"-"}}},
		{[]string{"--sil"}, &parsed{[]string{"-q --quiet --silent"}, nil}},
		{[]string{"--verbose"}, &parsed{[]string{"-v --verbose"}, nil}}, // exact wins over --verbose-extra
		{[]string{"--color"}, &parsed{[]string{"--color[=WHEN]"}, nil}},
		{[]string{"--color", "x"}, &parsed{[]string{"--color[=WHEN]"}, []string{"x"}}}, // optional: attached only
		{[]string{"-ibak"}, &parsed{[]string{"-i[=SUFFIX]=bak"}, nil}},
		{[]string{"-i", "bak"}, &parsed{[]string{"-i[=SUFFIX]"}, []string{"bak"}}},
		{[]string{"--merged"}, &parsed{[]string{"--merged=COMMIT?"}, nil}},
		{[]string{"--merged", "x"}, &parsed{[]string{"--merged=COMMIT?=x"}, nil}},
		{[]string{"-7"}, &parsed{[]string{"-NUM=7"}, nil}},
		{[]string{"--verb"}, nil},    // ambiguous: --verbose, --verbose-extra
		{[]string{"--o=x"}, nil},     // ambiguous: --output, --out-of-order
		{[]string{"--outp=x"}, nil},  // --output, refused
		{[]string{"-o", "x"}, nil},   // refused
		{[]string{"-qo", "x"}, nil},  // refused inside a cluster
		{[]string{"--quiet=x"}, nil}, // takes no value
		{[]string{"--lines"}, nil},   // a value required
		{[]string{"-x"}, nil},        // unknown
		{[]string{"--unknown"}, nil}, // unknown
		{[]string{"-q", "--", "-o"}, &parsed{[]string{"-q --quiet --silent"}, []string{"-o"}}},
	} {
		p, _, ok := gnuSet.parse(tc.args)
		switch {
		case tc.want == nil && ok:
			t.Errorf("%q: parsed as %+v, want refused", tc.args, show(p))
		case tc.want != nil && !ok:
			t.Errorf("%q: refused, want %+v", tc.args, *tc.want)
		case tc.want != nil && !reflect.DeepEqual(show(p), *tc.want):
			t.Errorf("%q: %+v, want %+v", tc.args, show(p), *tc.want)
		}
	}

	// Stopping at the first operand, and full names only.
	stop := newOptionSet(exactStopSyntax, false, "-k --kill-after=D")
	if p, _, ok := stop.parse([]string{"-k", "1", "5", "cmd", "-k", "--x"}); !ok || !reflect.DeepEqual(p.operands, []string{"5", "cmd", "-k", "--x"}) {
		t.Errorf("stop syntax: %+v %v", p, ok)
	}
	exact := newOptionSet(exactSyntax, false, "--format=F")
	if _, _, ok := exact.parse([]string{"--form=x"}); ok {
		t.Error("exact syntax took an abbreviation")
	}
	if p, _, ok := exact.parse([]string{"--format", "x"}); !ok || p.values("--format")[0] != "x" {
		t.Errorf("exact syntax: %+v %v", p, ok)
	}
}

// TestOptionSpecsAreChecked: a malformed spec, or a name given twice, is a
// programmer's error that panics at start, naming the spec.
func TestOptionSpecsAreChecked(t *testing.T) {
	for _, specs := range [][]string{{"n lines"}, {"--lines=N --count"}, {"-n=", "-m"}, {"-n", "-n --num"}, {""}, {"--a[=X"}} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), "hostmod:") {
					t.Errorf("%q: recovered %v, want a panic naming the spec", specs, r)
				}
			}()
			newOptionSet(getoptSyntax, false, specs...)
		}()
	}
}
