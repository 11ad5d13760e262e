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

-- trim strips leading blank lines and trailing whitespace.
local function trim(s)
  return (s:gsub("^%s*\n", ""):gsub("%s+$", ""))
end

local tool = {
  name = "Bash",
  searchHint = "execute shell commands",
  maxResultSizeChars = 30000,

  prompt = [[
Executes a bash command and returns its output (stdout and stderr merged).

Usage:
- The working directory persists between commands; it is reset to the project directory if a command leaves the allowed roots.
- Quote paths that contain spaces with double quotes.
- timeout is in milliseconds, up to 600000 (10 minutes); the default is 120000 (2 minutes).
- Output beyond 30000 characters is saved to a file and a preview is shown.
- run_in_background starts the command and returns at once with a task id and the file its output goes to; no & is needed. Read that file to see the output so far; once the command has ended the file's last line says how ([exited with code N] or [killed]). You are not told when it ends: read the file again to find out. TaskStop stops it.
- For a background command, timeout is how long it may run before it is stopped: the default is 600000 (10 minutes), the maximum 7200000 (2 hours). Background commands also end when this tool server stops.
- Prefer the Read, Glob and Grep tools to cat, find and grep; chain dependent commands with &&.
- Write a clear description of 5-10 words in the active voice.]],

  inputSchema = {
    type = "object",
    properties = {
      command = { type = "string", description = "The command to execute" },
      timeout = {
        type = "number",
        description = "Optional timeout in milliseconds (max 600000 for a foreground command, 7200000 in the background)",
      },
      description = {
        type = "string",
        description = "Clear, concise description of what this command does in 5-10 words, in active voice.",
      },
      run_in_background = {
        type = "boolean",
        description = "Set to true to run this command in the background. Then timeout limits how long it may run before it is stopped (default 600000 ms, max 7200000 ms).",
      },
      dangerouslyDisableSandbox = {
        type = "boolean",
        description = "Accepted for compatibility and ignored: commands always run in the host's sandbox, where it has one, and permissions still apply.",
      },
    },
    required = { "command" },
    additionalProperties = false,
  },

  ---@param input BashInput
  description = function(input)
    return input.description or "Run shell command"
  end,

  ---@param input BashInput
  isReadOnly = function(input)
    return shell.readonly(input.command)
  end,

  ---@param input BashInput
  isConcurrencySafe = function(input)
    return shell.readonly(input.command)
  end,

  -- checkPermissions allows a read-only command that reads inside the roots only,
  -- denies one that reads a path a Read deny rule hides (the rule applies to Bash as
  -- to Read), and leaves the rest to the rules and the person.
  ---@param input BashInput
  ---@param ctx luatool.Context
  checkPermissions = function(input, ctx)
    local ok, why, code = shell.readonly(input.command, { cwd = ctx.state:get(CWD_KEY) or ctx.cwd })
    if ok then
      return { behavior = "allow" }
    end
    if code == "hidden" then
      return { behavior = "deny", message = "Permission to use Bash has been denied: " .. why .. "." }
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
