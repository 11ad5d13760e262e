-- mend: helpers for a tool's coerceInput. The original mends a sloppy input only
-- when the mended input is then valid; otherwise its schema judges the input as
-- sent, so the model is told of every problem in what it sent. fits tells the two
-- apart without running the engine's schema.

local mend = {}

-- The strings the engine's schema reads as booleans where it wants one.
local BOOLEAN_STRINGS = { ["true"] = true, ["false"] = true }

-- isNumber reports whether value is a number, or a string the engine's schema
-- reads as a finite one (" 12 ", "1.5").
---@param value any
---@return boolean
local function isNumber(value)
  if type(value) == "string" then
    value = tonumber((value:gsub("^%s+", ""):gsub("%s+$", "")))
  end
  return type(value) == "number" and value == value and value ~= math.huge and value ~= -math.huge
end

-- fitsProperty reports whether value is what prop (a flat property: one type, an
-- enum of strings or nothing) takes.
---@param prop table
---@param value any
---@return boolean
local function fitsProperty(prop, value)
  if prop.enum then
    for _, allowed in ipairs(prop.enum) do
      if value == allowed then
        return true
      end
    end
    return false
  end
  if prop.type == "number" or prop.type == "integer" then
    return isNumber(value)
  elseif prop.type == "boolean" then
    return type(value) == "boolean" or BOOLEAN_STRINGS[value] == true
  elseif prop.type == "string" then
    return type(value) == "string"
  end
  return prop.type == nil
end

-- fits reports whether input is what schema, an object schema of flat properties
-- without additional ones, takes: every key declared, every value of its
-- property's type, every required key given.
---@param schema table
---@param input table
---@return boolean
function mend.fits(schema, input)
  for name, value in pairs(input) do
    local prop = schema.properties[name]
    if prop == nil or not fitsProperty(prop, value) then
      return false
    end
  end
  for _, name in ipairs(schema.required or {}) do
    if input[name] == nil then
      return false
    end
  end
  return true
end

-- isTrue reports whether value is a flag that is on: true, or the string "true" a
-- model may send for it.
---@param value any
---@return boolean
function mend.isTrue(value)
  return value == true or value == "true"
end

return mend
