local obj = {}
obj:method
x = 1
