local function f()
  return return
end
