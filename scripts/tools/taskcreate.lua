-- TaskCreate: adds a task to the session's task list, as Claude Code's TaskCreate
-- does: a pending task with the next id ("1", "2", ...). The list belongs to the
-- session of the call's principal (lib/tasks.lua).
--
-- The schema requires subject and description, as the original's says, and
-- coerceInput mends the sloppy calls the original mends before its schema sees them:
-- old names (title and name for subject, content for description, active_form), a
-- task wrapped in a `task` parameter, a missing description (the subject) or subject
-- (the description's start), and then, once both are given, parameters the schema
-- does not declare are dropped (status, priority, owner, ...). A call with `tasks`
-- or `todos`, or with the Agent tool's parameters, is not mended: the schema refuses
-- it, after a sentence of validationErrorSteer's.
--
-- The task list changes nothing outside the session, so these tools are read-only
-- for the permission pipeline: they run without asking, in plan mode too, where a
-- task list is most useful.

local json = require("json")
local tasks = require("tasks")

local filled = tasks.filled

-- The parameters the schema declares: once a call has a subject and a description,
-- the others are dropped.
local DECLARED = { subject = true, description = true, activeForm = true, metadata = true }

-- The old parameter names the original still takes, by the name they stand for.
local ALIASES = {
  { "subject", { "title", "name" } },
  { "description", { "content" } },
  { "activeForm", { "active_form" } },
}

-- The longest subject taken from a description, in characters.
local SUBJECT_CHARS = 80

local function isObject(v)
  return type(v) == "table" and v ~= json.null and not json.isarray(v)
end

-- listsTasks tells whether t tries to create several tasks at once.
local function listsTasks(t)
  return t.tasks ~= nil or t.todos ~= nil
end

-- complete tells whether t has both a subject and a description.
local function complete(t)
  return filled(t.subject) and filled(t.description)
end

-- agentParams tells whether t carries the Agent tool's parameters.
local function agentParams(t)
  return t.prompt ~= nil or t.subagent_type ~= nil
end

-- agentCall tells whether t carries the Agent tool's parameters without a subject
-- and a description of its own: a call meant for the Agent tool.
local function agentCall(t)
  return agentParams(t) and not complete(t)
end

-- subjectOf makes a subject of a description as the original does: its first line,
-- trimmed (empty when the description starts with a line break), and of that the
-- first 80 characters, cut at the last space when more than 40 characters come
-- before it.
---@param description string
---@return string
local function subjectOf(description)
  local text = description:match("^[^\n]*"):match("^%s*(.-)%s*$")
  local chars = {}
  for ch in text:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    if #chars == SUBJECT_CHARS then
      local cut = #chars
      while cut > 0 and chars[cut] ~= " " do
        cut = cut - 1
      end
      local head = table.concat(chars, "", 1, cut - 1 > 40 and cut - 1 or SUBJECT_CHARS)
      return (head:match("^%s*(.-)%s*$"))
    end
    chars[#chars + 1] = ch
  end
  return text
end

-- unwrap moves a task given as the `task` parameter (a description, or an object of
-- parameters) to the top level; false when the call cannot be mended.
---@param input table
---@param did string[]
---@return boolean
local function unwrap(input, did)
  if input.subject ~= nil or input.description ~= nil or input.task == nil then
    return true
  end
  local task = input.task
  if filled(task) then
    input.task, input.description = nil, task
    did[#did + 1] = "task_wrapper_string"
    return true
  end
  if not isObject(task) or listsTasks(task) or agentCall(task) then
    return false
  end
  input.task = nil
  for k, v in pairs(task) do
    input[k] = v
  end
  did[#did + 1] = "task_wrapper_object"
  return true
end

-- backfill gives a call without a description its subject, and one without a
-- subject the start of its description.
---@param input table
---@param did string[]
local function backfill(input, did)
  if filled(input.subject) and input.description == nil then
    input.description = input.subject
    did[#did + 1] = "backfill_description"
  elseif filled(input.description) and input.subject == nil then
    input.subject = subjectOf(input.description)
    did[#did + 1] = "backfill_subject"
  end
end

-- strip drops what the schema does not declare, and an activeForm or metadata of
-- the wrong type, from a call that has its subject and description.
---@param input table
---@param did string[]
local function strip(input, did)
  if not complete(input) then
    return
  end
  for k in pairs(input) do
    if not DECLARED[k] then
      input[k] = nil
      did[#did + 1] = "strip_" .. k
    end
  end
  if input.activeForm ~= nil and type(input.activeForm) ~= "string" then
    input.activeForm = nil
    did[#did + 1] = "drop_invalid_activeForm"
  end
  if input.metadata ~= nil and not isObject(input.metadata) then
    input.metadata = nil
    did[#did + 1] = "drop_invalid_metadata"
  end
end

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
- **description**: what has to be done
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
      description = { type = "string", description = "The work to be done" },
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

  ---@param input table
  coerceInput = function(input)
    if listsTasks(input) or agentCall(input) then
      return nil
    end
    local did = {}
    if not unwrap(input, did) then
      return nil
    end
    for _, step in ipairs(tasks.unalias(input, ALIASES)) do
      did[#did + 1] = step
    end
    backfill(input, did)
    strip(input, did)
    if #did > 0 then
      return input
    end
  end,

  ---@param input table
  validationErrorSteer = function(input)
    local task = isObject(input.task) and input.task or nil
    if listsTasks(input) or (task and listsTasks(task)) then
      return "TaskCreate creates ONE task per call and has no `tasks` or `todos` parameter. "
        .. "Call TaskCreate once per task, passing `subject` (a brief title) and `description` "
        .. "(what needs to be done) as top-level string parameters."
    end
    if (agentParams(input) or (task and agentParams(task))) and not complete(input) then
      return "This call used Agent-tool parameters (`prompt`/`subagent_type`). "
        .. "TaskCreate adds an item to the task list and takes `subject` and `description` string parameters. "
        .. "To delegate work to a subagent, use the Agent tool instead."
    end
    return ""
  end,

  ---@param input TaskCreateInput
  description = function(input)
    return "Create task " .. input.subject
  end,

  ---@param input TaskCreateInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local task = tasks.change(ctx, function(list)
      return tasks.create(list, {
        subject = input.subject,
        description = input.description,
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
