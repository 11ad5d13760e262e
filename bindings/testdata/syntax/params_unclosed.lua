local function f(a, b
  return a
end
