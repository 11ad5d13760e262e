-- notebook: Jupyter notebooks (.ipynb) for Read and NotebookEdit: parsing, finding a
-- cell by id, and rendering the cells as the original's Read shows them to the model.
--
-- A cell is named by its id, or, in a notebook whose cells have none (nbformat before
-- 4.5), by "cell-N", N its position counted from 0; the "cell-N" form also reaches a
-- cell that has an id, as in the original.
--
-- Rendering: each cell is <cell id="ID">SOURCE</cell id="ID">, a cell that is not
-- code preceded in it by <cell_type>TYPE</cell_type>, a code cell of a language other
-- than Python by <language>NAME</language>. Each output of a code cell follows on a
-- line of its own after a blank line: the text of a stream, the text/plain of a
-- result or display (its PNG or JPEG as an image block), "ename: evalue" and the
-- traceback of an error. Outputs of a cell over 10,000 characters in all (images
-- included) are replaced by a note saying how to read them with jq. Text blocks
-- next to each other are joined by a newline.

local json = require("json")
local jsonsyntax = require("jsonsyntax")

local notebook = {}

-- MAX_OUTPUTS is the size of a cell's outputs (text and image data) above which
-- they are not shown.
local MAX_OUTPUTS = 10000

-- NOT_NOTEBOOK is the original's text for JSON that is not a notebook.
notebook.NOT_NOTEBOOK = 'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell objects, each with a string or string-array "source").'

-- isNotebook tells whether a decoded document is a notebook as the original checks
-- one: a list of cells, each an object whose source is a string or a list of strings.
local function isNotebook(nb)
  if type(nb) ~= "table" or not json.isarray(nb.cells) then
    return false
  end
  for _, cell in ipairs(nb.cells) do
    local source = type(cell) == "table" and cell.source
    if type(source) == "table" and json.isarray(source) then
      for _, line in ipairs(source) do
        if type(line) ~= "string" then
          return false
        end
      end
    elseif type(source) ~= "string" then
      return false
    end
  end
  return true
end

-- parse decodes a notebook's text. It returns the notebook, or nil, the reason and
-- whether the text is JSON at all: the original's JSON parser's message (the json
-- module's when that parser would accept the text), or NOT_NOTEBOOK.
---@param text string
---@return table? nb
---@return string? err
---@return boolean? isJSON
function notebook.parse(text)
  local nb, err = json.decode(text)
  if err then
    return nil, jsonsyntax.describe(text) or (err:gsub("^json%.decode: ", "")), false
  end
  if not isNotebook(nb) then
    return nil, notebook.NOT_NOTEBOOK, true
  end
  return nb
end

-- language is the notebook's programming language, "python" when it does not say.
---@param nb table
---@return string
function notebook.language(nb)
  local info = type(nb.metadata) == "table" and nb.metadata.language_info
  if type(info) == "table" and type(info.name) == "string" then
    return info.name
  end
  return "python"
end

-- hasIds tells whether the notebook's format gives cells ids (nbformat 4.5 on).
---@param nb table
---@return boolean
function notebook.hasIds(nb)
  local major, minor = tonumber(nb.nbformat) or 0, tonumber(nb.nbformat_minor) or 0
  return major > 4 or (major == 4 and minor >= 5)
end

-- cellType is the type of a cell: code when it does not say.
---@param cell table
---@return string
function notebook.cellType(cell)
  return type(cell.cell_type) == "string" and cell.cell_type or "code"
end

-- cellId is the name of the cell at position i (from 1).
---@param cell table
---@param i integer
---@return string
function notebook.cellId(cell, i)
  if type(cell) == "table" and (type(cell.id) == "string" or type(cell.id) == "number") then
    return tostring(cell.id)
  end
  return "cell-" .. (i - 1)
end

-- find returns the position (from 1) of the cell named id: the cell with that id,
-- or the position a "cell-N" id gives. A "cell-N" past the end gives nil and N, for
-- the error that says which index does not exist.
---@param nb table
---@param id string
---@return integer? pos
---@return integer? index
function notebook.find(nb, id)
  for i, cell in ipairs(nb.cells) do
    if type(cell) == "table" and cell.id == id then
      return i
    end
  end
  local n = tonumber(id:match("^cell%-(%d+)$"))
  if n == nil then
    return nil
  end
  if n < #nb.cells then
    return n + 1
  end
  return nil, n
end

-- join concatenates a notebook's multiline string: a string, or a list of strings.
local function join(v, sep)
  if type(v) == "string" then
    return v
  end
  if type(v) ~= "table" then
    return ""
  end
  local parts = {}
  for _, s in ipairs(v) do
    if type(s) == "string" or type(s) == "number" then
      parts[#parts + 1] = tostring(s)
    end
  end
  return table.concat(parts, sep or "")
end
notebook.source = join

-- image returns the picture of a result or display: PNG first, then JPEG.
local function image(data)
  for _, mediaType in ipairs({ "image/png", "image/jpeg" }) do
    if type(data[mediaType]) == "string" then
      return { image_data = (data[mediaType]:gsub("%s", "")), media_type = mediaType }
    end
  end
  return nil
end

-- output is what Read shows of one output; nil for a kind it does not show.
local function output(o)
  if type(o) ~= "table" then
    return nil
  end
  local kind = o.output_type
  if kind == "stream" then
    return { output_type = kind, text = join(o.text) }
  elseif kind == "execute_result" or kind == "display_data" then
    local data = type(o.data) == "table" and o.data or {}
    return { output_type = kind, text = join(data["text/plain"]), image = image(data) }
  elseif kind == "error" then
    return { output_type = kind, text = tostring(o.ename) .. ": " .. tostring(o.evalue) .. "\n" .. join(o.traceback, "\n") }
  end
  return nil
end

local function outputsSize(outputs)
  local n = 0
  for _, o in ipairs(outputs) do
    n = n + #o.text + (o.image and #o.image.image_data or 0)
  end
  return n
end

-- cells returns what Read shows of each cell of a notebook read from path:
-- {cellType, source, cell_id, execution_count, language, outputs}.
---@param nb table
---@param path string
---@return table[]
function notebook.cells(nb, path)
  local language = notebook.language(nb)
  local out = json.array()
  for i, cell in ipairs(nb.cells) do
    if type(cell) ~= "table" then
      cell = {}
    end
    local shown = {
      cellType = notebook.cellType(cell),
      source = join(cell.source),
      cell_id = notebook.cellId(cell, i),
    }
    if shown.cellType == "code" then
      shown.language = language
      if type(cell.execution_count) == "number" and cell.execution_count ~= 0 then
        shown.execution_count = cell.execution_count
      end
      local outputs = json.array()
      for _, o in ipairs(type(cell.outputs) == "table" and cell.outputs or {}) do
        outputs[#outputs + 1] = output(o)
      end
      if outputsSize(outputs) > MAX_OUTPUTS then
        outputs = json.array({ {
          output_type = "stream",
          text = ("Outputs are too large to include. Use Bash with: cat %s | jq '.cells[%d].outputs'"):format(path, i - 1),
        } })
      end
      if #outputs > 0 then
        shown.outputs = outputs
      end
    end
    out[#out + 1] = shown
  end
  return out
end

-- blocks renders cells (from notebook.cells) as the content blocks the model sees.
---@param cells table[]
---@return luatool.ContentBlock[]
function notebook.blocks(cells)
  local out = json.array()
  local function add(block)
    local last = out[#out]
    if block.type == "text" and last and last.type == "text" then
      last.text = last.text .. "\n" .. block.text
    else
      out[#out + 1] = block
    end
  end
  for _, cell in ipairs(cells) do
    local meta = ""
    if cell.cellType ~= "code" then
      meta = "<cell_type>" .. cell.cellType .. "</cell_type>"
    elseif cell.language ~= "python" then
      meta = "<language>" .. cell.language .. "</language>"
    end
    add({ type = "text", text = ('<cell id="%s">%s%s</cell id="%s">'):format(cell.cell_id, meta, cell.source, cell.cell_id) })
    for _, o in ipairs(cell.outputs or {}) do
      if o.text ~= "" then
        add({ type = "text", text = "\n" .. o.text })
      end
      if o.image then
        add({ type = "image", source = { type = "base64", media_type = o.image.media_type, data = o.image.image_data } })
      end
    end
  end
  return out
end

return notebook
