"""Records shaped for one page of the lesson: windows onto the matrix and the documents, the parameters table and
one cell of it, the lesson's step-by-step story, telling words, sampling, confidence, additions, the Beta prior.
Each uses the classifier of ``webnb.engine.text`` and adds what its page needs (paging, ordering, the story told
about the numbers); the classifier never imports them."""
