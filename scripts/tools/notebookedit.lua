-- NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook, as Claude
-- Code's NotebookEdit does, with its texts. The notebook must have been read (Read
-- records it) and not changed since (its content is compared, as Edit compares it);
-- fs.write checks that again as it writes, under the lock every luatool process
-- takes (ifRead). Cells are named as Read shows them (lib/notebook.lua): by id, or
-- "cell-N".
--
-- Replacing a cell sets its source (stored as one string, as the original does) and,
-- when cell_type is given, its type; a code cell loses its outputs and execution
-- count. Unlike the original, which leaves them on a cell turned into markdown and
-- adds none to a cell turned into code, the cell keeps the fields its type has in
-- nbformat. A cell inserted into a notebook of nbformat 4.5 or later gets a new id of
-- eight hex digits; in an older one it has none, and the result says "a new cell", as
-- the original's does.
--
-- The notebook is written as Jupyter writes it: keys sorted, one space of indent a
-- level, a final newline, in the file's encoding and line endings. The original
-- keeps the order of keys it read, so a notebook Jupyter saved comes out the same
-- from both, except for the key order of the cells the original inserts or edits.

---@type luatool.fs
local fs = require("fs")
local json = require("json")
local unquote = require("path").unquote
local files = require("files")
local notebook = require("notebook")

local fail, stale = files.fail, files.stale
local NOT_READ, MODIFIED, UNEXPECTED = files.NOT_READ, files.MODIFIED, files.UNEXPECTED
local NOT_JSON = "Notebook is not valid JSON."

-- parse decodes the notebook, failing with the reason when it is not one.
local function parse(raw)
  local nb, _, isJSON = notebook.parse(raw)
  if not nb then
    return nil, isJSON and notebook.NOT_NOTEBOOK or NOT_JSON
  end
  return nb
end
local MISSING = "Notebook file does not exist."

---@class NotebookEditInput
---@field notebook_path string
---@field cell_id? string
---@field new_source string
---@field cell_type? "code"|"markdown"
---@field edit_mode? "replace"|"insert"|"delete"

-- target finds where the edit applies: the position of the cell to replace or
-- delete, or the position the new cell takes. The message says why there is none.
---@param nb table
---@param input NotebookEditInput
---@return integer? pos
---@return string? message
local function target(nb, input)
  local mode = input.edit_mode or "replace"
  if input.cell_id == nil then
    if mode ~= "insert" then
      return nil, "Cell ID must be specified when not inserting a new cell."
    end
    return 1
  end
  local pos, index = notebook.find(nb, input.cell_id)
  if not pos then
    if index then
      return nil, ("Cell with index %d does not exist in notebook."):format(index)
    end
    return nil, ('Cell with ID "%s" not found in notebook.'):format(input.cell_id)
  end
  if mode == "insert" then
    return pos + 1
  end
  return pos
end

-- newId returns eight hex digits no cell of nb has as its id.
local function newId(nb)
  local taken = {}
  for _, cell in ipairs(nb.cells) do
    if type(cell) == "table" and cell.id ~= nil then
      taken[tostring(cell.id)] = true
    end
  end
  while true do
    local id = ("%04x%04x"):format(math.random(0, 0xffff), math.random(0, 0xffff))
    if not taken[id] then
      return id
    end
  end
end

-- setType gives a cell the fields its type has in nbformat: a code cell an execution
-- count (none yet) and outputs (none yet), other cells neither.
local function setType(cell, cellType)
  cell.cell_type = cellType
  if cellType == "code" then
    cell.execution_count = json.null
    cell.outputs = json.array()
  else
    cell.execution_count = nil
    cell.outputs = nil
  end
end

---@type luatool.Tool
local tool = {
  name = "NotebookEdit",
  userFacingName = "Edit Notebook",
  searchHint = "edit Jupyter notebook cells (.ipynb)",
  maxResultSizeChars = 100000,
  isReadOnly = false,
  isConcurrencySafe = false,

  prompt = [[
Changes a single cell of a Jupyter notebook (.ipynb): overwrites its source, adds a cell, or removes one.

How to use it:
- Open the notebook with Read in this session first and leave it unchanged, or the call is refused.
- Give `notebook_path` as an absolute path.
- Name the cell by `cell_id`, the id in Read's `<cell id="...">` ("cell-N" for a cell without one); replace and delete need it.
- `edit_mode` defaults to `replace`. `insert` adds a cell right after the one `cell_id` names, or first without `cell_id`, and needs `cell_type`. `delete` removes the cell.
- New source clears a code cell's outputs; `cell_type` on a replace also changes the cell's type.]],

  inputSchema = {
    type = "object",
    properties = {
      notebook_path = {
        type = "string",
        description = "Absolute path of the .ipynb file to change (a relative path starts from the working directory)",
      },
      cell_id = {
        type = "string",
        description = "Id of the cell to act on, as Read shows it. For edit_mode insert, the new cell is placed after this one, or at the very top when it is left out.",
      },
      new_source = {
        type = "string",
        description = "Source text the cell gets",
      },
      cell_type = {
        type = "string",
        enum = { "code", "markdown" },
        description = "Kind of cell, code or markdown. When left out on a replace, the cell keeps the kind it has; edit_mode insert needs it.",
      },
      edit_mode = {
        type = "string",
        enum = { "replace", "insert", "delete" },
        description = "What to do: replace (when left out), insert or delete",
      },
    },
    required = { "notebook_path", "new_source" },
    additionalProperties = false,
  },

  ---@param input NotebookEditInput
  description = function(input)
    return "Edit notebook " .. input.notebook_path
  end,

  -- The file the call opens, for Edit(...) rules: fs.abs reads a quoted name
  -- (path.quote) as the name it stands for, so rules must see that name too.
  ---@param input NotebookEditInput
  getPath = function(input)
    return unquote(files.given(input.notebook_path))
  end,

  ---@param input NotebookEditInput
  toAutoClassifierInput = function(input)
    return input.notebook_path .. " " .. (input.edit_mode or "replace") .. ": " .. input.new_source
  end,

  -- validateInput checks, in the original's order and with its texts and codes, what
  -- can be checked before asking permission.
  ---@param input NotebookEditInput
  ---@param ctx luatool.Context
  validateInput = function(input, ctx)
    local path = fs.abs(files.given(input.notebook_path), ctx.cwd)
    if not path:match("%.ipynb$") then
      return { result = false, errorCode = 2,
        message = "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the FileEdit tool." }
    end
    if input.edit_mode == "insert" and input.cell_type == nil then
      return { result = false, errorCode = 5, message = "Cell type is required when using edit_mode=insert." }
    end
    local entry = ctx.readFileState:get(path)
    if not entry or entry.partial then
      return { result = false, errorCode = 9, message = NOT_READ }
    end
    local raw, info, code = fs.read(path)
    if not raw then
      if code == "notfound" then
        return { result = false, errorCode = 1, message = MISSING }
      end
      return { result = false, errorCode = 1, message = info }
    end
    if stale(entry, info) then
      return { result = false, errorCode = 10, message = MODIFIED }
    end
    if info.notText then
      return { result = false, errorCode = 15, message = files.notTextRefusal(info.notText) }
    end
    local nb, bad = parse(raw)
    if not nb then
      return { result = false, errorCode = 6, message = bad }
    end
    local pos, message = target(nb, input)
    if not pos then
      return { result = false, errorCode = input.cell_id == nil and 7 or 8, message = message }
    end
    return true
  end,

  ---@param input NotebookEditInput
  ---@param ctx luatool.Context
  call = function(input, ctx)
    local path = fs.abs(files.given(input.notebook_path), ctx.cwd)
    local mode = input.edit_mode or "replace"
    local raw, info, code = fs.read(path)
    if not raw then
      fail(code == "notfound" and MISSING or info)
    end
    local entry = ctx.readFileState:get(path)
    if not entry or entry.partial or stale(entry, info) then
      fail(UNEXPECTED)
    end
    if info.notText then
      fail(files.notTextRefusal(info.notText))
    end
    local nb, bad = parse(raw)
    if not nb then
      fail(bad)
    end
    local pos, message = target(nb, input)
    if not pos then
      fail(message)
    end

    local cells = nb.cells
    local data = {
      notebook_path = path,
      edit_mode = mode,
      new_source = input.new_source,
      language = notebook.language(nb),
      cell_id = input.cell_id,
    }
    if mode == "insert" then
      local cell = { metadata = {}, source = input.new_source }
      if notebook.hasIds(nb) then
        cell.id = newId(nb)
      end
      setType(cell, input.cell_type)
      table.insert(cells, pos, cell)
      data.cell_id = cell.id
      data.cell_type = input.cell_type
    else
      local cell = cells[pos]
      data.old_source = notebook.source(cell.source)
      if mode == "delete" then
        table.remove(cells, pos)
        data.cell_type = notebook.cellType(cell)
      else
        cell.source = input.new_source
        setType(cell, input.cell_type or notebook.cellType(cell))
        data.cell_type = cell.cell_type
      end
    end

    local text = json.encode(nb, { indent = 1 }) .. "\n"
    if files.isCRLF(raw) then
      text = text:gsub("\n", "\r\n")
    end
    -- The notebook must still be what the model read; fs.write checks it under the
    -- lock, as it writes.
    local written, err, wcode = fs.write(path, text, { ifRead = true, ifHash = info.hash, encoding = info.encoding })
    if not written then
      if wcode == "stale" or wcode == "notread" then
        fail(UNEXPECTED)
      end
      fail(err)
    end
    return { data = data }
  end,

  mapResult = function(data)
    if data.edit_mode == "insert" then
      local which = data.cell_id and "cell " .. data.cell_id or "a new cell"
      return ("Inserted %s with %s"):format(which, data.new_source)
    elseif data.edit_mode == "delete" then
      return "Deleted cell " .. data.cell_id
    end
    return ("Updated cell %s with %s"):format(data.cell_id, data.new_source)
  end,

  renderToolResultMessage = function(data)
    local verb = ({ insert = "Inserted", delete = "Deleted" })[data.edit_mode] or "Updated"
    return ("%s %s"):format(verb, data.cell_id and "cell " .. data.cell_id or "a new cell")
  end,
}

return tool
