-- Bash: runs a shell command, as Claude Code's Bash tool does, through the shell host
-- module: bash in its own process group, stdout and stderr merged, the working
-- directory kept between calls in ctx.state. A command is read-only (and so runs
-- without asking, beside other calls) when the classifier accepts every part of it
-- and every path it reads lies inside the roots; one that reads a path a Read deny
-- rule hides is denied. The shell module runs commands in a kernel sandbox where the
-- system has one, so a wrong classification cannot read outside the roots.
--
-- With run_in_background the command is started by shell.start and the call returns
-- at once with the task's id and output file, in the original's words but for its
-- promise of a notification: luatool has no way to tell the model later that the
-- command ended, so the text does not say it will. The model reads the file with
-- Read and stops the task with TaskStop. A foreground command that passes its timeout
-- goes on the same way (shell.run's background option), unless it starts with sleep,
-- as the original decides. The classification is the same: a read-only
-- command starts without asking and stays read-only in the sandbox for its whole run;
-- any other needs permission.

---@type table
local shell = require("shell")

local DEFAULT_TIMEOUT = 120000
local MAX_TIMEOUT = 600000
-- A background command's timeout: how long it may run before it is stopped.
local DEFAULT_BACKGROUND_TIMEOUT = 600000
local MAX_BACKGROUND_TIMEOUT = 7200000
-- Output kept in memory; beyond maxResultSizeChars the engine persists the result.
local MAX_OUTPUT = 4 * 1024 * 1024
local CWD_KEY = "bash.cwd"
-- The exit code the original reports for a command killed at its timeout: the
-- shell's for SIGTERM, whatever ended it.
local TIMEOUT_EXIT_CODE = 143
-- The shortest leading foreground sleep, in seconds, that the original refuses.
local BLOCKED_SLEEP = 25
-- How long a command moved to the background at its timeout may go on (shell.run's
-- background limit), as its text says it.
local MOVED_LIMIT = "10m"

-- Exit code 1 is not an error for these commands (no match, files differ, a false
-- condition), as in the original; an empty output still reads as no output.
local EXIT_ONE_OK = {
  grep = true,
  egrep = true,
  fgrep = true,
  rg = true,
  find = true,
  diff = true,
  test = true,
  ["["] = true,
}

-- Nor for git's diff and grep: the first word after git and its options, -C and -c
-- taking a value.
local GIT_EXIT_ONE_OK = { diff = true, grep = true }

---@class BashInput
---@field command string
---@field timeout? integer
---@field description? string
---@field run_in_background? boolean

-- lastCommand is the last simple command, whose status is the command's.
local function lastCommand(command)
  local parts = shell.split(command)
  return parts and parts[#parts] or command
end

-- exitOneIsOk reports whether exit code 1 of command means an answer (no match,
-- files differ, a false condition) rather than a failure.
local function exitOneIsOk(command)
  local words = {}
  for w in lastCommand(command):gmatch("%S+") do
    words[#words + 1] = w
  end
  if words[1] ~= "git" then
    return EXIT_ONE_OK[words[1] or ""] == true
  end
  local i = 2
  while words[i] and words[i]:sub(1, 1) == "-" do
    i = i + ((words[i] == "-C" or words[i] == "-c") and 2 or 1)
  end
  return GIT_EXIT_ONE_OK[words[i] or ""] == true
end

-- The note of a call that asked to be shown pictures (view_images): luatool shows
-- none, as the original where that input is off.
local VIEW_IMAGES_NOTE =
  "view_images: no pictures were shown, because this input is not available here. Read them if you still need them."

-- mendInput mends a Bash input as the original does: timeout_ms, a number or a
-- string of digits, is read as timeout when timeout is not given; command_description
-- is read as description when that is not given and it is a string, and is dropped
-- otherwise; view_images is dropped. The command is never changed, so what the rules
-- and the classifier judge is what runs. It returns whether it changed anything, and
-- the note the result ends with.
---@param input table
---@return boolean changed, string? note
local function mendInput(input)
  local changed = false
  local ms = input.timeout_ms
  if ms ~= nil and input.timeout == nil and
    (type(ms) == "number" or (type(ms) == "string" and ms:match("^%d+$"))) then
    input.timeout, input.timeout_ms = tonumber(ms), nil
    changed = true
  end
  if input.command_description ~= nil then
    if input.description == nil and type(input.command_description) == "string" then
      input.description = input.command_description
    end
    input.command_description, changed = nil, true
  end
  if input.view_images ~= nil then
    input.view_images = nil
    return true, VIEW_IMAGES_NOTE
  end
  return changed, nil
end

-- sessionCwd is the working directory the session's earlier calls left, or the
-- call's; nil without a ctx (the first root).
---@param ctx? luatool.Context
local function sessionCwd(ctx)
  if ctx == nil then
    return nil
  end
  return ctx.state:get(CWD_KEY) or ctx.cwd
end

-- trim strips leading blank lines and trailing whitespace.
local function trim(s)
  return (s:gsub("^%s*\n", ""):gsub("%s+$", ""))
end

-- timeoutOf is the input's timeout in whole milliseconds, at most max; none, 0 or
-- less is def.
---@param input BashInput
local function timeoutOf(input, def, max)
  local t = input.timeout
  if t == nil or t <= 0 then
    return def
  end
  return math.max(1, math.min(math.floor(t), max))
end

-- duration writes ms as the original's timeout message does: whole seconds under a
-- minute ("1s"), then minutes and seconds ("2m 30s"), hours and minutes beyond.
local function duration(ms)
  if ms < 60000 then
    return ("%ds"):format(math.floor(ms / 1000))
  end
  local h = math.floor(ms / 3600000)
  local m = math.floor(ms % 3600000 / 60000)
  local sec = math.floor(ms % 60000 / 1000 + 0.5)
  if h > 0 then
    return ("%dh %dm %ds"):format(h, m, sec)
  end
  return ("%dm %ds"):format(m, sec)
end

-- parts is the simple commands of command without the ";" that ends one, or
-- command whole when it does not parse.
local function parts(command)
  local list = shell.split(command) or { command }
  for i, p in ipairs(list) do
    list[i] = p:gsub("%s*;%s*$", "")
  end
  return list
end

-- startsWithSleep reports whether the command's first word, as written, is sleep:
-- the original reads the text, so a sleep in a subshell or after time or an
-- assignment does not count.
local function startsWithSleep(command)
  return command:match("^%s*(%S+)") == "sleep"
end

-- leadingSleep returns the seconds of a first simple command that is `sleep N`
-- alone, and the rest of the command's simple commands joined by spaces; nil when
-- the command does not start so.
local function leadingSleep(command)
  if not startsWithSleep(command) then
    return nil
  end
  local list = parts(command)
  local seconds = tonumber((list[1] or ""):match("^%s*sleep%s+(%d+%.?%d*)%s*$") or "")
  if not seconds then
    return nil
  end
  local rest = {}
  for i = 2, #list do
    rest[#rest + 1] = list[i]
  end
  return seconds, trim(table.concat(rest, " "):gsub("^%s+", ""))
end

-- changesDirectory reports whether a simple command of command is cd, pushd, popd
-- or chdir.
local function changesDirectory(command)
  for _, p in ipairs(parts(command)) do
    local word = p:match("^%s*(%S+)")
    if word == "cd" or word == "pushd" or word == "popd" or word == "chdir" then
      return true
    end
  end
  return false
end

-- withCwdNote adds to the text of a command gone to the background, when it
-- changes directory, that the session's stays cwd.
local function withCwdNote(text, command, cwd)
  if not changesDirectory(command) then
    return text
  end
  return text .. "\nSession cwd remains " .. cwd .. "; directory changes made by the backgrounded command do not apply to subsequent commands."
end

-- movedText is the text of a command moved to the background at its timeout, in
-- the original's words but for its promises of notifications: output is what it
-- printed so far.
local function movedText(output, id, path, timeout)
  local sentences = {
    ("Command did not complete within its %ds timeout and was moved to the background (ID: %s). Output is being written to: %s."):format(
      math.max(1, math.floor(timeout / 1000 + 0.5)),
      id,
      path
    ),
    ("If it is still running after %s in the background, it will be stopped."):format(MOVED_LIMIT),
    "It is running now: do not start a second copy while it runs. If it is no longer needed, stop it with TaskStop.",
  }
  if output == "" then
    sentences[#sentences + 1] =
      "No output had been read from it when it was moved. A program that buffers its output, or a pipe into one such as tail, can keep the output file empty until the command finishes."
  end
  sentences[#sentences + 1] = "To check interim output, use Read on that file path."
  local text = table.concat(sentences, " ")
  if output ~= "" then
    text = output .. "\n" .. text
  end
  return text
end

local tool = {
  name = "Bash",
  searchHint = "execute shell commands",
  maxResultSizeChars = 30000,

  prompt = [[
Runs a command with bash and returns what it printed, stdout and stderr together.

- Each call is a fresh bash: variables, functions and aliases are lost. A command that succeeds keeps the directory it ends in, unless that is outside the workspace roots; then it returns to the session's start and says so. Prefer absolute paths, and double-quote any path with spaces.
- Where the system supports it, commands run sandboxed: they read the workspace roots and system directories, and write in the roots only in calls allowed to change things. The user's home directory, /tmp and the network are closed unless the host opens them; use $TMPDIR for scratch. Read-only commands run without asking; the rest need permission.
- There is no terminal, and input is empty.
- Do not run `cat`, `find`, `grep`, `head`, `sed`, `awk`, `tail` or `echo` when Read, Edit, Write, Glob or Grep can do the job: they are faster for you and clearer to the user. Use the shell for those only when asked or when no tool fits.
- You see the output; the user may not. Beyond 30000 characters it is saved to a file and you get a preview. A non-zero exit makes the call an error starting "Exit code N" (exit 1 of grep, diff, find or test is not one).
- `timeout` is in milliseconds: 120000 unless given, 600000 at most. A command still running then goes on in the background (as below); one starting with `sleep` is killed. A leading sleep of 25 s or more is refused.
- `run_in_background` returns at once with a task id and the file collecting the output; no `&` needed. Read the file to follow it; when the command is over, its last line is `[exited with code N]` or `[killed]`. You are not told when it ends, so look again; TaskStop ends it. Its `timeout` is how long it may run: 600000 by default, 7200000 at most. It also stops when luatool exits.
- Put independent commands in separate calls of one response; chain dependent ones with `&&`.

# Git
- Interactive modes (`git rebase -i`, `git add -p`) need a terminal; use non-interactive forms.
- Push, fetch and `gh` need the network, open only if the host allows it.
- Writing `@someone` in a pull request, issue or comment alerts that GitHub user. Mention only real accounts you mean to alert; put placeholders, role names and scopes like `@types/react` in backticks, or drop the `@`.
- Make commits or pushes only at the user's request; on the default branch, branch off first.
- Never commit files likely to hold secrets (.env files, credential JSON); warn a user who asks for that.
- If your instructions give attribution lines for commits or pull requests, end the message with them.]],

  inputSchema = {
    type = "object",
    properties = {
      command = { type = "string", description = "Shell command line to run" },
      timeout = {
        type = "number",
        description = "Optional limit in milliseconds: at most 600000 in the foreground, 7200000 in the background",
      },
      description = {
        type = "string",
        description = [[
A short, plain summary in the active voice of what the command does. The user reads it, often without seeing the command itself, so state the effect: do not repeat the command line, its options or its paths, and leave out loaded words such as "complex" or "risk".

Everyday commands need about 5-10 words:
- pwd → "Print current directory"
- git log -5 → "Show last five commits"
- go test ./... → "Run all Go tests"

When a command is hard to read at a glance (a pipeline, unusual flags), say a little more so its purpose is plain:
- du -sh * | sort -h | tail -3 → "Show the three largest items here"
- git clean -fdx → "Delete all untracked and ignored files"
- ps aux | grep '[n]ode' | awk '{print $2}' → "List process IDs of running Node programs"]],
      },
      run_in_background = {
        type = "boolean",
        description = "Start the command in the background and return at once with its task id and output file. timeout is then how long it may keep running before it is stopped (600000 ms unless given, 7200000 ms at most).",
      },
      dangerouslyDisableSandbox = {
        type = "boolean",
        description = "Has no effect in luatool: commands keep the sandbox (where there is one) and need permission as usual",
      },
    },
    required = { "command" },
    additionalProperties = false,
  },

  -- Unlike Grep's, the original's Bash mends whatever else the input holds: a
  -- mended input the schema then refuses is told with the mended names.
  ---@param input table
  coerceInput = function(input)
    local changed, note = mendInput(input)
    if changed then
      return input, note
    end
  end,

  ---@param input BashInput
  description = function(input)
    return input.description or "Run shell command"
  end,

  -- isReadOnly and isConcurrencySafe judge the command where it will run: in the
  -- working directory earlier calls left (a cd in one call, git in the next is
  -- judged in that directory, whose repository may not be the root's).
  ---@param input BashInput
  ---@param ctx? luatool.Context
  isReadOnly = function(input, ctx)
    return (shell.readonly(input.command, { cwd = sessionCwd(ctx) }))
  end,

  ---@param input BashInput
  ---@param ctx? luatool.Context
  isConcurrencySafe = function(input, ctx)
    return (shell.readonly(input.command, { cwd = sessionCwd(ctx) }))
  end,

  -- checkPermissions allows a read-only command that reads inside the roots only,
  -- denies one that reads a path a Read deny rule hides (the rule applies to Bash as
  -- to Read), asks a person about one that writes something protected (a tool
  -- directory, .git, a shell's startup file: the original's safety check, which no
  -- mode or rule answers), and leaves the rest to the rules and the person.
  ---@param input BashInput
  ---@param ctx luatool.Context
  checkPermissions = function(input, ctx)
    local cwd = ctx.state:get(CWD_KEY) or ctx.cwd
    local ok, why, code = shell.readonly(input.command, { cwd = cwd })
    if ok then
      return { behavior = "allow" }
    end
    if code == "hidden" then
      return { behavior = "deny", message = "Permission to use Bash has been denied: " .. why .. "." }
    end
    local unsafe
    local targets, unknown = shell.writes(input.command, { cwd = cwd })
    if not targets then
      unsafe = "the command does not parse (" .. unknown .. "), so what it writes cannot be told"
    else
      for _, t in ipairs(targets) do
        local protected = t.tree and ctx:protectedWithin(t.path) or not t.tree and ctx:protected(t.path)
        if protected then
          unsafe = ("the command writes %s%s, which is protected: %s"):format(t.tree and "inside " or "", t.path, protected)
          break
        end
      end
      if not unsafe and #unknown > 0 then
        unsafe = ("what the command writes through %s cannot be told before it runs, so it may be protected"):format(unknown[1])
      end
    end
    if unsafe then
      return { behavior = "ask", message = "Bash: " .. unsafe .. ".", decisionReason = { type = "safetyCheck", reason = unsafe } }
    end
    return { behavior = "passthrough" }
  end,

  -- ruleContent gives the parts of a compound command, each of which an allow rule
  -- must match; a command that does not parse is matched whole.
  ---@param input BashInput
  ruleContent = function(input)
    return shell.split(input.command) or input.command
  end,

  -- validateInput refuses, as the original does, a foreground command that starts
  -- with a long sleep: the wait would hold the whole turn. The original's text sends the
  -- model to its Monitor tool, which luatool does not have (docs/compatibility.md).
  ---@param input BashInput
  validateInput = function(input)
    if input.run_in_background then
      return true
    end
    local seconds, rest = leadingSleep(input.command)
    if not seconds or seconds < BLOCKED_SLEEP then
      return true
    end
    local what = rest ~= "" and ("sleep %s followed by: %s"):format(seconds, rest) or ("standalone sleep %s"):format(seconds)
    return {
      result = false,
      errorCode = 10,
      message = "Blocked: "
        .. what
        .. ". To wait for a condition, run an until-loop (e.g. `until <check>; do sleep 2; done`) with run_in_background: true. To wait for a command you started, use run_in_background: true. Do not chain shorter sleeps to work around this block.",
    }
  end,

  ---@param input BashInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local cwd = ctx.state:get(CWD_KEY) or ctx.cwd
    if input.run_in_background then
      local id, path = shell.start(input.command, { cwd = cwd, timeout = timeoutOf(input, DEFAULT_BACKGROUND_TIMEOUT, MAX_BACKGROUND_TIMEOUT) })
      if not id then
        return nil, path
      end
      local text = ("Command running in background with ID: %s. Output is being written to: %s. To check interim output, use Read on that file path."):format(id, path)
      return withCwdNote(text, input.command, cwd)
    end
    local timeout = timeoutOf(input, DEFAULT_TIMEOUT, MAX_TIMEOUT)
    local res, err = shell.run(input.command, {
      cwd = cwd,
      timeout = timeout,
      maxOutput = MAX_OUTPUT,
      -- The original moves a command to the background at its timeout unless it
      -- starts with sleep.
      background = not startsWithSleep(input.command),
    })
    if not res then
      return nil, err
    end
    local output = trim(res.output)
    if res.taskId then
      return withCwdNote(movedText(output, res.taskId, res.outputFile, timeout), input.command, cwd)
    end
    if res.truncated then
      output = output .. ("\n\n... [%d bytes of output omitted]"):format(res.omitted)
    end
    if res.interrupted then
      return nil, trim(output .. "\n<error>Command was aborted before completion</error>")
    end
    if res.timedOut then
      return nil, trim(("Exit code %d\nCommand timed out after %s\n%s"):format(TIMEOUT_EXIT_CODE, duration(timeout), output))
    end
    -- Only a command that succeeded moves the session: one that fails leaves it
    -- where it was, as in the original.
    local note
    if res.exitCode == 0 and res.cwdOutside then
      ctx.state:set(CWD_KEY, nil)
      note = "Shell cwd was reset to " .. ctx.cwd
    elseif res.exitCode == 0 then
      ctx.state:set(CWD_KEY, res.cwd)
    end
    if res.exitCode ~= 0 and not (res.exitCode == 1 and exitOneIsOk(input.command)) then
      return nil, trim(("Exit code %d\n%s"):format(res.exitCode, output))
    end
    if note then
      return trim(output .. "\n" .. note)
    end
    return output
  end,
}

return tool
