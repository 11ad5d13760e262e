-- TaskCreate: adds a task to the session's task list, as Claude Code's TaskCreate
-- does: a pending task with the next id ("1", "2", ...). The list belongs to the
-- session of the call's principal (lib/tasks.lua). A missing description takes the
-- subject, as the original's does; the schema still requires one, as the original's
-- says (its default, "", stands for "none given").
--
-- The task list changes nothing outside the session, so these tools are read-only
-- for the permission pipeline: they run without asking, in plan mode too, where a
-- task list is most useful.

local tasks = require("tasks")

---@class TaskCreateInput
---@field subject string
---@field description string
---@field activeForm? string
---@field metadata? table

---@type luatool.Tool
local tool = {
  name = "TaskCreate",
  searchHint = "add a task to the session task list",
  maxResultSizeChars = 100000,
  isReadOnly = true,
  isConcurrencySafe = false,

  prompt = [[
Adds a task to the task list of this session. The list keeps work with several steps in order, and it lets the user follow how far you have come, with this piece of work and with their requests as a whole.

## When to use it

Reach for it on your own initiative when:

- The work has three or more separate steps or actions
- The work is not trivial and calls for planning or for many operations
- You are in plan mode: write the plan down as tasks
- The user asks for a todo list outright
- The user hands you several things to do, numbered or separated by commas
- New instructions arrive: record what they ask for as tasks straight away
- You begin on a task: set it to in_progress with TaskUpdate before doing anything else
- You finish a task: set it to completed, and add any follow-up work you came across

## When not to use it

Leave it alone when:
- There is just one simple thing to do
- The work is so small that tracking it gains nothing
- It takes fewer than three easy steps
- The request is only conversation, or a question to answer

With a single trivial task, do it directly rather than recording it first.

## Fields

- **subject**: a short title in the imperative that names the outcome (e.g. "Add retries to the upload client")
- **description**: what has to be done; when left out, the subject is used
- **activeForm** (optional): a present-continuous label for display while the task is in_progress (e.g. "Adding retries to the upload client"); the subject stands in when it is missing
- **metadata** (optional): any JSON object to keep with the task

A new task starts as `pending` and gets the next id in sequence ("1", "2", ...). The list belongs to this session and changes nothing else, so the task tools run without asking for permission, in plan mode as well.

## Tips

- Make subjects specific about the result you want
- Link tasks afterwards with TaskUpdate (addBlocks, addBlockedBy) when one has to wait for another
- Look at TaskList before adding tasks, so that you do not create the same one twice]],

  inputSchema = {
    type = "object",
    properties = {
      subject = { type = "string", description = "Short title of the task" },
      description = { type = "string", default = "", description = "The work to be done" },
      activeForm = {
        type = "string",
        description = 'Present-continuous label for display while the task is in_progress (e.g. "Writing docs")',
      },
      metadata = {
        type = "object",
        propertyNames = { type = "string" },
        additionalProperties = {},
        description = "Any JSON object to store with the task",
      },
    },
    required = { "subject", "description" },
    additionalProperties = false,
  },

  ---@param input TaskCreateInput
  description = function(input)
    return "Create task " .. input.subject
  end,

  ---@param input TaskCreateInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local description = input.description
    if description == nil or description == "" then
      description = input.subject
    end
    local task = tasks.change(ctx, function(list)
      return tasks.create(list, {
        subject = input.subject,
        description = description,
        activeForm = input.activeForm,
        metadata = input.metadata,
      })
    end)
    return { data = { task = { id = task.id, subject = task.subject, description = task.description } } }
  end,

  mapResult = function(data)
    return ("Task #%s created successfully: %s"):format(data.task.id, data.task.subject)
  end,

  renderToolResultMessage = function(data)
    return ("Created task #%s"):format(data.task.id)
  end,
}

return tool
