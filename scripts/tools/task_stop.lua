-- TaskStop: stops a background command that Bash started with run_in_background, as
-- Claude Code's TaskStop does for its background shells: the command's process group
-- gets SIGTERM, then SIGKILL two seconds later, and the call returns once the
-- command has ended, its output file ending with [killed]. Only a running command of
-- the caller's own session can be stopped: one that has ended, by itself, by its
-- timeout or by an earlier TaskStop, is unknown, as in the original. The deprecated
-- shell_id is accepted for task_id.
--
-- Stopping changes something, so the tool is not read-only (plan mode refuses it),
-- but it asks no one: it can only end what the session itself started.

---@type luatool.shell
local shell = require("shell")
local json = require("json")

---@class TaskStopInput
---@field task_id? string
---@field shell_id? string

-- taskId is the id the input names: task_id, else the deprecated shell_id.
---@param input TaskStopInput
local function taskId(input)
  local id = input.task_id
  if id == nil then
    id = input.shell_id
  end
  return id
end

---@type luatool.Tool
local tool = {
  name = "TaskStop",
  searchHint = "stop a background shell command",
  isConcurrencySafe = true,

  prompt = [[
Ends a command that Bash started with run_in_background.

- Name it by the task_id in Bash's start message.
- Its process group gets SIGTERM, then SIGKILL two seconds later if still running; the output file ends with [killed].
- A command already finished, timed out or stopped is unknown, and the call says so.
- The result is JSON naming the command.
- Use it for a long-running or stuck command you no longer need.]],

  inputSchema = {
    type = "object",
    properties = {
      task_id = { type = "string", description = 'Id of the background command to stop, as the start message of Bash gave it (such as "b3k9x0q2m"); only commands of this session can be stopped' },
      shell_id = { type = "string", description = "Old name for task_id; use task_id" },
    },
    additionalProperties = false,
  },

  ---@param input TaskStopInput
  description = function(input)
    return "Stop task " .. (taskId(input) or "")
  end,

  -- validateInput gives the original's texts, wrapped in <tool_use_error> by the
  -- engine: an input with no id, and an id no running task of the session has.
  ---@param input TaskStopInput
  validateInput = function(input)
    local id = taskId(input)
    if id == nil or id == "" then
      return { result = false, errorCode = 1, message = "Missing required parameter: task_id" }
    end
    if not shell.task(id) then
      return { result = false, errorCode = 1, message = "No task found with ID: " .. id }
    end
    return true
  end,

  checkPermissions = function()
    return { behavior = "allow" }
  end,

  ---@param input TaskStopInput
  call = function(input)
    local id = taskId(input)
    local task = shell.stop(id)
    if not task then
      -- It ended between validateInput and now.
      return nil, "No task found with ID: " .. id
    end
    return {
      data = {
        message = ("Successfully stopped task: %s (%s)"):format(task.id, task.command),
        task_id = task.id,
        task_type = "local_bash",
        command = task.command,
      },
    }
  end,

  -- mapResult is the data as the original sends it: JSON with its keys in this
  -- order (json.encode would sort them).
  mapResult = function(data)
    local parts = {}
    for _, key in ipairs({ "message", "task_id", "task_type", "command" }) do
      parts[#parts + 1] = json.encode(key) .. ":" .. json.encode(data[key])
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end,

  renderToolResultMessage = function(data)
    return "Stopped " .. data.command
  end,
}

return tool
