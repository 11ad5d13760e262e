package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ccOptions are the options of a cases file that change how luatool runs or how
// texts are compared (see the oracle's README): the tools allowed without asking,
// extra environment for luatool, the driver ("run" or "serve") and the
// normalisations of ids and other texts. The zero value is the oracle's default.
type ccOptions struct {
	AllowedTools []string          `json:"allowed_tools"`
	Env          map[string]string `json:"env,omitempty"`
	Driver       string            `json:"luatool_driver,omitempty"`
	NormaliseIDs []string          `json:"normalise_ids,omitempty"`
	Normalise    [][2]string       `json:"normalise,omitempty"`
}

// ccOptionsFromReport keeps, of the options an oracle run reports, those that differ
// from its defaults, so that a golden file recorded with none stays as it was.
func ccOptionsFromReport(raw json.RawMessage) (*ccOptions, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var r struct {
		AllowedTools []string `json:"allowed_tools"`
		Env          struct {
			Luatool map[string]string `json:"luatool"`
		} `json:"env"`
		Driver       string      `json:"luatool_driver"`
		NormaliseIDs []string    `json:"normalise_ids"`
		Normalise    [][2]string `json:"normalise"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("options: %v", err)
	}
	if r.AllowedTools == nil {
		r.AllowedTools = []string{}
	}
	if r.Driver == "run" {
		r.Driver = ""
	}
	o := ccOptions{AllowedTools: r.AllowedTools, Env: r.Env.Luatool, Driver: r.Driver, NormaliseIDs: r.NormaliseIDs, Normalise: r.Normalise}
	if slices.Equal(o.AllowedTools, []string{"Bash"}) && len(o.Env) == 0 && o.Driver == "" && len(o.NormaliseIDs) == 0 && len(o.Normalise) == 0 {
		return nil, nil
	}
	return &o, nil
}

// allowed is the --allow list: Bash unless the cases file says otherwise.
func (o *ccOptions) allowed() []string {
	if o == nil {
		return []string{"Bash"}
	}
	return o.AllowedTools
}

// serve reports whether luatool runs as an MCP server, one tools/call a case.
func (o *ccOptions) serve() bool { return o != nil && o.Driver == "serve" }

// ccNormaliser is one side's normalisation beyond the workspace and timings: ids
// replaced in order of first sight as the oracle's IdNormaliser does (the first
// regex's ids by <ID1>, <ID2>, ..., the second's by <IDb1>, ...), then the
// cases file's own replacements.
type ccNormaliser struct {
	ids     []*regexp.Regexp
	counts  []int
	seen    map[string]string
	replace []ccReplacement
}

// ccReplacement is one [REGEX, REPLACEMENT] pair of a cases file's "normalise".
type ccReplacement struct {
	rx   *regexp.Regexp
	with string
}

// pythonGroup is a Python replacement's group reference: \1 or \g<name>.
var pythonGroup = regexp.MustCompile(`\\(\d+)|\\g<(\w+)>`)

func newCCNormaliser(o *ccOptions) (*ccNormaliser, error) {
	n := &ccNormaliser{seen: map[string]string{}}
	if o == nil {
		return n, nil
	}
	for _, s := range o.NormaliseIDs {
		rx, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("normalise_ids %q: %v", s, err)
		}
		n.ids = append(n.ids, rx)
	}
	n.counts = make([]int, len(n.ids))
	for _, pair := range o.Normalise {
		rx, err := regexp.Compile(pair[0])
		if err != nil {
			return nil, fmt.Errorf("normalise %q: %v", pair[0], err)
		}
		// Python's replacement syntax in Go's: a literal $ doubled, groups as ${N}.
		with := pythonGroup.ReplaceAllString(strings.ReplaceAll(pair[1], "$", "$$"), "$${$1$2}")
		n.replace = append(n.replace, ccReplacement{rx, with})
	}
	return n, nil
}

// apply normalises one text; texts must be given in case order, as ids are
// numbered in order of first sight.
func (n *ccNormaliser) apply(text string) string {
	for i, rx := range n.ids {
		for _, m := range rx.FindAllStringSubmatch(text, -1) {
			v := m[0]
			if len(m) > 1 {
				v = m[1]
			}
			if _, ok := n.seen[v]; v == "" || ok {
				continue
			}
			n.counts[i]++
			kind := ""
			if i > 0 {
				kind = string(rune('a' + i))
			}
			n.seen[v] = fmt.Sprintf("<ID%s%d>", kind, n.counts[i])
		}
	}
	ids := make([]string, 0, len(n.seen))
	for v := range n.seen {
		ids = append(ids, v)
	}
	slices.SortStableFunc(ids, func(a, b string) int { return len(b) - len(a) })
	for _, v := range ids {
		text = strings.ReplaceAll(text, v, n.seen[v])
	}
	for _, r := range n.replace {
		text = r.rx.ReplaceAllString(text, r.with)
	}
	return text
}

// caseRef is a reference to an earlier case's result in an input:
// <<ref:CASE_ID:REGEX>>, replaced by REGEX's first group in that result's text.
var caseRef = regexp.MustCompile(`(?s)<<ref:([^:>]+):(.*?)>>`)

// resolveRefs fills an input's references from the texts of earlier results (by
// case id), as the oracle does: UNRESOLVED where there is no such result or match.
func resolveRefs(input json.RawMessage, texts map[string]string) (json.RawMessage, error) {
	return mapInputStrings(input, func(s string) (string, error) {
		var bad error
		out := caseRef.ReplaceAllStringFunc(s, func(ref string) string {
			m := caseRef.FindStringSubmatch(ref)
			rx, err := regexp.Compile("(?s)" + m[2])
			if err != nil {
				bad = fmt.Errorf("reference %s: %v", ref, err)
				return ref
			}
			text, ok := texts[m[1]]
			if !ok {
				return "UNRESOLVED"
			}
			found := rx.FindStringSubmatch(text)
			switch {
			case found == nil:
				return "UNRESOLVED"
			case len(found) > 1:
				return found[1]
			default:
				return found[0]
			}
		})
		return out, bad
	})
}

// serveCCCases runs the cases as the oracle's serve driver does: `luatool ... serve`
// over stdio, one tools/call a case, in order, in one session, each input's
// references filled from the earlier results. A protocol error is the result
// "MCP error CODE: MESSAGE", as the oracle writes it.
func serveCCCases(t *testing.T, ws, path string, cases []ccGoldenCase, args []string) map[string]ccResult {
	t.Helper()
	cmd := exec.Command(luatoolBinary(t), append(args, "--no-watch", "serve")...)
	cmd.Dir = ws
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "cc-golden", Version: "v0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: luatool serve: %v", path, err)
	}
	defer session.Close()
	out := map[string]ccResult{}
	texts := map[string]string{}
	for i, c := range cases {
		input, err := instantiate(c.Input, ws)
		if err == nil {
			input, err = resolveRefs(input, texts)
		}
		if err != nil {
			t.Fatalf("%s: case %s: %v", path, c.ID, err)
		}
		var r ccResult
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: input})
		switch {
		case err != nil:
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) {
				t.Fatalf("%s: case %s: %v", path, c.ID, err)
			}
			r = ccResult{fmt.Sprintf("MCP error %d: %s", wire.Code, wire.Message), true}
		default:
			content, err := json.Marshal(res.Content)
			if err != nil {
				t.Fatal(err)
			}
			text, err := contentText(content)
			if err != nil {
				t.Fatalf("%s: case %s: %v", path, c.ID, err)
			}
			r = ccResult{text, res.IsError}
		}
		out[ccCaseID(i, c.ID)] = r
		texts[c.ID] = r.text
	}
	return out
}
