-- TaskGet: shows one task of the session's task list in full, as Claude Code's
-- TaskGet does. An id of no task (never given, or deleted) is "Task not found", not
-- an error.

local json = require("json")
local tasks = require("tasks")

---@class TaskGetInput
---@field taskId string

---@type luatool.Tool
local tool = {
  name = "TaskGet",
  searchHint = "show a task of the task list by id",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Shows one task of this session's task list, by its id.

## When to use it

- Before you start on a task, to read its whole description and context.
- To see its dependencies: which tasks it blocks and which block it.
- When a task has been handed to you, to get all of its requirements.

## Result

The task's subject, status (pending, in_progress or completed) and description, the tasks that wait on it (Blocks) and the tasks it waits on (Blocked by).

Check that nothing blocks a task any more before you begin it. TaskList shows every task in short.]],

  inputSchema = {
    type = "object",
    properties = {
      taskId = { type = "string", description = "The id of the task to show" },
    },
    required = { "taskId" },
    additionalProperties = false,
  },

  ---@param input TaskGetInput
  description = function(input)
    return "Get task #" .. input.taskId
  end,

  ---@param input TaskGetInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local task = tasks.load(ctx).byId[input.taskId]
    if not task then
      return { data = { task = json.null } }
    end
    return {
      data = {
        task = {
          id = task.id,
          subject = task.subject,
          description = task.description,
          status = task.status,
          blocks = task.blocks,
          blockedBy = task.blockedBy,
        },
      },
    }
  end,

  mapResult = function(data)
    local task = data.task
    if task == json.null then
      return "Task not found"
    end
    local lines = {
      ("Task #%s: %s"):format(task.id, task.subject),
      "Status: " .. task.status,
      "Description: " .. task.description,
    }
    if #task.blockedBy > 0 then
      lines[#lines + 1] = "Blocked by: " .. tasks.refs(task.blockedBy)
    end
    if #task.blocks > 0 then
      lines[#lines + 1] = "Blocks: " .. tasks.refs(task.blocks)
    end
    return table.concat(lines, "\n")
  end,
}

return tool
