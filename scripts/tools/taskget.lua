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
Looks up one task of this session's task list by its id and shows all of it.

## When to use it

- Before starting on a task, to read its full description and context
- To learn how it relates to others: which tasks it holds up, and which hold it up
- When a task has been handed to you, to collect everything it asks for

## Result

One field a line:
- **Task #id: subject**: number and title
- **Status**: pending, in_progress or completed
- **Description**: what the work involves
- **Blocked by**: tasks to complete before this one can begin
- **Blocks**: tasks waiting for this one

The last two appear only when not empty. An unknown or deleted id gives "Task not found".

## Tips

- Begin the work only once nothing is left under Blocked by.
- For a short view of every task, call TaskList.]],

  inputSchema = {
    type = "object",
    properties = {
      taskId = { type = "string", description = "Id of the task to look up" },
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
