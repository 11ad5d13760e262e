function f x
  return x
end
