-- tasks: the session's task list, which TaskCreate, TaskGet, TaskList and TaskUpdate
-- share. It lives in ctx.state, under one key, so it belongs to the session of the
-- call's principal as the rest of ctx.state does: two principals (or two client
-- sessions of one) never see each other's tasks, and a host that keeps sessions in a
-- shared store (serve --state) keeps the list across processes.
--
-- Ids are "1", "2", ... in order of creation, as the original assigns them; the id
-- of a deleted task is never given again (the list keeps the highest id given).
-- Statuses are pending, in_progress and completed; deleting a task removes it and
-- every reference other tasks hold to it.
--
-- The tools that change the list are not concurrency-safe, so the calls of one turn
-- change it one after the other. The store has no compare-and-set: two clients of
-- one session calling at the same instant could each write the list they read.

local json = require("json")

local KEY = "tasks"

local tasks = {}

---@class Task
---@field id string
---@field subject string
---@field description string
---@field activeForm? string
---@field owner? string
---@field status "pending"|"in_progress"|"completed"
---@field blocks string[] Ids of the tasks waiting on this one.
---@field blockedBy string[] Ids of the tasks this one waits on.
---@field metadata? table

---@class TaskList
---@field highest integer The highest id given so far.
---@field byId table<string, Task>

-- load returns the session's task list, empty when there is none yet.
---@param ctx luatool.Context
---@return TaskList
function tasks.load(ctx)
  local list = ctx.state:get(KEY)
  if type(list) ~= "table" or type(list.byId) ~= "table" then
    return { highest = 0, byId = {} }
  end
  return list
end

-- save stores the list back in the session.
---@param ctx luatool.Context
---@param list TaskList
function tasks.save(ctx, list)
  ctx.state:set(KEY, list)
end

-- create adds a pending task with the next id and returns it.
---@param list TaskList
---@param fields table subject, description, activeForm, metadata
---@return Task
function tasks.create(list, fields)
  list.highest = list.highest + 1
  local id = tostring(list.highest)
  local task = {
    id = id,
    subject = fields.subject,
    description = fields.description,
    activeForm = fields.activeForm,
    status = "pending",
    blocks = json.array(),
    blockedBy = json.array(),
    metadata = fields.metadata,
  }
  list.byId[id] = task
  return task
end

-- sorted returns the tasks in id order.
---@param list TaskList
---@return Task[]
function tasks.sorted(list)
  local out = {}
  for _, task in pairs(list.byId) do
    out[#out + 1] = task
  end
  table.sort(out, function(a, b)
    return (tonumber(a.id) or math.huge) < (tonumber(b.id) or math.huge)
  end)
  return out
end

local function contains(ids, id)
  for _, x in ipairs(ids) do
    if x == id then
      return true
    end
  end
  return false
end

local function without(ids, id)
  local out = json.array()
  for _, x in ipairs(ids) do
    if x ~= id then
      out[#out + 1] = x
    end
  end
  return out
end

-- link records that the task with id from blocks the task with id to, and tells
-- whether that is new. A task never blocks itself, and an id of no task links
-- nothing.
---@param list TaskList
---@param from string
---@param to string
---@return boolean
function tasks.link(list, from, to)
  local a, b = list.byId[from], list.byId[to]
  if not a or not b or from == to or contains(a.blocks, to) then
    return false
  end
  a.blocks[#a.blocks + 1] = to
  if not contains(b.blockedBy, from) then
    b.blockedBy[#b.blockedBy + 1] = from
  end
  return true
end

-- delete removes a task and every reference to it.
---@param list TaskList
---@param id string
function tasks.delete(list, id)
  list.byId[id] = nil
  for _, task in pairs(list.byId) do
    task.blocks = without(task.blocks, id)
    task.blockedBy = without(task.blockedBy, id)
  end
end

-- openBlockers lists the tasks a task waits on that are not completed yet.
---@param list TaskList
---@param task Task
---@return string[]
function tasks.openBlockers(list, task)
  local out = json.array()
  for _, id in ipairs(task.blockedBy) do
    local blocker = list.byId[id]
    if not blocker or blocker.status ~= "completed" then
      out[#out + 1] = id
    end
  end
  return out
end

-- refs renders ids as the original's texts do: "#1, #2".
---@param ids string[]
---@return string
function tasks.refs(ids)
  local out = {}
  for i, id in ipairs(ids) do
    out[i] = "#" .. id
  end
  return table.concat(out, ", ")
end

return tasks
