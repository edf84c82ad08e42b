print("broker: not yet")
