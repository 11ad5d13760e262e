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
-- Every change is one ctx.state:update of the whole list, the highest id given
-- included: two calls that read the same list (through two instances behind a load
-- balancer, say) cannot both store what they made of it, so no change is lost and no
-- id is given to two tasks. The id counter is thus an atomic counter in the store,
-- written together with the task it numbers.

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

-- normalized is the list stored value v holds, empty when it holds none.
---@param v any
---@return TaskList
local function normalized(v)
  if type(v) ~= "table" or type(v.byId) ~= "table" then
    return { highest = 0, byId = {} }
  end
  return v
end

-- load returns the session's task list, empty when there is none yet.
---@param ctx luatool.Context
---@return TaskList
function tasks.load(ctx)
  return normalized(ctx.state:get(KEY))
end

-- change applies fn to the session's task list and stores the list fn leaves,
-- atomically, and returns what fn returned. fn changes the list it is given and
-- nothing else: it may run more than once, each time on the newest list, and only
-- its last run counts.
---@generic R
---@param ctx luatool.Context
---@param fn fun(list: TaskList): R
---@return R
function tasks.change(ctx, fn)
  local result
  ctx.state:update(KEY, function(old)
    local list = normalized(old)
    result = fn(list)
    return list
  end)
  return result
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

-- link records that the task with id from blocks the task with id to, at both
-- ends. An id of no task links nothing; a task may block itself, as in the original
-- (TaskList then shows it blocked by itself until it is completed).
---@param list TaskList
---@param from string
---@param to string
function tasks.link(list, from, to)
  local a, b = list.byId[from], list.byId[to]
  if not a or not b then
    return
  end
  if not contains(a.blocks, to) then
    a.blocks[#a.blocks + 1] = to
  end
  if not contains(b.blockedBy, from) then
    b.blockedBy[#b.blockedBy + 1] = from
  end
end

-- newIds returns the ids of ids that known does not hold yet, in order: the links
-- an update adds, which the original names whether or not they name a task.
---@param ids string[]?
---@param known string[]
---@return string[]
function tasks.newIds(ids, known)
  local out = {}
  for _, id in ipairs(ids or {}) do
    if not contains(known, id) then
      out[#out + 1] = id
    end
  end
  return out
end

-- filled tells whether v is a string with something besides white space: what the
-- original's input mending takes as given.
---@param v any
---@return boolean
function tasks.filled(v)
  return type(v) == "string" and v:find("%S") ~= nil
end

-- unalias moves the values of old parameter names in input to the names the schema
-- declares, as the original mends them: aliases is a list of {name, {old names}},
-- and an old name moves when it holds a filled string and name is not given. It
-- changes input and returns what it did ("alias_task_id", ...), in order.
---@param input table
---@param aliases table[]
---@return string[]
function tasks.unalias(input, aliases)
  local did = {}
  for _, alias in ipairs(aliases) do
    local name, olds = alias[1], alias[2]
    for _, old in ipairs(olds) do
      if input[old] ~= nil and input[name] == nil and tasks.filled(input[old]) then
        input[name], input[old] = input[old], nil
        did[#did + 1] = "alias_" .. old
      end
    end
  end
  return did
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
