"""One blueprint per part of the lesson: corpus, matrix, parameters, inference, evaluation, compare,
words, generative (sampling and overconfidence), additions, and the scikit-learn parity check."""
