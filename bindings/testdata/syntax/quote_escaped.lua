local s = 'it\'s
return s
