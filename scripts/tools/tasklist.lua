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
Shows every task of this session's task list, one line per task.

## When to use it

- To pick what to work on: a task that is pending, has no owner and is not waiting on anything
- To see how the work as a whole is going
- To spot tasks held up by others, whose dependencies need sorting out
- After you finish a task, to find work that has just become free, or to take on the next task
- **When several tasks are free, go in id order** (smallest id first): the early tasks usually lay the groundwork for the later ones

## Result

Each line reads `#id [status] subject`, followed by:
- the owner in parentheses, when the task has one (an agent's name)
- `[blocked by #x, #y]`: the tasks it still waits on that are not completed yet; a task like that cannot be taken on until they are done

The id is what TaskGet and TaskUpdate take; the status is pending, in_progress or completed. An empty list gives "No tasks found".

For the full description of a task, call TaskGet with its id.]],

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
