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
Adds a task to the task list of this session. The list keeps a multi-step piece of work organised and shows the user how far it has got.

## When to use it

Use it without being asked when:
- the work takes three or more distinct steps, or needs planning and several operations;
- you are in plan mode: record the plan as tasks;
- the user asks for a todo list, or hands you several things to do at once (numbered or separated by commas);
- new instructions arrive: capture them as tasks straight away;
- you find follow-up work while finishing a task.

Set a task to in_progress (TaskUpdate) before you start on it, and to completed once it is done.

## When not to use it

Skip it for a single simple task, for trivial work of fewer than three easy steps, and for purely conversational or informational requests: doing the work directly is better than tracking it.

## Fields

- subject: a short title in the imperative, naming the outcome ("Fix the login redirect").
- description: what has to be done.
- activeForm (optional): the present-continuous label shown while the task is in progress ("Fixing the login redirect"); the subject is shown when it is left out.
- metadata (optional): any values to keep with the task.

Every new task starts as pending and gets the next id. Set up dependencies afterwards with TaskUpdate (addBlocks, addBlockedBy), and look at TaskList first so as not to create a task twice.]],

  inputSchema = {
    type = "object",
    properties = {
      subject = { type = "string", description = "A short title for the task" },
      description = { type = "string", default = "", description = "What has to be done" },
      activeForm = {
        type = "string",
        description = 'The present-continuous label shown while the task is in progress (e.g. "Running tests")',
      },
      metadata = {
        type = "object",
        propertyNames = { type = "string" },
        additionalProperties = {},
        description = "Any values to keep with the task",
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
    local list = tasks.load(ctx)
    local task = tasks.create(list, {
      subject = input.subject,
      description = description,
      activeForm = input.activeForm,
      metadata = input.metadata,
    })
    tasks.save(ctx, list)
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
