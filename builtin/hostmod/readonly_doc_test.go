package hostmod

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The classifier's document, docs/classifier.md, shows the table as the code holds
// it: TestClassifierDocument renders the table and compares it with the document's
// generated part; LUATOOL_UPDATE_DOCS=1 writes it instead.

const (
	classifierDoc      = "../../docs/classifier.md"
	classifierDocBegin = "<!-- The table below is generated from the code by TestClassifierDocument (builtin/hostmod/readonly_doc_test.go); LUATOOL_UPDATE_DOCS=1 go test ./builtin/hostmod -run TestClassifierDocument writes it. -->\n"
	classifierDocEnd   = "<!-- End of the generated table. -->\n"
)

// TestClassifierDocument keeps docs/classifier.md's table of programs equal to the
// classifier's table.
func TestClassifierDocument(t *testing.T) {
	b, err := os.ReadFile(classifierDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok1 := strings.Cut(doc, classifierDocBegin)
	_, after, ok2 := strings.Cut(rest, classifierDocEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated part between %q and %q", classifierDoc, classifierDocBegin, classifierDocEnd)
	}
	want := before + classifierDocBegin + renderClassifierTable() + classifierDocEnd + after
	if want == doc {
		return
	}
	if os.Getenv("LUATOOL_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(classifierDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table differs from the code's; run LUATOOL_UPDATE_DOCS=1 go test ./builtin/hostmod -run TestClassifierDocument", classifierDoc)
}

// renderClassifierTable renders every program of the table, then git's subcommands.
func renderClassifierTable() string {
	var b strings.Builder
	names := make([]string, 0, len(programs))
	for n := range programs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := programs[n]
		kind := "its own parser"
		switch {
		case p.plain && p.opts != nil:
			kind = "plain: GNU options, abbreviations as the program resolves them"
		case p.plain:
			kind = "plain"
		case p.opts != nil && p.opts.strict:
			kind = "strict: exact option names"
		case p.opts != nil:
			kind = "exact option names"
		}
		if p.globs {
			kind += "; globs"
		}
		fmt.Fprintf(&b, "### %s\n\n%s.\n", n, capitalize(kind))
		if p.opts != nil {
			renderOptions(&b, p.opts)
		}
		if p.note != "" {
			fmt.Fprintf(&b, "\n%s.\n", capitalize(p.note))
		}
		b.WriteString("\n")
	}
	subs := make([]string, 0, len(gitSubcommands))
	for n := range gitSubcommands {
		subs = append(subs, n)
	}
	sort.Strings(subs)
	b.WriteString("### git's subcommands\n\nStrict: exact option names; a dash and digits is a count.\n\n")
	for _, n := range subs {
		s := gitSubcommands[n]
		fmt.Fprintf(&b, "#### git %s\n", n)
		renderOptions(&b, s.opts)
		if s.note != "" {
			fmt.Fprintf(&b, "\n%s.\n", capitalize(s.note))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// renderOptions lists an option set's allowed options, then those the program has
// that are not read-only.
func renderOptions(b *strings.Builder, s *optionSet) {
	var allowed, refused []string
	for _, o := range s.all {
		spec := "`" + strings.TrimSuffix(strings.TrimSpace(o.spec), " !") + "`"
		if o.refused {
			refused = append(refused, spec)
		} else {
			allowed = append(allowed, spec)
		}
	}
	if s.counts {
		allowed = append(allowed, "`-NUM`")
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			items = []string{"none"}
		}
		fmt.Fprintf(b, "\n%s: %s.\n", title, strings.Join(items, ", "))
	}
	list("Allowed", allowed)
	if len(refused) > 0 {
		list("Known, not read-only", slices.Clip(refused))
	}
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
