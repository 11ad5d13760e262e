local s = [[never closed
return s
