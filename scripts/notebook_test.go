package scripts_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

// nbCall is one call of the original's "notebook" scenario
// (../shared/reference/claude-code-groundtruth/groundtruth-newtools.md). <WS> in the
// input and text stands for the workspace, <ID1> and <ID2> for the ids of the cells
// the two inserts made (random, in the original as here).
type nbCall struct {
	tool, input string
	isError     bool
	text        string
	// problems, for an input the schema refuses, are the lines of the engine's
	// InputValidationError (its envelope is the engine's for every tool).
	problems []string
	// prefix: the text must start with text and go on with the JSON parser's own
	// message (the original's is JavaScriptCore's).
	prefix bool
}

var nbScenario = []nbCall{
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1", "new_source": "print('early')"}`, isError: true, text: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
	{tool: "Read", input: `{"file_path": "<WS>/nb.ipynb"}`, text: "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">\n<cell id=\"code1\">print('hi')</cell id=\"code1\">\n\nhi\n\n<cell id=\"code2\">1 + 1</cell id=\"code2\">\n\n2"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1", "new_source": "print('bye')"}`, text: "Updated cell code1 with print('bye')"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1", "new_source": "## Inserted", "cell_type": "markdown", "edit_mode": "insert"}`, text: "Inserted cell <ID1> with ## Inserted"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "new_source": "import os", "cell_type": "code", "edit_mode": "insert"}`, text: "Inserted cell <ID2> with import os"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1", "new_source": "x", "edit_mode": "insert"}`, isError: true, text: "<tool_use_error>Cell type is required when using edit_mode=insert.</tool_use_error>"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code2", "new_source": "", "edit_mode": "delete"}`, text: "Deleted cell code2"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "nope", "new_source": "y"}`, isError: true, text: "<tool_use_error>Cell with ID \"nope\" not found in notebook.</tool_use_error>"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "nope", "new_source": "", "edit_mode": "delete"}`, isError: true, text: "<tool_use_error>Cell with ID \"nope\" not found in notebook.</tool_use_error>"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "intro", "new_source": "print(1)", "cell_type": "code"}`, text: "Updated cell intro with print(1)"},
	// The original's text is its schema library's JSON report.
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1", "new_source": "z", "edit_mode": "append"}`, isError: true, problems: []string{"The parameter `edit_mode` is invalid: Invalid option: expected one of \"replace\"|\"insert\"|\"delete\""}},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "cell-1", "new_source": "by index"}`, text: "Updated cell cell-1 with by index"},
	{tool: "Read", input: `{"file_path": "<WS>/nb.ipynb"}`, text: "<cell id=\"<ID2>\">import os</cell id=\"<ID2>\">\n<cell id=\"intro\">by index</cell id=\"intro\">\n<cell id=\"code1\">print('bye')</cell id=\"code1\">\n<cell id=\"<ID1>\"><cell_type>markdown</cell_type>## Inserted</cell id=\"<ID1>\">"},
	{tool: "Read", input: `{"file_path": "<WS>/nb_noids.ipynb"}`, text: "<cell id=\"cell-0\">a = 1</cell id=\"cell-0\">\n<cell id=\"cell-1\">b = 2</cell id=\"cell-1\">"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_noids.ipynb", "cell_id": "cell-1", "new_source": "b = 3"}`, text: "Updated cell cell-1 with b = 3"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_noids.ipynb", "cell_id": "cell-9", "new_source": "q"}`, isError: true, text: "<tool_use_error>Cell with index 9 does not exist in notebook.</tool_use_error>"},
	// The original numbers the empty line after the final newline ("1\tjust
	// text\n2\t"): a known difference of Read's text files, not of notebooks.
	{tool: "Read", input: `{"file_path": "<WS>/notanotebook.txt"}`, text: "1\tjust text\n2\t"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/notanotebook.txt", "cell_id": "code1", "new_source": "x"}`, isError: true, text: "<tool_use_error>File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool.</tool_use_error>"},
	// The original goes on with "JSON Parse error: Expected '}'".
	{tool: "Read", input: `{"file_path": "<WS>/bad.ipynb"}`, isError: true, text: "Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): ", prefix: true},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/bad.ipynb", "cell_id": "code1", "new_source": "x"}`, isError: true, text: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
	{tool: "NotebookEdit", input: `{"notebook_path": "nb.ipynb", "cell_id": "code1", "new_source": "rel"}`, text: "Updated cell code1 with rel"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/missing.ipynb", "cell_id": "a", "new_source": "x"}`, isError: true, text: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
	// The original: "...following issue:\nThe required parameter `new_source` is missing".
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb.ipynb", "cell_id": "code1"}`, isError: true, problems: []string{"The required parameter `new_source` is missing"}},
	{tool: "Read", input: `{"file_path": "<WS>/nb.ipynb", "offset": 2, "limit": 1}`, text: "<cell id=\"<ID2>\">import os</cell id=\"<ID2>\">\n<cell id=\"intro\">by index</cell id=\"intro\">\n<cell id=\"code1\">rel</cell id=\"code1\">\n<cell id=\"<ID1>\"><cell_type>markdown</cell_type>## Inserted</cell id=\"<ID1>\">"},
	// Content.String joins the text blocks; the blocks, with the image, are compared
	// in TestNotebookRichRead.
	{tool: "Read", input: `{"file_path": "<WS>/nb_rich.ipynb"}`, text: "<cell id=\"img\">plot()</cell id=\"img\">\n\n<Figure size 4x3>\n<cell id=\"err\">1/0</cell id=\"err\">\n\nZeroDivisionError: division by zero\n\u001b[0;31mZeroDivisionError\u001b[0m: division by zero\n<cell id=\"multi\">print('a')\nprint('b')\n'x'</cell id=\"multi\">\n\na\nb\n\n\nwarn\n\n\n'x'\n<cell id=\"raw1\"><cell_type>raw</cell_type>raw text</cell id=\"raw1\">"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_rich.ipynb", "cell_id": "img", "new_source": "plot(2)"}`, text: "Updated cell img with plot(2)"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_rich.ipynb", "cell_id": "raw1", "new_source": "line 1\nline 2\n"}`, text: "Updated cell raw1 with line 1\nline 2\n"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_rich.ipynb", "cell_id": "err", "new_source": "", "edit_mode": "delete", "cell_type": "markdown"}`, text: "Deleted cell err"},
	{tool: "NotebookEdit", input: `{"notebook_path": "<WS>/nb_rich.ipynb", "cell_id": "multi", "new_source": "q", "cell_type": "raw"}`, isError: true, problems: []string{"The parameter `cell_type` is invalid: Invalid option: expected one of \"code\"|\"markdown\""}},
	{tool: "Read", input: `{"file_path": "<WS>/nb_rich.ipynb"}`, text: "<cell id=\"img\">plot(2)</cell id=\"img\">\n<cell id=\"multi\">print('a')\nprint('b')\n'x'</cell id=\"multi\">\n\na\nb\n\n\nwarn\n\n\n'x'\n<cell id=\"raw1\"><cell_type>raw</cell_type>line 1\nline 2\n</cell id=\"raw1\">"},
}

// newNotebookEnv is an env whose root holds the scenario's files, as the original's
// workspace held them before the run.
func newNotebookEnv(t *testing.T) *env {
	t.Helper()
	v := newWriteEnv(t)
	for _, name := range []string{"nb.ipynb", "nb_noids.ipynb", "nb_rich.ipynb", "bad.ipynb", "notanotebook.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "notebook", name))
		if err != nil {
			t.Fatal(err)
		}
		v.write(name, string(b))
	}
	return v
}

var insertedID = regexp.MustCompile(`^Inserted cell ([0-9a-f]{8}) with `)

func TestNotebookAsRecorded(t *testing.T) {
	v := newNotebookEnv(t)
	ids := strings.NewReplacer() // <ID1>, <ID2> once the inserts made them
	var made []string
	for i, c := range nbScenario {
		input := strings.ReplaceAll(c.input, "<WS>", v.root)
		want := ids.Replace(strings.ReplaceAll(c.text, "<WS>", v.root))
		got, isErr := v.call(c.tool, input)
		if m := insertedID.FindStringSubmatch(got); m != nil {
			made = append(made, "<ID"+string(rune('1'+len(made)/2))+">", m[1])
			ids = strings.NewReplacer(made...)
			want = ids.Replace(strings.ReplaceAll(c.text, "<WS>", v.root))
		}
		switch {
		case isErr != c.isError:
			t.Errorf("call %d %s %s: is_error %v: %q", i+1, c.tool, c.input, isErr, got)
		case c.problems != nil:
			want = validationText(c.tool, c.problems)
			if got != want {
				t.Errorf("call %d %s %s:\n got %q\nwant %q", i+1, c.tool, c.input, got, want)
			}
		case c.prefix:
			if !strings.HasPrefix(got, want) || len(got) == len(want) {
				t.Errorf("call %d %s %s:\n got %q\nwant %q and the parser's message", i+1, c.tool, c.input, got, want)
			}
		case got != want:
			t.Errorf("call %d %s %s:\n got %q\nwant %q", i+1, c.tool, c.input, got, want)
		}
	}
	if len(made) != 4 || made[1] == made[3] {
		t.Fatalf("inserted cell ids %v", made)
	}
	// The files: the notebook without ids (its keys sorted already) exactly as the
	// original left it; the others with the same content, keys in Jupyter's order.
	for _, name := range []string{"nb.ipynb", "nb_noids.ipynb", "nb_rich.ipynb"} {
		b, err := os.ReadFile(filepath.Join("testdata", "notebook", "after", name))
		if err != nil {
			t.Fatal(err)
		}
		wantText := ids.Replace(strings.NewReplacer("3ab5d1c4", "<ID1>", "dcca669b", "<ID2>").Replace(string(b)))
		got := v.content(name)
		if name == "nb_noids.ipynb" && got != wantText {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, wantText)
		}
		var g, w any
		if err := json.Unmarshal([]byte(got), &g); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := json.Unmarshal([]byte(wantText), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n%s\nwant the content of\n%s", name, got, wantText)
		}
		if !strings.HasSuffix(got, "\n}\n") || !strings.HasPrefix(got, "{\n \"cells\": [\n  {\n   \"cell_type\"") {
			t.Errorf("%s is not in Jupyter's layout:\n%s", name, got)
		}
	}
}

// TestNotebookRichRead compares the content blocks of a notebook with an image, as
// the original sent them: text, image, text.
func TestNotebookRichRead(t *testing.T) {
	v := newNotebookEnv(t)
	r := v.e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path": ` + js(v.path("nb_rich.ipynb")) + `}`)})
	want := engine.Content{
		{Type: "text", Text: "<cell id=\"img\">plot()</cell id=\"img\">\n\n<Figure size 4x3>"},
		{Type: "image", Source: map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg=="}},
		{Type: "text", Text: "<cell id=\"err\">1/0</cell id=\"err\">\n\nZeroDivisionError: division by zero\n\u001b[0;31mZeroDivisionError\u001b[0m: division by zero\n<cell id=\"multi\">print('a')\nprint('b')\n'x'</cell id=\"multi\">\n\na\nb\n\n\nwarn\n\n\n'x'\n<cell id=\"raw1\"><cell_type>raw</cell_type>raw text</cell id=\"raw1\">"},
	}
	if r.Block.IsError || !reflect.DeepEqual(r.Block.Content, want) {
		got, _ := json.MarshalIndent(r.Block.Content, "", " ")
		t.Errorf("content:\n%s", got)
	}
	// The structured result is the original's, field by field.
	cells := r.Data.(map[string]any)["file"].(map[string]any)["cells"].([]any)
	wantFirst := map[string]any{"cellType": "code", "source": "plot()", "execution_count": 3.0, "cell_id": "img", "language": "python",
		"outputs": []any{map[string]any{"output_type": "display_data", "text": "<Figure size 4x3>", "image": map[string]any{
			"image_data": "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg==", "media_type": "image/png"}}}}
	if len(cells) != 4 || !reflect.DeepEqual(cells[0], wantFirst) || !reflect.DeepEqual(cells[3], map[string]any{"cellType": "raw", "source": "raw text", "cell_id": "raw1"}) {
		got, _ := json.Marshal(cells)
		t.Errorf("cells: %s", got)
	}
}

// nbEdit is a NotebookEdit input; extra holds more members, JSON-encoded with their
// leading comma.
func nbEdit(path, cellID, source string, extra ...string) string {
	in := `{"notebook_path": ` + js(path) + `, "new_source": ` + js(source)
	if cellID != "" {
		in += `, "cell_id": ` + js(cellID)
	}
	return in + strings.Join(extra, "") + `}`
}

const smallNotebook = `{"cells": [{"cell_type": "code", "execution_count": 1, "id": "a", "metadata": {}, "outputs": [], "source": "x"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`

func TestNotebookEditStaleness(t *testing.T) {
	v := newWriteEnv(t)
	v.write("n.ipynb", smallNotebook)
	v.read("n.ipynb")
	// Touched, content unchanged: the notebook is still the one read.
	v.touch("n.ipynb")
	v.want("NotebookEdit", nbEdit("n.ipynb", "a", "y"), "Updated cell a with y")
	// The write is recorded: a second edit needs no Read.
	v.want("NotebookEdit", nbEdit("n.ipynb", "a", "z"), "Updated cell a with z")
	// Changed by someone else: refused, and left as they wrote it.
	v.modify("n.ipynb", smallNotebook)
	v.wantError("NotebookEdit", nbEdit("n.ipynb", "a", "w"), "<tool_use_error>"+modifiedText+"</tool_use_error>")
	if got := v.content("n.ipynb"); got != smallNotebook {
		t.Errorf("n.ipynb = %s", got)
	}
	// Deleted since it was read.
	v.read("n.ipynb")
	if err := os.Remove(v.path("n.ipynb")); err != nil {
		t.Fatal(err)
	}
	v.wantError("NotebookEdit", nbEdit("n.ipynb", "a", "w"), "<tool_use_error>Notebook file does not exist.</tool_use_error>")
}

func TestNotebookEditNeedsPermission(t *testing.T) {
	v := newEnv(t) // every ask denied
	v.write("n.ipynb", smallNotebook)
	v.read("n.ipynb")
	if got, isErr := v.call("NotebookEdit", nbEdit("n.ipynb", "a", "y")); !isErr || strings.Contains(got, "Updated") {
		t.Errorf("NotebookEdit ran without permission: %q", got)
	}
	if got := v.content("n.ipynb"); got != smallNotebook {
		t.Errorf("n.ipynb changed: %s", got)
	}
	// Outside the roots nothing is read or written.
	v.wantError("NotebookEdit", nbEdit(filepath.Join(v.outside, "x.ipynb"), "a", "y"), "File has not been read yet")
}

func TestNotebookEditModes(t *testing.T) {
	v := newWriteEnv(t)
	// (With a byte order mark it would be no notebook: the original's Read refuses it.)
	v.write("n.ipynb", strings.ReplaceAll(`{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# T"]},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "out"}], "source": ["1"]}
 ],
 "metadata": {"language_info": {"name": "julia"}},
 "nbformat": 4,
 "nbformat_minor": 2
}
`, "\n", "\r\n"))
	v.read("n.ipynb")
	// Without ids (nbformat 4.2), a new cell has none, and the result says so as the
	// original's does; later calls name it by position.
	v.want("NotebookEdit", nbEdit("n.ipynb", "cell-0", "2", `, "edit_mode": "insert", "cell_type": "code"`), "Inserted a new cell with 2")
	v.want("NotebookEdit", nbEdit("n.ipynb", "", "top", `, "edit_mode": "insert", "cell_type": "markdown"`), "Inserted a new cell with top")
	// A code cell turned into markdown loses what only code cells have.
	v.want("NotebookEdit", nbEdit("n.ipynb", "cell-3", "now text", `, "cell_type": "markdown"`), "Updated cell cell-3 with now text")
	v.wantError("NotebookEdit", nbEdit("n.ipynb", "", "x"), "<tool_use_error>Cell ID must be specified when not inserting a new cell.</tool_use_error>")
	v.wantError("NotebookEdit", nbEdit("n.ipynb", "cell-4", "x", `, "edit_mode": "delete"`), "<tool_use_error>Cell with index 4 does not exist in notebook.</tool_use_error>")
	v.want("NotebookEdit", nbEdit("n.ipynb", "cell-1", "", `, "edit_mode": "delete"`), "Deleted cell cell-1")
	raw := v.content("n.ipynb")
	if !strings.HasPrefix(raw, "{\r\n \"cells\": [\r\n") || strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\n") {
		t.Errorf("the CRLF line endings are not kept:\n%q", raw)
	}
	var nb map[string]any
	if err := json.Unmarshal([]byte(raw), &nb); err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": "top"},
		map[string]any{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "outputs": []any{}, "source": "2"},
		map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": "now text"},
	}
	if !reflect.DeepEqual(nb["cells"], want) {
		b, _ := json.Marshal(nb["cells"])
		t.Errorf("cells: %s", b)
	}
	// Read shows the language of code cells that are not Python.
	v.want("Read", `{"file_path": `+js(v.path("n.ipynb"))+`}`, "<cell id=\"cell-0\"><cell_type>markdown</cell_type>top</cell id=\"cell-0\">\n<cell id=\"cell-1\"><language>julia</language>2</cell id=\"cell-1\">\n<cell id=\"cell-2\"><cell_type>markdown</cell_type>now text</cell id=\"cell-2\">")
}

func TestNotebookBadInputs(t *testing.T) {
	v := newWriteEnv(t)
	v.write("list.ipynb", `[1, 2]`, "text.IPYNB", smallNotebook, "cells.ipynb", `{"cells": [3]}`)
	notNotebook := `Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects, each with a string or string-array "source").`
	v.wantError("Read", `{"file_path": "list.ipynb"}`, notNotebook)
	// The extension is matched as the original matches it, case and all; Read
	// takes any case.
	v.read("text.IPYNB")
	v.wantError("NotebookEdit", nbEdit("text.IPYNB", "a", "x"), "File must be a Jupyter notebook (.ipynb file).")
	// A cell that is not an object is no notebook, for Read as for the original;
	// unread, it cannot be edited.
	v.wantError("Read", `{"file_path": "cells.ipynb"}`, notNotebook)
	v.wantError("NotebookEdit", nbEdit("cells.ipynb", "cell-0", "x"), notReadText)
	for in, problem := range map[string]string{
		`{"notebook_path": "n.ipynb"}`:                                         "The required parameter `new_source` is missing",
		`{"notebook_path": 5, "new_source": "x"}`:                              "The parameter `notebook_path` type is expected as `string` but provided as `number`",
		`{"notebook_path": "n.ipynb", "new_source": "x", "cell": "a"}`:         "An unexpected parameter `cell` was provided",
		`{"notebook_path": "n.ipynb", "new_source": "x", "edit_mode": "move"}`: "The parameter `edit_mode` is invalid",
	} {
		v.wantError("NotebookEdit", in, "InputValidationError", problem)
	}
}

func TestNotebookReadLimits(t *testing.T) {
	v := newWriteEnv(t)
	big := strings.Repeat("x", 10001)
	v.write("out.ipynb", `{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [{"output_type": "stream", "text": `+js(big)+`}], "source": "big()"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	v.want("Read", `{"file_path": "out.ipynb"}`, "<cell id=\"cell-0\">big()</cell id=\"cell-0\">\n\nOutputs are too large to include. Use Bash with: cat "+v.path("out.ipynb")+" | jq '.cells[0].outputs'")

	var cells []string
	for i := 0; i < 300; i++ {
		cells = append(cells, `{"cell_type": "markdown", "metadata": {}, "source": `+js(strings.Repeat("y", 1000))+`}`)
	}
	v.write("huge.ipynb", `{"cells": [`+strings.Join(cells, ",")+`], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	v.wantError("Read", `{"file_path": "huge.ipynb"}`, "Notebook content (", "exceeds the maximum allowed size (256 KB)", "jq '.cells[:20]'")
	// A notebook that could not be shown is not recorded as read.
	v.wantError("NotebookEdit", nbEdit("huge.ipynb", "cell-0", "x"), notReadText)
}

// TestNotebookReadPerPrincipal: what one principal read lets that principal edit,
// never another.
func TestNotebookReadPerPrincipal(t *testing.T) {
	v := newWriteEnv(t)
	v.write("n.ipynb", smallNotebook)
	alice := engine.WithPrincipal(context.Background(), engine.Principal{Name: "alice"})
	bob := engine.WithPrincipal(context.Background(), engine.Principal{Name: "bob"})
	call := func(ctx context.Context, name, input string) string {
		return v.e.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: name, Input: json.RawMessage(input)}).Block.Content.String()
	}
	call(alice, "Read", `{"file_path": "n.ipynb"}`)
	if got := call(bob, "NotebookEdit", nbEdit("n.ipynb", "a", "bob's")); got != "<tool_use_error>"+notReadText+"</tool_use_error>" {
		t.Errorf("bob: %q", got)
	}
	if got := call(alice, "NotebookEdit", nbEdit("n.ipynb", "a", "alice's")); got != "Updated cell a with alice's" {
		t.Errorf("alice: %q", got)
	}
}

// TestNotebookOddCells: cells with fields of the wrong kind are read and edited as
// the nearest sensible thing, never an error in the tool; a source that is not text
// makes the file no notebook, as for the original.
func TestNotebookOddCells(t *testing.T) {
	v := newWriteEnv(t)
	v.write("nosource.ipynb", `{"cells": [{"cell_type": "code", "source": null}]}`)
	v.wantError("Read", `{"file_path": "nosource.ipynb"}`, "Notebook file is not a valid Jupyter notebook")
	v.write("odd.ipynb", `{"cells": [{"cell_type": null, "source": "", "outputs": [{"output_type": "error", "ename": "E", "evalue": 1, "traceback": ["a", 2, {}]}, {"output_type": "update_display_data"}, 7]}], "nbformat": 4, "nbformat_minor": 5}`)
	v.want("Read", `{"file_path": "odd.ipynb"}`, "<cell id=\"cell-0\"></cell id=\"cell-0\">\n\nE: 1\na\n2")
	v.want("NotebookEdit", nbEdit("odd.ipynb", "cell-0", "fixed"), "Updated cell cell-0 with fixed")
	var nb map[string]any
	if err := json.Unmarshal([]byte(v.content("odd.ipynb")), &nb); err != nil {
		t.Fatal(err)
	}
	if want := []any{map[string]any{"cell_type": "code", "source": "fixed", "execution_count": nil, "outputs": []any{}}}; !reflect.DeepEqual(nb["cells"], want) {
		t.Errorf("cells: %v", nb["cells"])
	}
}
