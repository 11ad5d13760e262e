print("x" .. )
