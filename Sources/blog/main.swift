print("blog")
