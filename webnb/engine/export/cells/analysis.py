"""Section 1 of the text notebook: from text to features (``fold``, ``analyze``)."""
from webnb.engine.export.cells.corpus import documents, texts
from webnb.engine.export.cells.imports import re, unicodedata
from webnb.engine.export.cells.output import print
from webnb.engine.export.cells.settings import (
    LOWERCASE,
    NGRAM_RANGE,
    NORMALIZE,
    STOP_WORDS,
    STRIP_ACCENTS,
    TOKEN_PATTERN,
)

# ---- notebook cell ----
TOKENS = re.compile(TOKEN_PATTERN)


def fold(text):
    """Lowercase, then strip accents."""
    if LOWERCASE:
        text = text.lower()
    if STRIP_ACCENTS == "unicode":  # é → e, but letters without an ASCII twin stay
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    elif STRIP_ACCENTS == "ascii":  # every character that is not ASCII goes
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return text


def analyze(text):
    """The features of one document, in order."""
    for pattern, placeholder in NORMALIZE:
        text = re.sub(pattern, f" {placeholder} ", text)
    words = [w for w in TOKENS.findall(fold(text)) if w not in STOP_WORDS]
    low, high = NGRAM_RANGE
    features = list(words) if low == 1 else []
    for n in range(max(low, 2), high + 1):
        features += [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    return features


features = [analyze(text) for text in texts]
for d, f in list(zip(documents, features))[:5]:
    print(f"{d['id']}: {d['text']!r}\n   → {f}")
if len(documents) > 5:
    print(f"… and {len(documents) - 5} more documents")
