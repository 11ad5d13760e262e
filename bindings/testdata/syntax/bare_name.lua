local t = {}
t.x
return t
