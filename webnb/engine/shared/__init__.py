"""What the text and the table lessons share: labelled corpora, exact numbers, plain data for JSON, class
indices and priors, and the memory budget of one piece of work."""
