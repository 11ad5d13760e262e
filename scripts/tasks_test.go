package scripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
	"github.com/luatool/luatool/session"
)

// recorded is one call of a scenario recorded from the original
// (../shared/reference/claude-code-groundtruth/groundtruth-newtools.md), in order:
// the tool and input sent, and what came back.
type recorded struct {
	tool, input string
	isError     bool
	// text is the tool_result's text. For an input the schema refuses it is empty:
	// the engine words the envelope of every tool's validation errors its own way
	// (see problems).
	text string
	// data is the original's structured result (tool_use_result), compared with what
	// call returned; "" when not compared.
	data string
	// problems are the lines of an InputValidationError, as this engine words them.
	problems []string
}

// newEngineWith serves the standard tools of fsys over a fresh root.
func newEngineWith(t *testing.T, fsys fs.FS) *engine.Engine {
	t.Helper()
	return newEngineOn(t, fsys, nil)
}

// newEngineOn is newEngineWith keeping its sessions in store (nil: its own).
func newEngineOn(t *testing.T, fsys fs.FS, store session.Store) *engine.Engine {
	t.Helper()
	root := t.TempDir()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}, Cwd: root, ResultsDir: t.TempDir(), Sessions: store})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range e.Load(engine.Source{Name: "scripts/tools", FS: fsys}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return e
}

// validationText is the original's input validation error for problems: "issue"
// for one, "issues" for several.
func validationText(tool string, problems []string) string {
	noun := "issues"
	if len(problems) == 1 {
		noun = "issue"
	}
	return "<tool_use_error>InputValidationError: " + tool + " failed due to the following " + noun + ":\n" +
		strings.Join(problems, "\n") + "</tool_use_error>"
}

// replay makes each recorded call in turn, for the principal of ctx, and compares.
func replay(t *testing.T, e *engine.Engine, ctx context.Context, calls []recorded) {
	t.Helper()
	for i, c := range calls {
		r := e.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: c.tool, Input: json.RawMessage(c.input)})
		got := r.Block.Content.String()
		if r.Block.IsError != c.isError {
			t.Errorf("call %d %s %s: is_error %v, want %v: %q", i+1, c.tool, c.input, r.Block.IsError, c.isError, got)
			continue
		}
		if c.problems != nil {
			want := validationText(c.tool, c.problems)
			if got != want {
				t.Errorf("call %d %s %s:\n got %q\nwant %q", i+1, c.tool, c.input, got, want)
			}
			continue
		}
		if got != c.text {
			t.Errorf("call %d %s %s:\n got %q\nwant %q", i+1, c.tool, c.input, got, c.text)
		}
		if c.data != "" {
			var want any
			if err := json.Unmarshal([]byte(c.data), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Data, want) {
				b, _ := json.Marshal(r.Data)
				t.Errorf("call %d %s %s: data\n got %s\nwant %s", i+1, c.tool, c.input, b, c.data)
			}
		}
	}
}

// taskScenario is the original's "tasks" scenario, every call of it.
var taskScenario = []recorded{
	{"TaskCreate", `{"subject": "Write the parser", "description": "Parse the config file", "activeForm": "Writing the parser"}`, false, "Task #1 created successfully: Write the parser", `{"task": {"id": "1", "subject": "Write the parser", "description": "Parse the config file"}}`, nil},
	{"TaskCreate", `{"subject": "Test the parser", "description": "Unit tests for the parser"}`, false, "Task #2 created successfully: Test the parser", `{"task": {"id": "2", "subject": "Test the parser", "description": "Unit tests for the parser"}}`, nil},
	{"TaskUpdate", `{"taskId": "1", "status": "in_progress"}`, false, "Updated task #1 status", `{"success": true, "taskId": "1", "updatedFields": ["status"], "statusChange": {"from": "pending", "to": "in_progress"}}`, nil},
	{"TaskUpdate", `{"taskId": "2", "addBlockedBy": ["1"]}`, false, "Updated task #2 blockedBy", `{"success": true, "taskId": "2", "updatedFields": ["blockedBy"]}`, nil},
	{"TaskList", `{}`, false, "#1 [in_progress] Write the parser\n#2 [pending] Test the parser [blocked by #1]", `{"tasks": [{"id": "1", "subject": "Write the parser", "status": "in_progress", "blockedBy": []}, {"id": "2", "subject": "Test the parser", "status": "pending", "blockedBy": ["1"]}]}`, nil},
	{"TaskGet", `{"taskId": "1"}`, false, "Task #1: Write the parser\nStatus: in_progress\nDescription: Parse the config file\nBlocks: #2", `{"task": {"id": "1", "subject": "Write the parser", "description": "Parse the config file", "status": "in_progress", "blocks": ["2"], "blockedBy": []}}`, nil},
	{"TaskGet", `{"taskId": "2"}`, false, "Task #2: Test the parser\nStatus: pending\nDescription: Unit tests for the parser\nBlocked by: #1", `{"task": {"id": "2", "subject": "Test the parser", "description": "Unit tests for the parser", "status": "pending", "blocks": [], "blockedBy": ["1"]}}`, nil},
	{"TaskGet", `{"taskId": "999"}`, false, "Task not found", `{"task": null}`, nil},
	{"TaskUpdate", `{"taskId": "999", "status": "completed"}`, false, "Task not found", `{"success": false, "taskId": "999", "updatedFields": [], "error": "Task not found"}`, nil},
	{"TaskUpdate", `{"taskId": "1", "status": "completed"}`, false, "Updated task #1 status", `{"success": true, "taskId": "1", "updatedFields": ["status"], "statusChange": {"from": "in_progress", "to": "completed"}}`, nil},
	{"TaskUpdate", `{"taskId": "1", "subject": "Write the parser (v2)", "owner": "me", "metadata": {"k": "v"}}`, false, "Updated task #1 subject, owner, metadata", `{"success": true, "taskId": "1", "updatedFields": ["subject", "owner", "metadata"]}`, nil},
	{"TaskUpdate", `{"taskId": "2", "status": "deleted"}`, false, "Updated task #2 deleted", `{"success": true, "taskId": "2", "updatedFields": ["deleted"], "statusChange": {"from": "pending", "to": "deleted"}}`, nil},
	{"TaskList", `{}`, false, "#1 [completed] Write the parser (v2) (me)", `{"tasks": [{"id": "1", "subject": "Write the parser (v2)", "status": "completed", "owner": "me", "blockedBy": []}]}`, nil},
	{"TaskGet", `{"taskId": "2"}`, false, "Task not found", `{"task": null}`, nil},
	// The original's text is its schema library's JSON report of a failed union.
	{"TaskUpdate", `{"taskId": "1", "status": "bogus"}`, true, "", "", []string{"The parameter `status` is invalid: Invalid option: expected one of \"pending\"|\"in_progress\"|\"completed\"|\"deleted\""}},
	// The id of the deleted task 2 is not given again.
	{"TaskCreate", `{"subject": "Only a subject"}`, false, "Task #3 created successfully: Only a subject", `{"task": {"id": "3", "subject": "Only a subject", "description": "Only a subject"}}`, nil},
	{"TaskUpdate", `{"taskId": "1"}`, false, "Updated task #1 ", `{"success": true, "taskId": "1", "updatedFields": []}`, nil},
}

func TestTasksAsRecorded(t *testing.T) {
	e := newEngineWith(t, scripts.Tools())
	replay(t, e, context.Background(), taskScenario)
	// What the session keeps is what the original left in its task files.
	v, ok, err := e.State(context.Background()).Get("tasks")
	if err != nil || !ok {
		t.Fatalf("state: %v %v", ok, err)
	}
	want := map[string]any{
		"1": map[string]any{"id": "1", "subject": "Write the parser (v2)", "description": "Parse the config file", "activeForm": "Writing the parser",
			"owner": "me", "status": "completed", "blocks": []any{}, "blockedBy": []any{}, "metadata": map[string]any{"k": "v"}},
		"3": map[string]any{"id": "3", "subject": "Only a subject", "description": "Only a subject", "status": "pending", "blocks": []any{}, "blockedBy": []any{}},
	}
	if got := v.(map[string]any)["byId"]; !reflect.DeepEqual(got, want) {
		b, _ := json.Marshal(got)
		t.Errorf("tasks kept:\n%s", b)
	}
}

// todoScenario is the original's "todo_tasks_off" scenario (TodoWrite offered in
// place of the task tools), every call of it.
var todoScenario = []recorded{
	{"TodoWrite", `{"todos": [{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "pending", "activeForm": "Testing the parser"}]}`, false, todoText, `{"oldTodos": [], "newTodos": [{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "pending", "activeForm": "Testing the parser"}]}`, nil},
	{"TodoWrite", `{"todos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "in_progress", "activeForm": "Testing the parser"}]}`, false, todoText, `{"oldTodos": [{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "pending", "activeForm": "Testing the parser"}], "newTodos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "in_progress", "activeForm": "Testing the parser"}]}`, nil},
	{"TodoWrite", `{"todos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "completed", "activeForm": "Testing the parser"}]}`, false, todoText, `{"oldTodos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "in_progress", "activeForm": "Testing the parser"}], "newTodos": [{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"}, {"content": "Test the parser", "status": "completed", "activeForm": "Testing the parser"}]}`, nil},
	// The original: "...following issues:\nThe required parameter `todos[0].activeForm`
	// is missing\nThe parameter `todos[0].status` is invalid: Invalid option: expected
	// one of "pending"|"in_progress"|"completed"".
	{"TodoWrite", `{"todos": [{"content": "x", "status": "doing"}]}`, true, "", "", []string{
		"The required parameter `todos[0].activeForm` is missing",
		"The parameter `todos[0].status` is invalid: Invalid option: expected one of \"pending\"|\"in_progress\"|\"completed\"",
	}},
	// The list was all completed, so it was cleared: the old list is empty.
	{"TodoWrite", `{"todos": []}`, false, todoText, `{"oldTodos": [], "newTodos": []}`, nil},
}

const todoText = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

func TestTodoWriteAsRecorded(t *testing.T) {
	e := newEngineWith(t, scripts.ToolsWith(scripts.Options{TodoWrite: true}))
	replay(t, e, context.Background(), todoScenario)
}

// TestTaskVariants: the default set offers the task tools and not TodoWrite, as the
// original does by default; the TodoWrite variant the reverse. Calling the tool the
// set leaves out is the lookup error (the original adds "TodoWrite is disabled for
// this session, in subagents as well as here.").
func TestTaskVariants(t *testing.T) {
	taskTools := []string{"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
	for _, tt := range []struct {
		o             scripts.Options
		offered, left []string
	}{
		{scripts.Options{}, taskTools, []string{"TodoWrite"}},
		{scripts.Options{TodoWrite: true}, []string{"TodoWrite"}, taskTools},
	} {
		e := newEngineWith(t, scripts.ToolsWith(tt.o))
		names := e.Registry().Names()
		for _, n := range tt.offered {
			if !slices.Contains(names, n) {
				t.Errorf("%+v: %s not offered: %v", tt.o, n, names)
			}
		}
		for _, n := range tt.left {
			if slices.Contains(names, n) {
				t.Errorf("%+v: %s offered: %v", tt.o, n, names)
			}
			r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: n, Input: json.RawMessage(`{}`)})
			if want := "<tool_use_error>Error: No such tool available: " + n; !r.Block.IsError || !strings.HasPrefix(r.Block.Content.String(), want) {
				t.Errorf("%+v: calling %s: %q", tt.o, n, r.Block.Content.String())
			}
		}
	}
	if reflect.DeepEqual(scripts.Tools(), scripts.ToolsWith(scripts.Options{TodoWrite: true})) {
		t.Error("the variants are the same file system")
	}
}

// TestTasksPerPrincipal: each principal, and each client session of one, has a task
// list and a todo list of its own.
func TestTasksPerPrincipal(t *testing.T) {
	e := newEngineWith(t, scripts.Tools())
	alice := engine.WithPrincipal(context.Background(), engine.Principal{Name: "alice"})
	bob := engine.WithPrincipal(context.Background(), engine.Principal{Name: "bob"})
	bobOther := engine.WithPrincipal(context.Background(), engine.Principal{Name: "bob", Session: "s2"})
	call := func(ctx context.Context, name, input string) string {
		t.Helper()
		r := e.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: name, Input: json.RawMessage(input)})
		if r.Block.IsError {
			t.Fatalf("%s %s: %s", name, input, r.Block.Content.String())
		}
		return r.Block.Content.String()
	}
	if got := call(alice, "TaskCreate", `{"subject": "alice's", "description": "a"}`); got != "Task #1 created successfully: alice's" {
		t.Errorf("alice: %q", got)
	}
	// Bob's ids start at 1 too: nothing of alice's is counted.
	if got := call(bob, "TaskCreate", `{"subject": "bob's", "description": "b"}`); got != "Task #1 created successfully: bob's" {
		t.Errorf("bob: %q", got)
	}
	call(bob, "TaskUpdate", `{"taskId": "1", "status": "in_progress"}`)
	if got := call(alice, "TaskList", `{}`); got != "#1 [pending] alice's" {
		t.Errorf("alice's list: %q", got)
	}
	if got := call(bob, "TaskGet", `{"taskId": "1"}`); got != "Task #1: bob's\nStatus: in_progress\nDescription: b" {
		t.Errorf("bob's task: %q", got)
	}
	if got := call(bobOther, "TaskList", `{}`); got != "No tasks found" {
		t.Errorf("bob's other session: %q", got)
	}
	if got := call(context.Background(), "TaskGet", `{"taskId": "1"}`); got != "Task not found" {
		t.Errorf("the local user: %q", got)
	}

	todo := newEngineWith(t, scripts.ToolsWith(scripts.Options{TodoWrite: true}))
	list := `{"todos": [{"content": "c", "status": "pending", "activeForm": "C"}]}`
	for _, ctx := range []context.Context{alice, bob} {
		r := todo.Call(ctx, engine.ToolUse{ID: "toolu_1", Name: "TodoWrite", Input: json.RawMessage(list)})
		if old := r.Data.(map[string]any)["oldTodos"]; r.Block.IsError || !reflect.DeepEqual(old, []any{}) {
			t.Errorf("first TodoWrite of a principal: old list %v (%s)", old, r.Block.Content.String())
		}
	}
}

// TestTasksAcrossInstances: two engines sharing one store, as two instances behind a
// load balancer share Redis, each given half of 20 concurrent TaskCreate calls and of
// 20 TaskUpdate calls: every task gets an id of its own, 1 to 20, and the list keeps
// all of them and every update.
func TestTasksAcrossInstances(t *testing.T) {
	store := session.NewMemory(0)
	engines := []*engine.Engine{newEngineOn(t, scripts.Tools(), store), newEngineOn(t, scripts.Tools(), store)}
	ctx := engine.WithPrincipal(context.Background(), engine.Principal{Name: "alice"})
	call := func(i int, name, input string) string {
		r := engines[i%2].Call(ctx, engine.ToolUse{ID: fmt.Sprintf("toolu_%d", i), Name: name, Input: json.RawMessage(input)})
		if r.Block.IsError {
			t.Errorf("%s %s: %s", name, input, r.Block.Content.String())
		}
		return r.Block.Content.String()
	}
	var wg sync.WaitGroup
	told := make([]string, 20)
	for i := range told {
		wg.Go(func() { told[i] = call(i, "TaskCreate", fmt.Sprintf(`{"subject": "t%d", "description": "d"}`, i)) })
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, text := range told {
		var id, subject string
		if _, err := fmt.Sscanf(text, "Task #%s created successfully: %s", &id, &subject); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		ids[id] = true
	}
	for i := 1; i <= 20; i++ {
		if !ids[fmt.Sprint(i)] {
			t.Errorf("no task was told id %d: the ids told were %v", i, slices.Sorted(maps.Keys(ids)))
		}
	}
	for i := range 20 {
		wg.Go(func() { call(i, "TaskUpdate", fmt.Sprintf(`{"taskId": "%d", "status": "completed"}`, i+1)) })
	}
	wg.Wait()
	list := call(0, "TaskList", `{}`)
	if n := strings.Count(list, "[completed]"); n != 20 {
		t.Errorf("the list after 20 updates has %d completed tasks:\n%s", n, list)
	}
}

// TestTaskLinks: links record both ends, once; a field is named for any id the task
// did not list before, though an id of no task links nothing and a task may block
// itself; a task deleted leaves no reference; a blocker completed no longer shows in
// the list, though TaskGet still names it. As the oracle showed the original doing
// (t_lk_* in tests/testdata/ccgolden/project-tasks-cases.json).
func TestTaskLinks(t *testing.T) {
	e := newEngineWith(t, scripts.Tools())
	ctx := context.Background()
	replay(t, e, ctx, []recorded{
		{"TaskList", `{}`, false, "No tasks found", `{"tasks": []}`, nil},
		{"TaskCreate", `{"subject": "a", "description": "a"}`, false, "Task #1 created successfully: a", "", nil},
		{"TaskCreate", `{"subject": "b", "description": "b"}`, false, "Task #2 created successfully: b", "", nil},
		{"TaskCreate", `{"subject": "c", "description": ""}`, false, "Task #3 created successfully: c", `{"task": {"id": "3", "subject": "c", "description": ""}}`, nil},
		{"TaskUpdate", `{"taskId": "1", "addBlocks": ["2", "3", "2"]}`, false, "Updated task #1 blocks", "", nil},
		{"TaskUpdate", `{"taskId": "3", "addBlockedBy": ["1"]}`, false, "Updated task #3 ", "", nil},
		{"TaskUpdate", `{"taskId": "2", "addBlockedBy": ["2", "99"], "addBlocks": ["2"]}`, false, "Updated task #2 blocks, blockedBy", "", nil},
		{"TaskUpdate", `{"taskId": "2", "addBlocks": ["3", "2"], "description": "b", "activeForm": "Doing b", "status": "pending"}`, false, "Updated task #2 activeForm, blocks", "", nil},
		{"TaskList", `{}`, false, "#1 [pending] a\n#2 [pending] b [blocked by #1, #2]\n#3 [pending] c [blocked by #1, #2]", "", nil},
		{"TaskGet", `{"taskId": "2"}`, false, "Task #2: b\nStatus: pending\nDescription: b\nBlocked by: #1, #2\nBlocks: #2, #3", "", nil},
		{"TaskUpdate", `{"taskId": "1", "status": "completed", "metadata": {"x": 1, "y": 2}}`, false, "Updated task #1 metadata, status", "", nil},
		{"TaskUpdate", `{"taskId": "1", "metadata": {"x": null}}`, false, "Updated task #1 metadata", "", nil},
		{"TaskList", `{}`, false, "#1 [completed] a\n#2 [pending] b [blocked by #2]\n#3 [pending] c [blocked by #2]", "", nil},
		{"TaskGet", `{"taskId": "3"}`, false, "Task #3: c\nStatus: pending\nDescription: \nBlocked by: #1, #2", "", nil},
		{"TaskUpdate", `{"taskId": "2", "status": "deleted", "subject": "ignored"}`, false, "Updated task #2 deleted", "", nil},
		{"TaskGet", `{"taskId": "1"}`, false, "Task #1: a\nStatus: completed\nDescription: a\nBlocks: #3", "", nil},
		{"TaskGet", `{"taskId": "3"}`, false, "Task #3: c\nStatus: pending\nDescription: \nBlocked by: #1", "", nil},
		{"TaskUpdate", `{"taskId": "3", "addBlocks": ["2"]}`, false, "Updated task #3 blocks", "", nil},
		{"TaskGet", `{"taskId": "3"}`, false, "Task #3: c\nStatus: pending\nDescription: \nBlocked by: #1", "", nil},
		{"TaskUpdate", `{"taskId": "2", "status": "pending"}`, false, "Task not found", "", nil},
	})
	v, _, _ := e.State(ctx).Get("tasks")
	if md := v.(map[string]any)["byId"].(map[string]any)["1"].(map[string]any)["metadata"]; !reflect.DeepEqual(md, map[string]any{"y": 2.0}) {
		t.Errorf("metadata of #1: %v", md)
	}
}

// TestTaskBadInputs: inputs the schemas refuse never reach the list; TaskGet,
// TaskList and TaskUpdate refuse parameters they do not declare, and TaskCreate one
// it cannot mend, after its steering sentence when the call meant several tasks or
// the Agent tool.
func TestTaskBadInputs(t *testing.T) {
	e := newEngineWith(t, scripts.Tools())
	replay(t, e, context.Background(), []recorded{
		{"TaskCreate", `{"subject": "   "}`, true, "", "", []string{"The required parameter `description` is missing"}},
		{"TaskCreate", `{"subject": 3, "description": "d"}`, true, "", "", []string{"The parameter `subject` type is expected as `string` but provided as `number`"}},
		{"TaskCreate", `{"subject": " ", "description": "d", "id": "7"}`, true, "", "", []string{"An unexpected parameter `id` was provided"}},
		{"TaskCreate", `{"task": "  "}`, true, "", "", []string{"The required parameter `subject` is missing", "The required parameter `description` is missing", "An unexpected parameter `task` was provided"}},
		{"TaskGet", `{}`, true, "", "", []string{"The required parameter `taskId` is missing"}},
		{"TaskGet", `{"id": "1"}`, true, "", "", []string{"The required parameter `taskId` is missing", "An unexpected parameter `id` was provided"}},
		{"TaskList", `{"all": true}`, true, "", "", []string{"An unexpected parameter `all` was provided"}},
		{"TaskUpdate", `{"taskId": "1", "addBlocks": "2"}`, true, "", "", []string{"The parameter `addBlocks` type is expected as `array` but provided as `string`"}},
		{"TaskUpdate", `{"taskId": "1", "metadata": []}`, true, "", "", []string{"The parameter `metadata` type is expected as `record` but provided as `array`"}},
		{"TaskUpdate", `{"taskId": "1", "priority": "high"}`, true, "", "", []string{"An unexpected parameter `priority` was provided"}},
		{"TaskUpdate", `{"taskId": "1", "id": "2"}`, true, "", "", []string{"An unexpected parameter `id` was provided"}},
		{"TaskList", `{}`, false, "No tasks found", "", nil},
	})
	steered := map[string]string{
		`{"todos": [{"content": "a", "status": "pending", "activeForm": "A"}]}`: "<tool_use_error>InputValidationError: TaskCreate creates ONE task per call and has no `tasks` or `todos` parameter. " +
			"Call TaskCreate once per task, passing `subject` (a brief title) and `description` (what needs to be done) as top-level string parameters.\n\n" +
			"TaskCreate failed due to the following issues:\nThe required parameter `subject` is missing\nThe required parameter `description` is missing\nAn unexpected parameter `todos` was provided</tool_use_error>",
		`{"task": {"prompt": "do it"}}`: "<tool_use_error>InputValidationError: This call used Agent-tool parameters (`prompt`/`subagent_type`). " +
			"TaskCreate adds an item to the task list and takes `subject` and `description` string parameters. To delegate work to a subagent, use the Agent tool instead.\n\n" +
			"TaskCreate failed due to the following issues:\nThe required parameter `subject` is missing\nThe required parameter `description` is missing\nAn unexpected parameter `task` was provided</tool_use_error>",
	}
	for input, want := range steered {
		r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_s", Name: "TaskCreate", Input: json.RawMessage(input)})
		if got := r.Block.Content.String(); !r.Block.IsError || got != want {
			t.Errorf("TaskCreate %s:\n got %q\nwant %q", input, got, want)
		}
	}
}

// TestTaskLenientInputs: the sloppy calls the original mends are mended as it does
// them: TaskCreate's old names, a wrapped task, a missing description or subject,
// parameters it does not declare once subject and description are there; TaskUpdate's
// id, task_id and active_form.
func TestTaskLenientInputs(t *testing.T) {
	e := newEngineWith(t, scripts.Tools())
	replay(t, e, context.Background(), []recorded{
		{"TaskCreate", `{"subject": "s"}`, false, "Task #1 created successfully: s", `{"task": {"id": "1", "subject": "s", "description": "s"}}`, nil},
		{"TaskCreate", `{"description": "First line of the work\nSecond line"}`, false, "Task #2 created successfully: First line of the work",
			`{"task": {"id": "2", "subject": "First line of the work", "description": "First line of the work\nSecond line"}}`, nil},
		{"TaskCreate", `{"description": "Refactor the session store so that every write goes through one update function and more"}`, false,
			"Task #3 created successfully: Refactor the session store so that every write goes through one update function", "", nil},
		{"TaskCreate", `{"title": "t", "status": "in_progress", "priority": 1, "activeForm": 5, "metadata": "x"}`, false, "Task #4 created successfully: t",
			`{"task": {"id": "4", "subject": "t", "description": "t"}}`, nil},
		{"TaskCreate", `{"task": {"name": "n", "content": "c", "active_form": "Doing n"}}`, false, "Task #5 created successfully: n", `{"task": {"id": "5", "subject": "n", "description": "c"}}`, nil},
		{"TaskCreate", `{"task": "wrapped"}`, false, "Task #6 created successfully: wrapped", "", nil},
		{"TaskUpdate", `{"id": "5", "status": "in_progress"}`, false, "Updated task #5 status", "", nil},
		{"TaskUpdate", `{"task_id": "5", "active_form": "Doing n"}`, false, "Updated task #5 ", "", nil},
		{"TaskUpdate", `{"task_id": "4", "active_form": "Doing t"}`, false, "Updated task #4 activeForm", "", nil},
		{"TaskList", `{}`, false, "#1 [pending] s\n#2 [pending] First line of the work\n#3 [pending] Refactor the session store so that every write goes through one update function\n#4 [pending] t\n#5 [in_progress] n\n#6 [pending] wrapped", "", nil},
	})
}
