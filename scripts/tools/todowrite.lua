-- TodoWrite: the original's older task list tool, which replaces the whole list on
-- every call. Claude Code offers it in place of TaskCreate, TaskGet, TaskList and
-- TaskUpdate when its task tools are turned off (CLAUDE_CODE_ENABLE_TASKS=0); so does
-- luatool: scripts.Tools leaves this file out and scripts.ToolsWith offers it instead
-- of the task tools (the CLI with LUATOOL_ENABLE_TASKS=0).
--
-- An item's parameters the schema does not declare (an `id` or a `priority` of the
-- tool's older versions) are dropped before the schema sees them, as the original's
-- validator drops them, though its published schema, like this one, says
-- additionalProperties false; a parameter beside `todos` is refused.
--
-- The list is kept in ctx.state, in the session of the call's principal; a list whose
-- items are all completed is cleared, as in the original, so the next call starts
-- from nothing.

local json = require("json")

local KEY = "todos"

-- The parameters of an item.
local ITEM_FIELDS = { content = true, status = true, activeForm = true }

---@class TodoItem
---@field content string
---@field status "pending"|"in_progress"|"completed"
---@field activeForm string

---@class TodoWriteInput
---@field todos TodoItem[]

---@type luatool.Tool
local tool = {
  name = "TodoWrite",
  searchHint = "update the session todo list (legacy)",
  maxResultSizeChars = 100000,
  -- It changes only the session's list: no permission needed, in plan mode too.
  isReadOnly = true,
  isConcurrencySafe = false,

  prompt = [[
Sets the task list of this session, which the user sees as the plan you are following.

- An item has `content`, a `status` (pending, in_progress or completed) and `activeForm`, the "-ing" phrase shown while it is underway.
- Send the complete list on every call; it takes the place of the last one.
- Work on one item at a time: only that one is in_progress, and it becomes completed as soon as it is finished.]],

  inputSchema = {
    type = "object",
    properties = {
      todos = {
        type = "array",
        description = "The full list as it stands",
        items = {
          type = "object",
          properties = {
            content = { type = "string", minLength = 1 },
            status = { type = "string", enum = { "pending", "in_progress", "completed" } },
            activeForm = { type = "string", minLength = 1 },
          },
          required = { "content", "status", "activeForm" },
          additionalProperties = false,
        },
      },
    },
    required = { "todos" },
    additionalProperties = false,
  },

  description = "Update the todo list",

  ---@param input table
  coerceInput = function(input)
    if type(input.todos) ~= "table" or not json.isarray(input.todos) then
      return nil
    end
    local dropped = false
    for _, item in ipairs(input.todos) do
      if type(item) == "table" and not json.isarray(item) then
        for k in pairs(item) do
          if not ITEM_FIELDS[k] then
            item[k], dropped = nil, true
          end
        end
      end
    end
    return dropped and input or nil
  end,

  ---@param input TodoWriteInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local allDone = true
    for _, item in ipairs(input.todos) do
      if item.status ~= "completed" then
        allDone = false
      end
    end
    -- One update, so that the old list told is the one this call replaced.
    local old
    ctx.state:update(KEY, function(stored)
      old = stored or json.array()
      return allDone and json.array() or input.todos
    end)
    return { data = { oldTodos = old, newTodos = input.todos } }
  end,

  mapResult = function()
    return "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"
  end,

  renderToolResultMessage = function(data)
    local done = 0
    for _, item in ipairs(data.newTodos) do
      if item.status == "completed" then
        done = done + 1
      end
    end
    return ("%d of %d done"):format(done, #data.newTodos)
  end,
}

return tool
