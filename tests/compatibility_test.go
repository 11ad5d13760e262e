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

// projectCases is the project's own cases file for the oracle, beside the goldens.
const projectCases = "testdata/ccgolden/project-cases.json"

// TestCompatibilityDocument keeps docs/compatibility.md honest: every deliberate
// deviation says what the original does, what luatool does and why, and every
// oracle case it names (a "Cases:" line of backquoted ids) exists in the harness's
// cases.json or in the project's project-cases.json (the harness's ids are checked
// when the harness is there).
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
	have := map[string]bool{}
	readCaseIDs(t, projectCases, have)
	harness := true
	if _, err := os.Stat(ccOracleCases()); err != nil {
		t.Logf("the harness's cases.json is not there (%v): only the ids of %s are checked", err, projectCases)
		harness = false
	} else {
		readCaseIDs(t, ccOracleCases(), have)
	}
	for id, title := range named {
		if !have[id] && harness {
			t.Errorf("deviation %q names case %s, which neither %s nor %s has", title, id, ccOracleCases(), projectCases)
		}
	}
}

// readCaseIDs adds the case ids of an oracle cases file to have.
func readCaseIDs(t *testing.T, path string, have map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Cases []struct {
			ID string `json:"id"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, c := range cases.Cases {
		have[c.ID] = true
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
