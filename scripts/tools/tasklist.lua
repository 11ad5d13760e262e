-- TaskList: lists the session's tasks in id order, one a line, as Claude Code's
-- TaskList does: "#ID [status] subject", the owner in parentheses, and the tasks it
-- still waits on (blockers not completed yet).

local json = require("json")
local tasks = require("tasks")

---@type luatool.Tool
local tool = {
  name = "TaskList",
  searchHint = "list the tasks of the session task list",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = true,

  prompt = [[
Lists every task of this session's task list, in short.

## When to use it

- To find work to do next: a pending task with no owner that nothing blocks.
- To check how far the work as a whole has got.
- To find blocked tasks whose dependencies need resolving.
- After finishing a task, to see what it unblocked, or to take the next one.
- When several tasks are free, take the lowest id first: earlier tasks often prepare the ground for later ones.

## Result

One line a task: its id (for TaskGet and TaskUpdate), status (pending, in_progress or completed) and subject, its owner when it has one, and the open tasks it waits on ("blocked by"); a blocked task cannot be started until those are completed.

TaskGet shows a task in full, with its description.]],

  inputSchema = {
    type = "object",
    properties = {},
    additionalProperties = false,
  },

  description = "List tasks",

  ---@param _ table
  ---@param ctx luatool.Context
  call = function(_, ctx)
    local list = tasks.load(ctx)
    local out = json.array()
    for _, task in ipairs(tasks.sorted(list)) do
      out[#out + 1] = {
        id = task.id,
        subject = task.subject,
        status = task.status,
        owner = task.owner,
        blockedBy = tasks.openBlockers(list, task),
      }
    end
    return { data = { tasks = out } }
  end,

  mapResult = function(data)
    if #data.tasks == 0 then
      return "No tasks found"
    end
    local lines = {}
    for i, task in ipairs(data.tasks) do
      local line = ("#%s [%s] %s"):format(task.id, task.status, task.subject)
      if task.owner and task.owner ~= "" then
        line = line .. " (" .. task.owner .. ")"
      end
      if #task.blockedBy > 0 then
        line = line .. " [blocked by " .. tasks.refs(task.blockedBy) .. "]"
      end
      lines[i] = line
    end
    return table.concat(lines, "\n")
  end,

  renderToolResultMessage = function(data)
    local n = #data.tasks
    return ("%d %s"):format(n, n == 1 and "task" or "tasks")
  end,
}

return tool
