print("blogbench")
