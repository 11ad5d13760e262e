package tests

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// ccGoldenDir holds the golden files, each a cases file's fixture, its cases and
// Claude Code's recorded answers: golden.json for the harness's own cases.json, and
// NAME-golden.json for the project's NAME-cases.json beside it (project-cases.json:
// the cases this project adds to the harness's).
const ccGoldenDir = "testdata/ccgolden"

// ccGoldenFrom, when set, makes TestCCGolden rewrite the golden file of the cases an
// oracle run used from its output directory before it compares (see
// docs/compatibility.md, "How to check").
var ccGoldenFrom = flag.String("ccgolden-from", "", "rewrite the golden file of the cases a cc-oracle run used, from its output directory (its $CC_ORACLE_OUT)")

// ccGoldenName is the golden file's name for a cases file: NAME-golden.json for
// NAME-cases.json, golden.json for the harness's cases.json.
func ccGoldenName(casesFile string) string {
	if name, ok := strings.CutSuffix(filepath.Base(casesFile), "-cases.json"); ok {
		return name + "-golden.json"
	}
	return "golden.json"
}

// ccGolden is what the golden file holds: the version of Claude Code the texts were
// recorded with, the cases file's options that are not the oracle's defaults, the
// fixture the oracle builds, and each case with the original's normalised text.
type ccGolden struct {
	ClaudeCode string         `json:"claude_code"`
	Options    *ccOptions     `json:"options,omitempty"`
	Fixture    []ccGoldenFile `json:"fixture"`
	Cases      []ccGoldenCase `json:"cases"`
}

// ccGoldenFile is one entry of the fixture: a directory, or a file whose content is
// Text when it is UTF-8 and Base64 otherwise. Mtime (Unix seconds) matters: Glob and
// Grep sort by it.
type ccGoldenFile struct {
	Path   string  `json:"path"`
	Dir    bool    `json:"dir,omitempty"`
	Mtime  int64   `json:"mtime"`
	Text   *string `json:"text,omitempty"`
	Base64 string  `json:"base64,omitempty"`
}

// ccGoldenCase is one oracle case: its input (with <WS> for the workspace) and
// Claude Code's answer, normalised as the oracle normalises it.
type ccGoldenCase struct {
	ID      string          `json:"id"`
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input"`
	IsError bool            `json:"is_error"`
	Text    string          `json:"text"`
}

// TestCCGolden runs the differential oracle's cases through luatool, as the oracle
// does, and compares each text and is_error with the one Claude Code returned when
// the goldens were recorded, so that CI keeps the standard tools' fidelity without
// Node or the original. The cases docs/compatibility.md lists as deliberate
// deviations are not compared.
func TestCCGolden(t *testing.T) {
	if *ccGoldenFrom != "" {
		writeCCGolden(t, *ccGoldenFrom)
	}
	paths, err := filepath.Glob(filepath.Join(ccGoldenDir, "*golden.json"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("%s: want golden.json and project-golden.json, found %v (%v)", ccGoldenDir, paths, err)
	}
	deviations := map[string]string{} // case id -> the deviation's title
	for _, d := range compatibilityDeviations(t) {
		for _, id := range d.cases {
			deviations[id] = d.title
		}
	}
	have := map[string]bool{}
	for _, path := range paths {
		g := loadCCGolden(t, path)
		for _, c := range g.Cases {
			if have[c.ID] {
				t.Errorf("%s: case id %s is used twice in the goldens", path, c.ID)
			}
			have[c.ID] = true
		}
		t.Run(filepath.Base(path), func(t *testing.T) { compareCCGolden(t, path, g, deviations) })
	}
	for id, title := range deviations {
		if !have[id] {
			t.Errorf("docs/compatibility.md: deviation %q names case %s, which no golden file in %s has", title, id, ccGoldenDir)
		}
	}
}

// compareCCGolden runs the cases of one golden file through luatool and compares
// each answer with Claude Code's.
func compareCCGolden(t *testing.T, path string, g ccGolden, deviations map[string]string) {
	ws := filepath.Join(t.TempDir(), "ws")
	if err := writeCCFixture(ws, g.Fixture); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	norm, err := newCCNormaliser(g.Options)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got := runCCCases(t, ws, path, g)
	wsPaths := []string{ws}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		wsPaths = append(wsPaths, real)
	}
	compared := 0
	for i, c := range g.Cases {
		r, ok := got[ccCaseID(i, c.ID)]
		// Every text is normalised, in case order, compared or not: ids are
		// numbered in order of first sight, as the oracle numbers them.
		text := norm.apply(normaliseCCText(r.text, wsPaths))
		if title, ok := deviations[c.ID]; ok {
			t.Logf("%s: not compared, a deliberate deviation (%s)", c.ID, title)
			continue
		}
		compared++
		if !ok {
			t.Errorf("%s (%s): luatool returned no result", c.ID, c.Tool)
			continue
		}
		if r.isError != c.IsError {
			t.Errorf("%s (%s): is_error %v, Claude Code %s: %v; text:\n%s", c.ID, c.Tool, r.isError, g.ClaudeCode, c.IsError, text)
		}
		if text != c.Text {
			t.Errorf("%s (%s): the text differs from Claude Code %s's: %s", c.ID, c.Tool, g.ClaudeCode, firstDifference(c.Text, text))
		}
	}
	t.Logf("%s: %d cases compared with Claude Code %s, %d deliberate deviations", path, compared, g.ClaudeCode, len(g.Cases)-compared)
}

// writeCCGolden rewrites, from an oracle run's output directory, the golden file of
// the cases that run used.
func writeCCGolden(t *testing.T, out string) {
	g, casesFile, err := ccGoldenFromOracle(out)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the texts keep their <tool_use_error> readable
	enc.SetIndent("", " ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ccGoldenDir, ccGoldenName(casesFile))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s from the cases of %s: %d cases, %d fixture entries, Claude Code %s", path, casesFile, len(g.Cases), len(g.Fixture), g.ClaudeCode)
}

// loadCCGolden reads and checks a golden file.
func loadCCGolden(t *testing.T, path string) ccGolden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g ccGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if g.ClaudeCode == "" || len(g.Cases) == 0 || len(g.Fixture) == 0 {
		t.Fatalf("%s: want the Claude Code version, the fixture and the cases; got version %q, %d fixture entries, %d cases",
			path, g.ClaudeCode, len(g.Fixture), len(g.Cases))
	}
	return g
}

// ccCaseID is the tool_use id the oracle gives case i.
func ccCaseID(i int, id string) string {
	return fmt.Sprintf("toolu_%02d_%s", i+1, id)
}

// ccResult is one tool_result of luatool, its content as the model reads it.
type ccResult struct {
	text    string
	isError bool
}

// runCCCases runs the cases as the oracle runs luatool: all the calls in one turn,
// `--root WS --mode acceptEdits --allow Bash --json run turn.json` in the workspace,
// one call at a time in order, with a home of its own so that no user configuration
// takes part, and the cases file's options (its --allow list, its environment for
// luatool, the serve driver). It returns the results by tool_use id.
func runCCCases(t *testing.T, ws, path string, g ccGolden) map[string]ccResult {
	t.Helper()
	luatoolBinary(t) // built from this directory, before the chdir below
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("LUATOOL_MAX_TOOL_USE_CONCURRENCY", "1")
	if g.Options != nil {
		for k, v := range g.Options.Env {
			t.Setenv(k, v)
		}
	}
	t.Chdir(ws)
	args := []string{"--root", ws, "--mode", "acceptEdits"}
	for _, a := range g.Options.allowed() {
		args = append(args, "--allow", a)
	}
	if g.Options.serve() {
		return serveCCCases(t, ws, path, g.Cases, args)
	}
	cases := g.Cases
	type toolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	turn := make([]toolUse, len(cases))
	for i, c := range cases {
		input, err := instantiate(c.Input, ws)
		if err != nil {
			t.Fatalf("%s: case %s: %v", path, c.ID, err)
		}
		turn[i] = toolUse{"tool_use", ccCaseID(i, c.ID), c.Tool, input}
	}
	b, err := json.Marshal(turn)
	if err != nil {
		t.Fatal(err)
	}
	turnPath := filepath.Join(t.TempDir(), "turn.json")
	if err := os.WriteFile(turnPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, append(args, "--json", "run", turnPath)...)
	var blocks []struct {
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(stdout), &blocks); err != nil {
		t.Fatalf("luatool run exited %d with no JSON results (%v)\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	out := map[string]ccResult{}
	for _, b := range blocks {
		text, err := contentText(b.Content)
		if err != nil {
			t.Fatalf("result %s: %v", b.ToolUseID, err)
		}
		out[b.ToolUseID] = ccResult{text, b.IsError}
	}
	return out
}

// instantiate puts the workspace's path for <WS> in every string of a case's input,
// keys included, as the oracle's replacement in the input's JSON text does.
func instantiate(input json.RawMessage, ws string) (json.RawMessage, error) {
	return mapInputStrings(input, func(s string) (string, error) { return strings.ReplaceAll(s, "<WS>", ws), nil })
}

// mapInputStrings applies fn to every string of a JSON value, keys included,
// keeping the order of each object's keys, as the oracle's Python does: the order a
// model sends parameters in shows in the original's validation errors.
func mapInputStrings(input json.RawMessage, fn func(string) (string, error)) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var out bytes.Buffer
	var value func() error
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case json.Delim:
			closing := map[json.Delim]byte{'{': '}', '[': ']'}[tok]
			out.WriteByte(byte(tok))
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if tok == '{' {
					key, err := dec.Token()
					if err != nil {
						return err
					}
					if err := writeJSONString(&out, key.(string), fn); err != nil {
						return err
					}
					out.WriteByte(':')
				}
				if err := value(); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte(closing)
			return nil
		case string:
			return writeJSONString(&out, tok, fn)
		default:
			b, err := json.Marshal(tok)
			out.Write(b)
			return err
		}
	}
	if err := value(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writeJSONString writes fn(s) to out as a JSON string.
func writeJSONString(out *bytes.Buffer, s string, fn func(string) (string, error)) error {
	s, err := fn(s)
	if err != nil {
		return err
	}
	b, err := json.Marshal(s)
	out.Write(b)
	return err
}

// contentText is the text a model reads in a tool_result's content, as the oracle
// takes it: a string as it is; a list of blocks as their texts joined by newlines,
// other blocks named.
func contentText(content json.RawMessage) (string, error) {
	if len(content) == 0 || string(content) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return "", fmt.Errorf("content is neither a string nor a list of blocks: %v", err)
	}
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		if b.Type == "text" {
			parts[i] = b.Text
		} else {
			parts[i] = "[" + b.Type + " block]"
		}
	}
	return strings.Join(parts, "\n"), nil
}

// timing is a timing figure as the oracle's normalise finds it; the oracle also
// requires whitespace, ')', '.', ',' or the end after it, which RE2 cannot look
// ahead for, so normaliseCCText checks that itself.
var timing = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|s)\b`)

// normaliseCCText is the oracle's normalise: the workspace's paths (the longest
// first) become <WS> and timing figures <T>.
func normaliseCCText(text string, wsPaths []string) string {
	paths := slices.Clone(wsPaths)
	slices.SortStableFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		text = strings.ReplaceAll(text, p, "<WS>")
	}
	var b strings.Builder
	last := 0
	for _, m := range timing.FindAllStringIndex(text, -1) {
		if m[1] < len(text) && !strings.ContainsRune(" \t\n\r\f\v).,", rune(text[m[1]])) {
			continue
		}
		b.WriteString(text[last:m[0]])
		b.WriteString("<T>")
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// firstDifference describes where two texts part: the line number and both lines.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		wl, gl := "(no line)", "(no line)"
		if i < len(w) {
			wl = fmt.Sprintf("%q", w[i])
		}
		if i < len(g) {
			gl = fmt.Sprintf("%q", g[i])
		}
		if wl != gl {
			return fmt.Sprintf("line %d of %d (luatool has %d)\n  claude code: %s\n  luatool:     %s", i+1, len(w), len(g), wl, gl)
		}
	}
	return "no difference"
}

// writeCCFixture makes the fixture in dir: the files, then the mtimes, directories
// last (writing a file changes its directory's).
func writeCCFixture(dir string, files []ccGoldenFile) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if f.Dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		data := []byte{}
		switch {
		case f.Text != nil:
			data = []byte(*f.Text)
		case f.Base64 != "":
			var err error
			if data, err = base64.StdEncoding.DecodeString(f.Base64); err != nil {
				return fmt.Errorf("fixture file %s: %v", f.Path, err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	for _, dirs := range []bool{false, true} {
		for _, f := range files {
			if f.Dir == dirs {
				t := time.Unix(f.Mtime, 0)
				if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(f.Path)), t, t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ccGoldenFromOracle reads an oracle run's output directory: report.json (each case's
// input and Claude Code's normalised answer), fixture/ (the files it built) and
// cc-main/stream.jsonl (the version of Claude Code that answered), and the cases file
// the run used.
func ccGoldenFromOracle(out string) (g ccGolden, casesFile string, err error) {
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		return g, casesFile, fmt.Errorf("%v (is %s the $CC_ORACLE_OUT of a finished run?)", err, out)
	}
	var report struct {
		CasesFile string          `json:"cases_file"`
		Options   json.RawMessage `json:"options"`
		Cases     []struct {
			ID    string          `json:"id"`
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
			CC    *struct {
				Text    string `json:"text"`
				IsError bool   `json:"is_error"`
			} `json:"cc"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		return g, casesFile, fmt.Errorf("%s: %v", filepath.Join(out, "report.json"), err)
	}
	casesFile = report.CasesFile
	if g.Options, err = ccOptionsFromReport(report.Options); err != nil {
		return g, casesFile, fmt.Errorf("%s: %v", filepath.Join(out, "report.json"), err)
	}
	for _, c := range report.Cases {
		if c.CC == nil {
			return g, casesFile, fmt.Errorf("%s: case %s has no answer from Claude Code", filepath.Join(out, "report.json"), c.ID)
		}
		g.Cases = append(g.Cases, ccGoldenCase{ID: c.ID, Tool: c.Tool, Input: c.Input, IsError: c.CC.IsError, Text: c.CC.Text})
	}
	if g.ClaudeCode, err = ccVersion(filepath.Join(out, "cc-main", "stream.jsonl")); err != nil {
		return g, casesFile, err
	}
	fixture := filepath.Join(out, "fixture")
	err = filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == fixture {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		f := ccGoldenFile{Path: filepath.ToSlash(rel), Dir: d.IsDir(), Mtime: info.ModTime().Unix()}
		if info.ModTime().Nanosecond() != 0 {
			return fmt.Errorf("%s: an mtime of whole seconds expected, got %v", p, info.ModTime())
		}
		if !d.IsDir() {
			if !info.Mode().IsRegular() {
				return fmt.Errorf("%s: only files and directories can be kept in the goldens", p)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if utf8.Valid(data) {
				s := string(data)
				f.Text = &s
			} else {
				f.Base64 = base64.StdEncoding.EncodeToString(data)
			}
		}
		g.Fixture = append(g.Fixture, f)
		return nil
	})
	if err != nil {
		return g, casesFile, err
	}
	info, err := os.Stat(fixture)
	if err != nil {
		return g, casesFile, err
	}
	g.Fixture = append(g.Fixture, ccGoldenFile{Path: ".", Dir: true, Mtime: info.ModTime().Unix()})
	return g, casesFile, nil
}

// ccVersion is the claude_code_version of the stream's init message.
func ccVersion(stream string) (string, error) {
	f, err := os.Open(stream)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Version string `json:"claude_code_version"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Type == "system" && m.Subtype == "init" && m.Version != "" {
			return m.Version, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %v", stream, err)
	}
	return "", fmt.Errorf("%s: no init message with claude_code_version", stream)
}
