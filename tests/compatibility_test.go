package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luatool/luatool/internal/extdata"
)

// oracleCasesName is how the differential oracle's cases file is named in what the
// tests record and say when it is missing.
const oracleCasesName = "cc-oracle's cases.json"

// ccOracleCases is the differential oracle's cases file: CC_ORACLE_CASES, else the
// harness beside the project (../shared/cc-oracle/ from the repository's parent).
func ccOracleCases() string {
	if p := os.Getenv("CC_ORACLE_CASES"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "cc-oracle", "cases.json")
}

// projectCases are the project's own cases files for the oracle, beside the goldens
// (project-cases.json, and a file for tools the harness offers on request).
const projectCases = "testdata/ccgolden/*-cases.json"

// TestCompatibilityDocument keeps docs/compatibility.md honest: every deliberate
// deviation says what the original does, what luatool does and why, and every
// oracle case it names (a "Cases:" line of backquoted ids) exists in the harness's
// cases.json or in one of the project's cases files. The harness lives outside the
// repository: without it the ids are not checked, and the subtest that checks them
// skips saying so (fails where LUATOOL_REQUIRE_TEST_DATA=1, as in CI).
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
	t.Run("case ids", func(t *testing.T) {
		if _, err := os.Stat(ccOracleCases()); err != nil {
			extdata.Unavailable(t, fmt.Sprintf("%s not found (%v)", oracleCasesName, err),
				"It is the differential oracle's, kept beside the project in ../shared/cc-oracle; set CC_ORACLE_CASES to its path.")
		}
		extdata.Record(t, oracleCasesName)
		have := map[string]bool{}
		files, err := filepath.Glob(projectCases)
		if err != nil || len(files) == 0 {
			t.Fatalf("no project cases files %s (%v)", projectCases, err)
		}
		for _, f := range files {
			readCaseIDs(t, f, have)
		}
		readCaseIDs(t, ccOracleCases(), have)
		for id, title := range named {
			if !have[id] {
				t.Errorf("deviation %q names case %s, which neither %s nor %s has", title, id, ccOracleCases(), projectCases)
			}
		}
	})
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
	// A Cases line may go on over lines indented by two spaces, as the document wraps.
	caseLine := regexp.MustCompile(`(?m)^- \*\*Cases:\*\* (.*(?:\n  .*)*)$`)
	caseID := regexp.MustCompile("^`([^`]+)`")
	var out []deviation
	for _, sec := range sections {
		d := deviation{body: sec}
		d.title, _, _ = strings.Cut(sec, "\n")
		if m := caseLine.FindStringSubmatch(sec); m != nil && !strings.HasPrefix(m[1], "none") {
			for _, item := range strings.Split(strings.ReplaceAll(m[1], "\n  ", " "), ", ") {
				if id := caseID.FindStringSubmatch(item); id != nil {
					d.cases = append(d.cases, id[1])
				}
			}
		}
		out = append(out, d)
	}
	return out
}
