print("stub-providers: not yet")
