if a then
  b()
until c
