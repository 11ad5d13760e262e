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
-- Read and stops the task with TaskStop. The classification is the same: a read-only
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

-- Exit code 1 is not an error for these commands; the text explains an empty output.
local EXIT_ONE = {
  grep = "No matches found",
  egrep = "No matches found",
  fgrep = "No matches found",
  rg = "No matches found",
  find = "Some directories were inaccessible",
  diff = "Files differ",
  test = "Condition is false",
  ["["] = "Condition is false",
}

---@class BashInput
---@field command string
---@field timeout? integer
---@field description? string
---@field run_in_background? boolean

-- baseCommand is the first word of the last simple command, whose status is the
-- command's.
local function baseCommand(command)
  local parts = shell.split(command)
  local last = parts and parts[#parts] or command
  return last:match("^%s*(%S+)") or ""
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

local tool = {
  name = "Bash",
  searchHint = "execute shell commands",
  maxResultSizeChars = 30000,

  prompt = [[
Runs a command with bash and returns what it printed, stdout and stderr together.

- Each call is a fresh bash: variables, functions and aliases are lost between calls. The working directory is kept, unless a command ends outside the workspace roots; then it goes back to the session's start and the result says so. Prefer absolute paths, and double-quote any path with spaces.
- Where the system supports it, commands run sandboxed: they read the workspace roots and system directories, and write in the roots only in calls allowed to change things. The user's home directory, /tmp and the network are closed unless the host opens them; use $TMPDIR for scratch. Read-only commands run without asking; the rest need permission.
- There is no terminal, and input is empty.
- Do not run `cat`, `find`, `grep`, `head`, `sed`, `awk`, `tail` or `echo` when Read, Edit, Write, Glob or Grep can do the job: they are faster for you and clearer to the user. Use the shell for those only when asked or when no tool fits.
- You see the output; the user may not. Beyond 30000 characters it is saved to a file and you get a preview. A non-zero exit makes the call an error starting "Exit code N" (exit 1 of grep, diff, find or test is not one).
- `timeout` is in milliseconds: 120000 unless given, 600000 at most.
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

  ---@param input BashInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local cwd = ctx.state:get(CWD_KEY) or ctx.cwd
    if input.run_in_background then
      local timeout = math.min(input.timeout or DEFAULT_BACKGROUND_TIMEOUT, MAX_BACKGROUND_TIMEOUT)
      local id, path = shell.start(input.command, { cwd = cwd, timeout = timeout })
      if not id then
        return nil, path
      end
      return ("Command running in background with ID: %s. Output is being written to: %s. To check interim output, use Read on that file path."):format(id, path)
    end
    local timeout = math.min(input.timeout or DEFAULT_TIMEOUT, MAX_TIMEOUT)
    local res, err = shell.run(input.command, { cwd = cwd, timeout = timeout, maxOutput = MAX_OUTPUT })
    if not res then
      return nil, err
    end
    local notes = {}
    if res.cwdOutside then
      ctx.state:set(CWD_KEY, nil)
      notes[#notes + 1] = "Shell cwd was reset to " .. ctx.cwd
    else
      ctx.state:set(CWD_KEY, res.cwd)
    end
    local output = trim(res.output)
    if res.truncated then
      output = output .. ("\n\n... [%d bytes of output omitted]"):format(res.omitted)
    end
    local function with(text)
      local all = { text }
      for _, n in ipairs(notes) do
        all[#all + 1] = n
      end
      return trim(table.concat(all, "\n"))
    end
    if res.interrupted then
      return nil, with(output .. "\n<error>Command was aborted before completion</error>")
    end
    if res.timedOut then
      return nil, with(output .. ("\nCommand timed out after %d ms"):format(timeout))
    end
    if res.exitCode ~= 0 then
      local meaning = res.exitCode == 1 and EXIT_ONE[baseCommand(input.command)]
      if not meaning then
        return nil, with(("Exit code %d\n%s"):format(res.exitCode, output))
      end
      if output == "" then
        output = meaning
      end
    end
    return with(output)
  end,
}

return tool
