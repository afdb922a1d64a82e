"""One blueprint per part of the lesson: corpus, matrix, parameters, inference."""
