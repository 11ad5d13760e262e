package scripts_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/scripts"
)

// bgEnv is an engine serving the standard tools on a fresh root, answering asks
// with allow, closed when the test ends.
type bgEnv struct {
	t    *testing.T
	e    *engine.Engine
	root string
}

func newBgEnv(t *testing.T, shell hostmod.ShellOptions) *bgEnv {
	t.Helper()
	v := &bgEnv{t: t, root: t.TempDir()}
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{v.root}, Shell: shell})
	if err != nil {
		t.Fatal(err)
	}
	allow := func(context.Context, engine.PermissionRequest) (engine.PermissionDecision, error) {
		return engine.PermissionDecision{Behavior: rules.Allow}, nil
	}
	v.e, err = engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Roots: []string{v.root}, ResultsDir: t.TempDir(), CanUseTool: allow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.e.Close() })
	for _, d := range v.e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return v
}

// call runs one tool_use for the principal of ctx.
func (v *bgEnv) call(ctx context.Context, id, name, input string) *engine.Result {
	v.t.Helper()
	return v.e.Call(ctx, engine.ToolUse{ID: id, Name: name, Input: json.RawMessage(input)})
}

// startText is the original's start text, less the sentence luatool leaves out.
var startRE = regexp.MustCompile(`^Command running in background with ID: (b[0-9a-z]{8})\. Output is being written to: (/\S+/b[0-9a-z]{8}\.output)\. To check interim output, use Read on that file path\.$`)

// start runs Bash with input, which must start a background command, and returns
// its id and output file.
func (v *bgEnv) start(ctx context.Context, input string) (id, path string) {
	v.t.Helper()
	r := v.call(ctx, "toolu_start", "Bash", input)
	m := startRE.FindStringSubmatch(r.Block.Content.String())
	if r.Block.IsError || m == nil {
		v.t.Fatalf("Bash %s: %s", input, r.Block.Content.String())
	}
	return m[1], m[2]
}

var trailerRE = regexp.MustCompile(`\n\[(exited with code \d+|killed[^\]]*)\]\n$`)

// ended waits until the output file at path is complete and returns it; the
// minute bounds a broken test, it measures nothing.
func ended(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil && trailerRE.Match(b) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never ended: %q, %v", path, b, err)
		}
	}
}

// holds waits until the output file at path holds want.
func holds(t *testing.T, path, want string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(path); string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			t.Fatalf("%s holds %q, want %q", path, b, want)
		}
	}
}

// gtTasks is the directory of the original's output files in the recording.
const gtTasks = "/tmp/claude-0/-tmp-cc-record-out-bg-ws/94d980f4-5441-4113-a395-6227ced4a768/tasks/"

// gtStart is the original's start text for a task id.
func gtStart(id string) string {
	return "Command running in background with ID: " + id + ". Output is being written to: " + gtTasks + id +
		".output. You will be notified when it completes. To check interim output, use Read on that file path."
}

// The deliberate differences from the recording, each applied to the original's
// text before it is compared, so that anything else that differs fails.
var (
	// luatool cannot notify the model when a background command ends (there is no
	// channel for it over MCP or the CLI), so its start text does not promise it.
	noNotification = strings.NewReplacer(" You will be notified when it completes.", "")
)

// TestBackgroundGroundTruth replays the original's recorded background session
// (the bg scenario: toolu_bg_01 ... toolu_bg_26), call by call, and compares every
// result with the recorded one. Ids and paths are the original's in the table and
// replaced by ours as our starts return them. Two inputs last longer than recorded
// (sleep 300 for sleep 3 and sleep 500 for sleep 5), so that no result depends on
// how fast the machine is: a read while a command runs cannot see its next echo,
// and a timeout cannot lose the race with the command. The recording's foreground
// sleeps are run as recorded, and then the test waits for the state they were
// waiting for.
func TestBackgroundGroundTruth(t *testing.T) {
	v := newBgEnv(t, hostmod.ShellOptions{})
	ctx := context.Background()
	slower := strings.NewReplacer("sleep 3;", "sleep 300;", "sleep 5;", "sleep 500;")
	// The original's output files and ids -> ours; a path is replaced before the
	// id inside it.
	ours, ids := map[string]string{}, map[string]string{}
	subst := func(s string) string {
		for gt, o := range ours {
			s = strings.ReplaceAll(s, gt, o)
		}
		for gt, o := range ids {
			s = strings.ReplaceAll(s, gt, o)
		}
		return s
	}
	cases := []struct {
		id, tool, input string
		want            string
		isErr           bool
		// start is the original's id of the task a start case starts.
		start string
		// content is the file content a Read case shows (the original's
		// structured result).
		content string
		// then waits for what the original's foreground sleep waited for.
		then func()
	}{
		{id: "toolu_bg_01_start", tool: "Bash", start: "bl2viqfc3",
			input: `{"command": "echo started; sleep 1; echo finished", "description": "Print twice in the background", "run_in_background": true}`},
		{id: "toolu_bg_02_wait", tool: "Bash", input: `{"command": "sleep 2", "description": "Wait two seconds"}`,
			want: "(Bash completed with no output)", then: func() { ended(t, ours[gtTasks+"bl2viqfc3.output"]) }},
		{id: "toolu_bg_03_taskoutput", tool: "TaskOutput", input: `{"task_id": "bl2viqfc3"}`,
			want: "<tool_use_error>Error: No such tool available: TaskOutput</tool_use_error>", isErr: true},
		{id: "toolu_bg_04_read_output", tool: "Read", input: `{"file_path": "` + gtTasks + `bl2viqfc3.output"}`,
			want: "1\tstarted\n2\tfinished\n3\t\n4\t[exited with code 0]\n5\t", content: "started\nfinished\n\n[exited with code 0]\n"},
		{id: "toolu_bg_05_start_long", tool: "Bash", start: "b6p3paamo",
			input: `{"command": "sleep 30", "description": "Sleep in the background", "run_in_background": true}`},
		{id: "toolu_bg_06_stop", tool: "TaskStop", input: `{"task_id": "b6p3paamo"}`,
			want: `{"message":"Successfully stopped task: b6p3paamo (sleep 30)","task_id":"b6p3paamo","task_type":"local_bash","command":"sleep 30"}`},
		{id: "toolu_bg_07_stop_again", tool: "TaskStop", input: `{"task_id": "b6p3paamo"}`,
			want: "<tool_use_error>No task found with ID: b6p3paamo</tool_use_error>", isErr: true},
		{id: "toolu_bg_08_stop_finished", tool: "TaskStop", input: `{"task_id": "bl2viqfc3"}`,
			want: "<tool_use_error>No task found with ID: bl2viqfc3</tool_use_error>", isErr: true},
		{id: "toolu_bg_09_stop_bad", tool: "TaskStop", input: `{"task_id": "nosuchtask123"}`,
			want: "<tool_use_error>No task found with ID: nosuchtask123</tool_use_error>", isErr: true},
		{id: "toolu_bg_10_read_output_after_stop", tool: "Read", input: `{"file_path": "` + gtTasks + `b6p3paamo.output"}`,
			want: "1\t\n2\t[killed]\n3\t", content: "\n[killed]\n"},
		{id: "toolu_bg_11_interim", tool: "Bash", start: "blt03q82n",
			input: `{"command": "echo one; sleep 3; echo two", "description": "Print, wait, print", "run_in_background": true}`},
		{id: "toolu_bg_12_wait", tool: "Bash", input: `{"command": "sleep 1", "description": "Wait one second"}`,
			want: "(Bash completed with no output)", then: func() { holds(t, ours[gtTasks+"blt03q82n.output"], "one\n") }},
		{id: "toolu_bg_13_read_interim", tool: "Read", input: `{"file_path": "` + gtTasks + `blt03q82n.output"}`,
			want: "1\tone\n2\t", content: "one\n"},
		{id: "toolu_bg_14_stop_shell_id", tool: "TaskStop", input: `{"shell_id": "blt03q82n"}`,
			want: `{"message":"Successfully stopped task: blt03q82n (echo one; sleep 3; echo two)","task_id":"blt03q82n","task_type":"local_bash","command":"echo one; sleep 3; echo two"}`},
		{id: "toolu_bg_15_timeout", tool: "Bash", start: "barguzi8s",
			input: `{"command": "sleep 5; echo late", "description": "Sleep past its timeout in the background", "timeout": 1000, "run_in_background": true}`},
		{id: "toolu_bg_16_wait", tool: "Bash", input: `{"command": "sleep 2", "description": "Wait two seconds"}`,
			want: "(Bash completed with no output)", then: func() { ended(t, ours[gtTasks+"barguzi8s.output"]) }},
		{id: "toolu_bg_17_read_timeout_output", tool: "Read", input: `{"file_path": "` + gtTasks + `barguzi8s.output"}`,
			want: "1\t\n2\t[killed]\n3\t", content: "\n[killed]\n"},
		{id: "toolu_bg_18_stop_timed_out", tool: "TaskStop", input: `{"task_id": "barguzi8s"}`,
			want: "<tool_use_error>No task found with ID: barguzi8s</tool_use_error>", isErr: true},
		{id: "toolu_bg_19_fail", tool: "Bash", start: "bfxpxch43",
			input: `{"command": "echo bad >&2; exit 4", "description": "Fail in the background", "run_in_background": true}`},
		{id: "toolu_bg_20_wait", tool: "Bash", input: `{"command": "sleep 1", "description": "Wait one second"}`,
			want: "(Bash completed with no output)", then: func() { ended(t, ours[gtTasks+"bfxpxch43.output"]) }},
		{id: "toolu_bg_21_read_fail_output", tool: "Read", input: `{"file_path": "` + gtTasks + `bfxpxch43.output"}`,
			want: "1\tbad\n2\t\n3\t[exited with code 4]\n4\t", content: "bad\n\n[exited with code 4]\n"},
		{id: "toolu_bg_22_stop_empty", tool: "TaskStop", input: `{}`,
			want: "<tool_use_error>Missing required parameter: task_id</tool_use_error>", isErr: true},
		{id: "toolu_bg_23_stop_both", tool: "TaskStop", input: `{"task_id": "aaa", "shell_id": "bbb"}`,
			want: "<tool_use_error>No task found with ID: aaa</tool_use_error>", isErr: true},
		{id: "toolu_bg_24_stop_number", tool: "TaskStop", input: `{"task_id": 5}`,
			want: "<tool_use_error>InputValidationError: TaskStop failed due to the following issue:\nThe parameter `task_id` type is expected as `string` but provided as `number`</tool_use_error>", isErr: true},
		{id: "toolu_bg_25_bg_false", tool: "Bash", input: `{"command": "echo fg", "description": "Print fg", "run_in_background": false}`,
			want: "fg"},
		{id: "toolu_bg_26_bg_str", tool: "Bash", start: "blv3jsl39",
			input: `{"command": "echo maybe", "description": "Print maybe", "run_in_background": "true"}`},
	}
	for _, c := range cases {
		input := slower.Replace(subst(c.input))
		r := v.call(ctx, c.id, c.tool, input)
		got := r.Block.Content.String()
		if c.start != "" {
			m := startRE.FindStringSubmatch(got)
			if r.Block.IsError || m == nil {
				t.Fatalf("%s: %s", c.id, got)
			}
			ours[gtTasks+c.start+".output"], ids[c.start] = m[2], m[1]
			if want := subst(noNotification.Replace(gtStart(c.start))); got != want {
				t.Errorf("%s:\n got %q\nwant %q", c.id, got, want)
			}
			continue
		}
		want := subst(c.want)
		if c.content != "" {
			// The original's content keeps the final newline, and its numbering
			// counts the empty line after it.
			if data, _ := r.Data.(map[string]any); data == nil || data["file"].(map[string]any)["content"] != c.content {
				t.Errorf("%s: content %v, want %q", c.id, r.Data, c.content)
			}
			// The file itself is the original's, byte for byte.
			var in map[string]string
			json.Unmarshal([]byte(input), &in)
			if b, err := os.ReadFile(in["file_path"]); string(b) != c.content {
				t.Errorf("%s: the output file holds %q (%v), want %q", c.id, b, err, c.content)
			}
		}
		if got != slower.Replace(want) || r.Block.IsError != c.isErr {
			t.Errorf("%s:\n got (error %v) %q\nwant (error %v) %q", c.id, r.Block.IsError, got, c.isErr, slower.Replace(want))
		}
		if c.then != nil {
			c.then()
		}
	}
}

// TestBackgroundPrincipals: a background command belongs to the principal's session
// that started it: another principal, or another session of the same one, cannot
// stop it or read its output; its owner can.
func TestBackgroundPrincipals(t *testing.T) {
	v := newBgEnv(t, hostmod.ShellOptions{})
	ann := engine.WithPrincipal(context.Background(), engine.Principal{Name: "ann"})
	id, path := v.start(ann, `{"command": "echo private; sleep 1000", "run_in_background": true}`)
	holds(t, path, "private\n")
	for _, other := range []engine.Principal{{Name: "bob"}, {Name: "ann", Session: "second"}, {}} {
		ctx := engine.WithPrincipal(context.Background(), other)
		r := v.call(ctx, "toolu_stop", "TaskStop", `{"task_id": "`+id+`"}`)
		if got := r.Block.Content.String(); got != "<tool_use_error>No task found with ID: "+id+"</tool_use_error>" {
			t.Errorf("%+v stops ann's task: %s", other, got)
		}
		r = v.call(ctx, "toolu_read", "Read", `{"file_path": "`+path+`"}`)
		if got := r.Block.Content.String(); !r.Block.IsError || strings.Contains(got, "private") || !strings.Contains(got, "outside the allowed roots") {
			t.Errorf("%+v reads ann's output: %s", other, got)
		}
	}
	if r := v.call(ann, "toolu_read", "Read", `{"file_path": "`+path+`"}`); r.Block.Content.String() != "1\tprivate\n2\t" {
		t.Errorf("ann reads her output: %s", r.Block.Content.String())
	}
	// Nor can anyone write it, its owner included.
	if r := v.call(ann, "toolu_write", "Write", `{"file_path": "`+path+`", "content": "x"}`); !r.Block.IsError {
		t.Errorf("ann writes her output file: %s", r.Block.Content.String())
	}
	if r := v.call(ann, "toolu_stop", "TaskStop", `{"task_id": "`+id+`"}`); r.Block.IsError {
		t.Errorf("ann stops her task: %s", r.Block.Content.String())
	}
	if got := ended(t, path); got != "private\n\n[killed]\n" {
		t.Errorf("output %q", got)
	}
}

// TestBackgroundLimits: a start past the limit of running commands is an error
// result, and nothing is started.
func TestBackgroundLimits(t *testing.T) {
	v := newBgEnv(t, hostmod.ShellOptions{MaxTasks: 1})
	ctx := context.Background()
	v.start(ctx, `{"command": "sleep 1000", "run_in_background": true}`)
	r := v.call(ctx, "toolu_2", "Bash", `{"command": "sleep 1000", "run_in_background": true}`)
	if got := r.Block.Content.String(); !r.Block.IsError || got != "1 background commands are running in this session, the most allowed: stop one or wait for one to end" {
		t.Errorf("second start: (error %v) %s", r.Block.IsError, got)
	}
}

// TestBackgroundPermissions: a background command is classified as a foreground one
// is. A read-only command starts without asking; one that may change something
// asks, and denied, starts nothing. TaskStop asks no one.
func TestBackgroundPermissions(t *testing.T) {
	root := t.TempDir()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	deny := func(_ context.Context, req engine.PermissionRequest) (engine.PermissionDecision, error) {
		asked = append(asked, req.Tool.Name())
		return engine.PermissionDecision{Behavior: rules.Deny, Message: "no"}, nil
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}, CanUseTool: deny})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()})
	call := func(name, input string) *engine.Result {
		return e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: name, Input: json.RawMessage(input)})
	}
	r := call("Bash", `{"command": "touch made.txt", "run_in_background": true}`)
	if !r.Block.IsError || len(asked) != 1 {
		t.Errorf("touch in the background: asked %v, %s", asked, r.Block.Content.String())
	}
	r = call("Bash", `{"command": "sleep 1000", "run_in_background": true}`)
	m := startRE.FindStringSubmatch(r.Block.Content.String())
	if m == nil || len(asked) != 1 {
		t.Fatalf("sleep in the background: asked %v, %s", asked, r.Block.Content.String())
	}
	if r = call("TaskStop", `{"task_id": "`+m[1]+`"}`); r.Block.IsError || len(asked) != 1 {
		t.Errorf("TaskStop: asked %v, %s", asked, r.Block.Content.String())
	}
	if _, err := os.Stat(root + "/made.txt"); !os.IsNotExist(err) {
		t.Errorf("the denied command ran: %v", err)
	}
}
