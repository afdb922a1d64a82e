"""Write the hostile corpus of issue 11 (4): as large as the hosted quotas allow, shaped to make pages expensive.

    python scripts/hostile_corpus.py OUT.jsonl [--documents 45000] [--words 400000] [--classes 1000] [--seed 0]
    python scripts/hostile_corpus.py OUT.jsonl.gz --gzip-bomb   # 1.2 MB of gzip that unpacks past 52 MB

JSON Lines {"label", "text", "id"}, about 48 MB with the defaults, always the same bytes for the same arguments.
Every word of the vocabulary occurs at least once (so the vocabulary has exactly ``--words`` words); the other
occurrences follow a Zipf law, so ``max_features`` keeps the frequent ones as on real text. Many classes are what
make pages expensive: the per-class tables are classes × words, the logistic regression has classes × words
weights and documents × classes scores. Nothing here is committed: write it where you measure.
"""
from __future__ import annotations

import argparse
import gzip
import json
import string
import sys
from pathlib import Path

import numpy as np

LETTERS = np.array(list(string.ascii_lowercase))


def word_list(n_words: int) -> list[str]:
    """``n_words`` distinct words of letters only (three or more letters): base-26 numerals after a "q"."""
    words = []
    for number in range(n_words):
        digits = []
        while True:
            number, digit = divmod(number, 26)
            digits.append(string.ascii_lowercase[digit])
            if number == 0:
                break
        words.append("q" + "".join(reversed(digits)).rjust(2, "a"))
    return words


def documents(n_documents: int, n_words: int, n_classes: int, tokens_per_document: int, seed: int):
    """(label, text) pairs: every word once, the rest of the tokens drawn from a Zipf law over the words."""
    rng = np.random.default_rng(seed)
    words = np.array(word_list(n_words), dtype=object)
    total = n_documents * tokens_per_document
    ranks = np.arange(1, n_words + 1)
    weights = 1.0 / (ranks + 10.0)
    drawn = rng.choice(n_words, size=total - n_words, p=weights / weights.sum())
    tokens = np.concatenate((rng.permutation(n_words), drawn))
    rng.shuffle(tokens)
    labels = rng.integers(0, n_classes, size=n_documents)
    labels[:n_classes] = np.arange(n_classes)  # every class has a document
    width = len(str(n_classes - 1))
    for i in range(n_documents):
        chunk = tokens[i * tokens_per_document:(i + 1) * tokens_per_document]
        yield f"c{labels[i]:0{width}d}", " ".join(words[chunk])


def write_corpus(
    path: Path, n_documents: int, n_words: int, n_classes: int, tokens_per_document: int, seed: int
) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8", newline="\n") as out:
        for i, (label, text) in enumerate(documents(n_documents, n_words, n_classes, tokens_per_document, seed)):
            out.write(json.dumps({"label": label, "text": text, "id": str(i)}) + "\n")
    return path.stat().st_size


def write_gzip_bomb(path: Path, unpacked_bytes: int = 1_200_000_000) -> int:
    """One valid JSON line followed by spaces: a tiny gzip (deflate packs runs about 1,000 to 1) that unpacks
    far past the upload limit. mtime 0 keeps the bytes the same from one run to the next."""
    block = b" " * (1 << 20)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as out:
        out.write(b'{"label": "a", "text": "bomb"}\n')
        for _ in range(unpacked_bytes // len(block)):
            out.write(block)
    return path.stat().st_size


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--documents", type=int, default=45_000)
    parser.add_argument("--words", type=int, default=400_000)
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--tokens", type=int, default=205, help="tokens per document")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gzip-bomb", action="store_true", help="write the gzip bomb instead")
    args = parser.parse_args(argv)
    if args.gzip_bomb:
        size = write_gzip_bomb(args.out)
    else:
        if args.words > args.documents * args.tokens or args.classes > args.documents:
            parser.error("more words than tokens, or more classes than documents")
        size = write_corpus(args.out, args.documents, args.words, args.classes, args.tokens, args.seed)
    print(f"{args.out}: {size:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
