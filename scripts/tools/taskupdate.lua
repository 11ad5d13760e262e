-- TaskUpdate: changes a task of the session's task list, as Claude Code's TaskUpdate
-- does. The result names the fields that changed, in a fixed order (subject,
-- description, activeForm, owner, metadata, status, blocks, blockedBy); a value equal
-- to the current one changes nothing and is not named. Status "deleted" removes the
-- task and every reference to it. metadata is merged key by key, null removing a key.
--
-- Links: addBlocks and addBlockedBy record both ends (A blocks B and B is blocked by
-- A), a task's own id too. As in the original, the field is named when it holds an
-- id the task did not list before the update, even one of no task, which links
-- nothing.
--
-- coerceInput takes the original's old names: id and task_id for taskId, active_form
-- for activeForm; any other parameter the schema does not declare is refused.

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

-- The old parameter names the original still takes, by the name they stand for.
local ALIASES = { { "taskId", { "id", "task_id" } }, { "activeForm", { "active_form" } } }

-- The text fields an update may set, in the order the result names them.
local TEXT_FIELDS = { "subject", "description", "activeForm", "owner" }

-- update applies input to the task list and returns the result's data; it changes
-- nothing but list, since tasks.change may run it more than once.
---@param list TaskList
---@param input TaskUpdateInput
---@return table
local function update(list, input)
  local id = input.taskId
  local task = list.byId[id]
  if not task then
    return { success = false, taskId = id, updatedFields = json.array(), error = NOT_FOUND }
  end
  if input.status == "deleted" then
    tasks.delete(list, id)
    return {
      success = true,
      taskId = id,
      updatedFields = json.array({ "deleted" }),
      statusChange = { from = task.status, to = "deleted" },
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
  -- Both are measured against the task as it was, before either adds a link.
  local blocks, blockedBy = tasks.newIds(input.addBlocks, task.blocks), tasks.newIds(input.addBlockedBy, task.blockedBy)
  for _, other in ipairs(blocks) do
    tasks.link(list, id, other)
  end
  if #blocks > 0 then
    updated[#updated + 1] = "blocks"
  end
  for _, other in ipairs(blockedBy) do
    tasks.link(list, other, id)
  end
  if #blockedBy > 0 then
    updated[#updated + 1] = "blockedBy"
  end

  return { success = true, taskId = id, updatedFields = updated, statusChange = statusChange }
end

---@type luatool.Tool
local tool = {
  name = "TaskUpdate",
  searchHint = "update a task: status, details, dependencies",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = false,

  prompt = [[
Changes a task of this session's task list: its status, its details, its owner or its dependencies.

## When to use it

**Resolving tasks:**
- When the work a task describes is done
- When a task has become unnecessary, or another has superseded it
- IMPORTANT: resolve the tasks assigned to you as soon as you finish them
- Once a task is resolved, call TaskList to find the next one

- Set a task to completed ONLY when all of it is done
- If you hit errors or obstacles, or cannot finish, leave it in_progress
- When something blocks you, add a task that describes what must be resolved first
- Do not mark a task completed while:
  - tests fail
  - the implementation is unfinished
  - errors remain unresolved
  - files or dependencies it needs could not be found

**Deleting tasks:**
- When a task has stopped mattering or was created by mistake
- Status `deleted` removes the task for good, along with every reference to it from other tasks

**Changing details:**
- When the requirements change or become clearer
- When one task must wait for another

## Fields you can change

- **status**: where the task stands (see the workflow below)
- **subject**: a new title, in the imperative (e.g. "Update the changelog")
- **description**: a new account of the work
- **activeForm**: the present-continuous label for display while in_progress (e.g. "Updating the changelog")
- **owner**: who works on it, by agent name
- **metadata**: keys merged into the task's metadata; a key set to null is removed
- **addBlocks**: tasks that may not start before this one is completed
- **addBlockedBy**: tasks that have to be completed before this one may start

Links are recorded at both ends. An id that names no task links nothing. A field whose new value equals the old one changes nothing.

## Workflow

`pending` → `in_progress` → `completed`; `deleted` removes the task.

## Fresh state

The list may have changed since you last looked at it: call TaskGet for a task's current state before you change it.

## Examples

Begin work on task 3:
```json
{"taskId": "3", "status": "in_progress"}
```

Finish it:
```json
{"taskId": "3", "status": "completed"}
```

Remove it:
```json
{"taskId": "3", "status": "deleted"}
```

Take it on yourself:
```json
{"taskId": "3", "owner": "worker-a"}
```

Make task 4 wait for task 3:
```json
{"taskId": "4", "addBlockedBy": ["3"]}
```]],

  inputSchema = {
    type = "object",
    properties = {
      taskId = { type = "string", description = "Id of the task to change" },
      subject = { type = "string", description = "Replacement title" },
      description = { type = "string", description = "Replacement description of the work" },
      activeForm = {
        type = "string",
        description = 'Present-continuous label for display while the task is in_progress (e.g. "Writing docs")',
      },
      -- One enum where the original has a union of the three and the const
      -- "deleted": the same values, and a bad one is refused naming all four.
      status = {
        type = "string",
        enum = { "pending", "in_progress", "completed", "deleted" },
        description = "New status; deleted removes it",
      },
      addBlocks = {
        type = "array",
        items = { type = "string" },
        description = "Ids of tasks that wait for this one",
      },
      addBlockedBy = {
        type = "array",
        items = { type = "string" },
        description = "Ids of tasks this one waits for",
      },
      owner = { type = "string", description = "Agent now working on it" },
      metadata = {
        type = "object",
        propertyNames = { type = "string" },
        additionalProperties = {},
        description = "Entries merged into the task's metadata; giving a key the value null removes it",
      },
    },
    required = { "taskId" },
    additionalProperties = false,
  },

  ---@param input table
  coerceInput = function(input)
    if #tasks.unalias(input, ALIASES) > 0 then
      return input
    end
  end,

  ---@param input TaskUpdateInput
  description = function(input)
    return "Update task #" .. input.taskId
  end,

  ---@param input TaskUpdateInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    return { data = tasks.change(ctx, function(list)
      return update(list, input)
    end) }
  end,

  mapResult = function(data)
    if not data.success then
      return data.error or ("Task #" .. data.taskId .. " not found")
    end
    return ("Updated task #%s %s"):format(data.taskId, table.concat(data.updatedFields, ", "))
  end,
}

return tool
