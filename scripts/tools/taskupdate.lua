-- TaskUpdate: changes a task of the session's task list, as Claude Code's TaskUpdate
-- does. The result names the fields that changed, in a fixed order (subject,
-- description, activeForm, owner, metadata, status, blocks, blockedBy); a value equal
-- to the current one changes nothing and is not named. Status "deleted" removes the
-- task and every reference to it. metadata is merged key by key, null removing a key.
--
-- Links: addBlocks and addBlockedBy record both ends (A blocks B and B is blocked by
-- A). Unlike the original, which names the field for any id not linked before, an id
-- of no task, or the task's own, links nothing, and the field is named only when a
-- link was made.

local json = require("json")
local tasks = require("tasks")

---@class TaskUpdateInput
---@field taskId string
---@field subject? string
---@field description? string
---@field activeForm? string
---@field status? "pending"|"in_progress"|"completed"|"deleted"
---@field addBlocks? string[]
---@field addBlockedBy? string[]
---@field owner? string
---@field metadata? table

local NOT_FOUND = "Task not found"

-- The text fields an update may set, in the order the result names them.
local TEXT_FIELDS = { "subject", "description", "activeForm", "owner" }

---@type luatool.Tool
local tool = {
  name = "TaskUpdate",
  searchHint = "update a task: status, details, dependencies",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = false,

  prompt = [[
Changes a task of this session's task list: its status, its details or its dependencies.

## When to use it

Resolving tasks:
- Once you have finished the work a task describes, or it is no longer needed or superseded, resolve it. Always resolve the tasks assigned to you when you finish them, then look at TaskList for the next one.
- Mark a task completed only when it is entirely done. While tests fail, the implementation is partial, errors are unresolved or files or dependencies could not be found, it stays in_progress; when something blocks you, create a task for what has to be resolved.

Deleting tasks:
- A task that no longer matters or was created by mistake: set its status to deleted, which removes it for good.

Changing details:
- When the requirements change or become clearer, or to set up dependencies between tasks.

## Fields

- status: pending, then in_progress, then completed; deleted removes the task.
- subject: a new title, in the imperative ("Run tests").
- description: a new description.
- activeForm: the present-continuous label shown while the task is in progress ("Running tests").
- owner: who works on the task (an agent's name).
- metadata: keys to merge into the task's metadata; a key set to null is removed.
- addBlocks: tasks that cannot start until this one is completed.
- addBlockedBy: tasks that must be completed before this one can start.

Read a task's current state with TaskGet before changing it.

## Examples

Start work on a task: {"taskId": "1", "status": "in_progress"}
Finish it: {"taskId": "1", "status": "completed"}
Delete it: {"taskId": "1", "status": "deleted"}
Take it on: {"taskId": "1", "owner": "my-name"}
Make task 2 wait for task 1: {"taskId": "2", "addBlockedBy": ["1"]}]],

  inputSchema = {
    type = "object",
    properties = {
      taskId = { type = "string", description = "The id of the task to change" },
      subject = { type = "string", description = "The new title" },
      description = { type = "string", description = "The new description" },
      activeForm = {
        type = "string",
        description = 'The present-continuous label shown while the task is in progress (e.g. "Running tests")',
      },
      -- One enum where the original has a union of the three and the const
      -- "deleted": the same values, and a bad one is refused naming all four.
      status = {
        type = "string",
        enum = { "pending", "in_progress", "completed", "deleted" },
        description = "The new status; deleted removes the task",
      },
      addBlocks = {
        type = "array",
        items = { type = "string" },
        description = "Ids of tasks that this task blocks",
      },
      addBlockedBy = {
        type = "array",
        items = { type = "string" },
        description = "Ids of tasks that block this task",
      },
      owner = { type = "string", description = "The new owner" },
      metadata = {
        type = "object",
        propertyNames = { type = "string" },
        additionalProperties = {},
        description = "Keys to merge into the task's metadata; a key set to null is removed",
      },
    },
    required = { "taskId" },
    additionalProperties = false,
  },

  ---@param input TaskUpdateInput
  description = function(input)
    return "Update task #" .. input.taskId
  end,

  ---@param input TaskUpdateInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local list = tasks.load(ctx)
    local id = input.taskId
    local task = list.byId[id]
    if not task then
      return { data = { success = false, taskId = id, updatedFields = json.array(), error = NOT_FOUND } }
    end
    if input.status == "deleted" then
      tasks.delete(list, id)
      tasks.save(ctx, list)
      return {
        data = {
          success = true,
          taskId = id,
          updatedFields = json.array({ "deleted" }),
          statusChange = { from = task.status, to = "deleted" },
        },
      }
    end

    local updated = json.array()
    for _, field in ipairs(TEXT_FIELDS) do
      if input[field] ~= nil and input[field] ~= task[field] then
        task[field] = input[field]
        updated[#updated + 1] = field
      end
    end
    if input.metadata ~= nil then
      local merged = task.metadata or {}
      for k, v in pairs(input.metadata) do
        if v == json.null then
          merged[k] = nil
        else
          merged[k] = v
        end
      end
      task.metadata = merged
      updated[#updated + 1] = "metadata"
    end
    local statusChange
    if input.status ~= nil and input.status ~= task.status then
      statusChange = { from = task.status, to = input.status }
      task.status = input.status
      updated[#updated + 1] = "status"
    end
    local linked = false
    for _, other in ipairs(input.addBlocks or {}) do
      linked = tasks.link(list, id, other) or linked
    end
    if linked then
      updated[#updated + 1] = "blocks"
    end
    linked = false
    for _, other in ipairs(input.addBlockedBy or {}) do
      linked = tasks.link(list, other, id) or linked
    end
    if linked then
      updated[#updated + 1] = "blockedBy"
    end

    tasks.save(ctx, list)
    return { data = { success = true, taskId = id, updatedFields = updated, statusChange = statusChange } }
  end,

  mapResult = function(data)
    if not data.success then
      return data.error or ("Task #" .. data.taskId .. " not found")
    end
    return ("Updated task #%s %s"):format(data.taskId, table.concat(data.updatedFields, ", "))
  end,
}

return tool
