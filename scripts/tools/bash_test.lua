local test = require("test")
local assert = require("assert")

test.case("a read-only command runs without asking", function(t)
  t:write("a.txt", "hello\n")
  local r = t:call("Bash", { command = "cat a.txt" })
  assert.eq(r.asked, false)
  assert.eq(r.isError, false, r.text)
  assert.eq(r.text, "hello")
end)

test.case("a command that changes things asks first", function(t)
  local r = t:call("Bash", { command = "touch made.txt" })
  assert.eq(r.asked, true)
  assert.eq(r.stage, "permission")
  assert.eq(t:read("made.txt"), nil)

  r = t:call("Bash", { command = "touch made.txt" }, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  assert.eq(t:read("made.txt"), "")
end)

test.case("a command that writes something protected asks as a safety check", function(t)
  t:write(".git/config", "[core]\n")
  t:write("sub/keep", "")
  for _, command in ipairs({
    "echo '[core] fsmonitor = touch pwned' > .git/config",
    "printf x | tee -a .bashrc",
    "cp evil.lua .luatool/tools/",
    "git config core.fsmonitor 'touch pwned'",
    "sh -c 'echo x > .vscode/tasks.json'",
  }) do
    local r = t:call("Bash", { command = command })
    assert.eq(r.asked, true, command)
    assert.matches(r.protected or "", "which is protected: .*Only a person can approve this", command)
  end
  assert.eq(t:read(".git/config"), "[core]\n")
  assert.eq(t:read(".bashrc"), nil)

  -- Relative paths are the session's: after cd sub, ../.git is the root's.
  local r = t:call("Bash", { command = "cd sub" })
  assert.eq(r.isError, false, r.text)
  r = t:call("Bash", { command = "echo x >> ../.git/config" })
  assert.matches(r.protected or "", "writes .*/sub/%.%./%.git/config, which is protected")

  -- A target that cannot be told before the command runs may be protected.
  r = t:call("Bash", { command = 'echo x > "$TARGET"' })
  assert.matches(r.protected or "", "cannot be told before it runs")

  -- A plain write is asked about as any other.
  r = t:call("Bash", { command = "touch made.txt" })
  assert.eq(r.asked, true)
  assert.eq(r.protected, nil)

  -- A person may allow it.
  r = t:call("Bash", { command = "echo '# ok' >> ../.git/config" }, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  assert.eq(t:read(".git/config"), "[core]\n# ok\n")
end)

test.case("a failing command reports its exit code", function(t)
  local r = t:call("Bash", { command = "echo out; exit 3" }, { answer = "allow" })
  assert.eq(r.isError, true)
  assert.matches(r.text, "^Exit code 3\nout")
end)

-- start runs Bash with input, which must start a background command (asks are
-- allowed), and returns the command's id and output file, from the start text.
local function start(t, input)
  input.run_in_background = true
  local r = t:call("Bash", input, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  local id, path = r.text:match("^Command running in background with ID: (b%w+)%. Output is being written to: (/%S+%.output)%. To check interim output, use Read on that file path%.$")
  assert.eq(type(id), "string", r.text)
  return id, path
end

-- ended reads the output file at path with Read, between short foreground sleeps,
-- until the command has ended (the file's last line says how), and returns the read.
local function ended(t, path)
  for _ = 1, 500 do
    local r = t:call("Read", { file_path = path })
    if r.text:match("\n%d+\t%[exited with code %d+%]\n%d+\t$") or r.text:match("\n%d+\t%[killed[^%]]*%]\n%d+\t$") then
      return r
    end
    t:call("Bash", { command = "sleep 0.1" })
  end
  error("the background command never ended: " .. path)
end

test.case("a background command writes its output to a file Read shows", function(t)
  local _, path = start(t, { command = "echo started; echo finished" })
  local r = ended(t, path)
  assert.eq(r.text, "1\tstarted\n2\tfinished\n3\t\n4\t[exited with code 0]\n5\t")
end)

test.case("a background command that fails leaves its output and code", function(t)
  local _, path = start(t, { command = "echo bad >&2; exit 4" })
  assert.eq(ended(t, path).text, "1\tbad\n2\t\n3\t[exited with code 4]\n4\t")
end)

test.case("a background command past its timeout is stopped", function(t)
  local id, path = start(t, { command = "echo early; sleep 1000", timeout = 1000 })
  assert.eq(ended(t, path).text, "1\tearly\n2\t\n3\t[killed]\n4\t")
  assert.eq(t:call("TaskStop", { task_id = id }).text, "<tool_use_error>No task found with ID: " .. id .. "</tool_use_error>")
end)

test.case("a background command that changes things asks first", function(t)
  local r = t:call("Bash", { command = "touch made.txt", run_in_background = true })
  assert.eq(r.asked, true)
  assert.eq(r.stage, "permission")
  assert.eq(t:read("made.txt"), nil)
end)

test.case("exit 1 of a search or comparison with no output reads as no output", function(t)
  t:write("a.txt", "alpha\n")
  t:write("b.txt", "beta\n")
  for _, command in ipairs({
    "grep zzz a.txt",
    "cat a.txt | grep zzz",
    "diff -q a.txt b.txt >/dev/null",
    "test -f nope",
    "[ -d a.txt ]",
    "git diff --no-index --quiet a.txt b.txt",
  }) do
    local r = t:call("Bash", { command = command }, { answer = "allow" })
    assert.eq(r.isError, false, command)
    assert.eq(r.text, "(Bash completed with no output)", command)
  end
  local r = t:call("Bash", { command = "git status --porcelain nope; exit 1" }, { answer = "allow" })
  assert.eq(r.isError, true, r.text)
end)

test.case("only a command that succeeds moves the session's cwd", function(t)
  t:write("sub/x", "")
  assert.eq(t:call("Bash", { command = "cd sub" }).isError, false)
  local r = t:call("Bash", { command = "cd .. && false" }, { answer = "allow" })
  assert.eq(r.text, "Exit code 1")
  assert.matches(t:call("Bash", { command = "pwd" }).text, "/sub$")
  r = t:call("Bash", { command = "cd / && false" }, { answer = "allow" })
  assert.eq(r.text, "Exit code 1")
  assert.matches(t:call("Bash", { command = "pwd" }).text, "/sub$")
end)

test.case("a long leading foreground sleep is refused", function(t)
  local r = t:call("Bash", { command = "sleep 30" })
  assert.eq(r.isError, true)
  assert.eq(r.text, "<tool_use_error>Blocked: standalone sleep 30. To wait for a condition, run an until-loop (e.g. `until <check>; do sleep 2; done`) with run_in_background: true. To wait for a command you started, use run_in_background: true. Do not chain shorter sleeps to work around this block.</tool_use_error>")
  r = t:call("Bash", { command = "sleep 25.5; echo hi" })
  assert.matches(r.text, "^<tool_use_error>Blocked: sleep 25.5 followed by: echo hi%. ")
  -- In the background it is not refused.
  local id = start(t, { command = "sleep 30" })
  assert.eq(t:call("TaskStop", { task_id = id }).isError, false)
end)

test.case("only a command whose first word is sleep counts as starting with one", function(t)
  for _, command in ipairs({ "(sleep 30)", "time sleep 30", "X=1 sleep 30" }) do
    local r = t:call("Bash", { command = command, timeout = 100 }, { answer = "allow" })
    assert.eq(r.isError, false, r.text)
    local id = r.text:match("^Command did not complete within its 1s timeout and was moved to the background %(ID: (b%w+)%)")
    assert.eq(type(id), "string", r.text)
    assert.eq(t:call("TaskStop", { task_id = id }).isError, false)
  end
end)

test.case("a command starting with sleep is killed at its timeout", function(t)
  local r = t:call("Bash", { command = "sleep 20", timeout = 100 })
  assert.eq(r.isError, true)
  assert.eq(r.text, "Exit code 143\nCommand timed out after 0s")
end)

-- moved runs Bash with input, which must pass its timeout and go on in the
-- background, and returns the result and the command's id and output file.
local function moved(t, input)
  local r = t:call("Bash", input, { answer = "allow" })
  assert.eq(r.isError, false, r.text)
  local id, path = r.text:match("Command did not complete within its 1s timeout and was moved to the background %(ID: (b%w+)%)%. Output is being written to: (/%S+%.output)%. If it is still running after 10m in the background, it will be stopped%. It is running now: do not start a second copy while it runs%. If it is no longer needed, stop it with TaskStop%.")
  assert.eq(type(id), "string", r.text)
  return r, id, path
end

test.case("a command that passes its timeout goes on in the background", function(t)
  -- The command waits for a file the test makes after the move, so it cannot end
  -- before its timeout however late the timer fires.
  local r, _, path = moved(t, { command = "echo early; until [ -e gate ]; do sleep 0.01; done; echo late", timeout = 1000 })
  assert.matches(r.text, "^early\nCommand did not complete")
  assert.matches(r.text, "%. To check interim output, use Read on that file path%.$")
  t:write("gate", "")
  assert.eq(ended(t, path).text, "1\tearly\n2\tlate\n3\t\n4\t[exited with code 0]\n5\t")
end)

test.case("a silent command moved to the background can be stopped", function(t)
  local r, id, path = moved(t, { command = "while :; do sleep 0.05; done", timeout = 100 })
  assert.matches(r.text, "^Command did not complete")
  assert.matches(r.text, " No output had been read from it when it was moved%. ")
  r = t:call("TaskStop", { task_id = id })
  assert.eq(r.isError, false, r.text)
  assert.eq(ended(t, path).text, "1\t\n2\t[killed]\n3\t")
end)

test.case("a backgrounded cd leaves the session's cwd, and says so", function(t)
  t:write("sub/x", "")
  local note = "\nSession cwd remains " .. t.root .. "; directory changes made by the backgrounded command do not apply to subsequent commands."
  local r, _, path = moved(t, { command = "cd sub; until [ -e ../gate ]; do sleep 0.01; done; pwd", timeout = 1000 })
  assert.eq(r.text:sub(-#note), note)
  t:write("gate", "")
  assert.matches(ended(t, path).text, "^1\t/.*/sub\n")
  r = t:call("Bash", { command = "cd sub && echo in", run_in_background = true })
  assert.eq(r.text:sub(-#note), note)
  local bgpath = r.text:match("Output is being written to: (/%S+%.output)%.")
  assert.eq(ended(t, bgpath).text, "1\tin\n2\t\n3\t[exited with code 0]\n4\t")
  r = t:call("Bash", { command = "pwd" })
  assert.eq(r.text, t.root)
end)

test.case("timeout_ms is the timeout, and the note of view_images ends a success only", function(t)
  local r = t:call("Bash", { command = "sleep 20", timeout_ms = 200 })
  assert.eq(r.isError, true)
  assert.matches(r.text, "Command timed out")
  r = t:call("Bash", { command = "echo hi", command_description = "Say hi", view_images = true })
  assert.eq(r.text, "hi\n\nview_images: no pictures were shown, because this input is not available here. Read them if you still need them.")
  r = t:call("Bash", { command = "exit 3", view_images = true }, { answer = "allow" })
  assert.eq(r.text, "Exit code 3")
end)

test.case("a mended input is judged by the schema with the names it mended", function(t)
  local r = t:call("Bash", { command = "echo hi", timeout_ms = 5000, cwd = "/tmp" })
  assert.eq(r.stage, "input")
  assert.eq(r.text, "<tool_use_error>InputValidationError: Bash failed due to the following issue:\nAn unexpected parameter `cwd` was provided</tool_use_error>")
end)

test.case("a command under a mended input still needs permission", function(t)
  local r = t:call("Bash", { command = "touch made.txt", timeout_ms = 5000, command_description = "Make" })
  assert.eq(r.stage, "permission")
  assert.eq(t:read("made.txt"), nil)
end)

test.case("a timeout of 0 or less is none given", function(t)
  for _, input in ipairs({
    { command = "cd . && sleep 0.1 && echo hi", timeout = -5 },
    { command = "cd . && sleep 0.1 && echo hi", timeout_ms = 0 },
  }) do
    local r = t:call("Bash", input)
    assert.eq(r.isError, false, r.text)
    assert.eq(r.text, "hi")
  end
end)
