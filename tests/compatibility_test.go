package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ccOracleCases is the differential oracle's cases file: CC_ORACLE_CASES, else the
// harness beside the project (../shared/cc-oracle/ from the repository's parent).
func ccOracleCases() string {
	if p := os.Getenv("CC_ORACLE_CASES"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "cc-oracle", "cases.json")
}

// TestCompatibilityDocument keeps docs/compatibility.md honest: every deliberate
// deviation says what the original does, what luatool does and why, and every
// oracle case it names (a "Cases:" line of backquoted ids) exists in the harness's cases.json (checked when the harness
// is there; CI without it checks the shape alone).
func TestCompatibilityDocument(t *testing.T) {
	named := map[string]string{} // case id -> the deviation naming it
	for _, d := range compatibilityDeviations(t) {
		for _, part := range []string{"- **Cases:**", "- **The original:**", "- **luatool:**", "- **Why:**"} {
			if !strings.Contains(d.body, "\n"+part+" ") {
				t.Errorf("deviation %q has no %q line", d.title, part)
			}
		}
		for _, id := range d.cases {
			named[id] = d.title
		}
	}
	data, err := os.ReadFile(ccOracleCases())
	if err != nil {
		t.Skipf("cases.json not found (%v): the case ids are not checked", err)
	}
	var cases struct {
		Cases []struct {
			ID string `json:"id"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", ccOracleCases(), err)
	}
	have := map[string]bool{}
	for _, c := range cases.Cases {
		have[c.ID] = true
	}
	for id, title := range named {
		if !have[id] {
			t.Errorf("deviation %q names case %s, which %s does not have", title, id, ccOracleCases())
		}
	}
}

// deviation is one entry of docs/compatibility.md's "Deliberate deviations": its
// title, its text and the oracle cases its "Cases:" line names.
type deviation struct {
	title, body string
	cases       []string
}

// compatibilityDeviations reads the deliberate deviations of docs/compatibility.md.
// A "Cases:" line names case ids in backquotes, each at the start of an item of a
// comma-separated list; "none (...)" is a deviation the oracle's cases do not show,
// whose note may name tests or recordings, not case ids.
func compatibilityDeviations(t *testing.T) []deviation {
	t.Helper()
	b, err := os.ReadFile("../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	_, devs, ok := strings.Cut(string(b), "\n## Deliberate deviations\n")
	if !ok {
		t.Fatal(`docs/compatibility.md has no "## Deliberate deviations" section`)
	}
	sections := strings.Split(devs, "\n### ")[1:]
	if len(sections) == 0 {
		t.Fatal("docs/compatibility.md lists no deviation")
	}
	caseLine := regexp.MustCompile(`(?m)^- \*\*Cases:\*\* (.*)$`)
	caseID := regexp.MustCompile("^`([^`]+)`")
	var out []deviation
	for _, sec := range sections {
		d := deviation{body: sec}
		d.title, _, _ = strings.Cut(sec, "\n")
		if m := caseLine.FindStringSubmatch(sec); m != nil && !strings.HasPrefix(m[1], "none") {
			for _, item := range strings.Split(m[1], ", ") {
				if id := caseID.FindStringSubmatch(item); id != nil {
					d.cases = append(d.cases, id[1])
				}
			}
		}
		out = append(out, d)
	}
	return out
}
