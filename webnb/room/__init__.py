"""The class in the room, live: who may join (``guesses``, ``proof``), and the events a lecturer's moves publish."""
