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
  local id, path = start(t, { command = "echo early; sleep 1000", timeout = 100 })
  assert.eq(ended(t, path).text, "1\tearly\n2\t\n3\t[killed]\n4\t")
  assert.eq(t:call("TaskStop", { task_id = id }).text, "<tool_use_error>No task found with ID: " .. id .. "</tool_use_error>")
end)

test.case("a background command that changes things asks first", function(t)
  local r = t:call("Bash", { command = "touch made.txt", run_in_background = true })
  assert.eq(r.asked, true)
  assert.eq(r.stage, "permission")
  assert.eq(t:read("made.txt"), nil)
end)
