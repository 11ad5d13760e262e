if a then
  b()
else
  c()
elseif d then
end
