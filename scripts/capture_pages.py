"""Every page of the built-ins and of one pasted text corpus and one pasted table, as a full page, an htmx
fragment and a JSON twin, plus every download, written into a folder: run before and after a change that must
not change what anyone sees, then compare the two folders (``diff -r BEFORE AFTER``).

    python scripts/capture_pages.py OUT_DIR

In-process (Flask's test client), local mode, a fresh instance folder. The form's CSRF token and the pasted
corpora's ids, which differ from run to run, are replaced by fixed words.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webnb import create_app  # noqa: E402
from webnb.examples import EXAMPLES, TABLE_EXAMPLES  # noqa: E402

try:
    from webnb.lesson.state import GAUSSIAN_STEPS, STEPS  # noqa: E402
except ImportError:  # a release from before webnb/lesson/ (capturing a "before" from an older checkout)
    from webnb.state import GAUSSIAN_STEPS, STEPS  # noqa: E402

PASTED_TEXTS = "\n".join(
    [
        "sport\tthe keeper made a brilliant save and the crowd sang",
        "sport\ta late goal won the match for the home side",
        "sport\tthe striker was sharp and the defence was not",
        "tech\tthe new graphics card renders OpenGL scenes fast",
        "tech\tthis laptop boots fast but the fan is loud",
        "tech\tthe driver update broke the sound card again",
        "tech\tmy phone's battery lasts two days <b>bold</b> & more",
    ]
)
# Six classes: more than a slide shows side by side, so that every slide's "+ N more" is captured too.
PASTED_MANY = "\n".join(
    f"{label}\t{text}" for label, text in [
        ("alpha", "match brilliant keeper"), ("beta", "match dull"), ("gamma", "keeper sharp"),
        ("delta", "brilliant sharp match"), ("epsilon", "dull dull keeper"), ("zeta", "composed match"),
        ("alpha", "brilliant save"), ("beta", "dull draw"), ("gamma", "sharp keeper"),
    ]
)
PASTED_TABLE = "label,height,weight\nA,1.0,2.5\nA,1.2,2.1\nA,0.9,2.9\nB,3.1,0.5\nB,2.8,0.7\nB,3.3,0.2\n"

TEXT_SETTINGS = ("", "model=bernoulli&alpha=0", "model=multinomial&alpha=1", "model=bernoulli&alpha=1&floor=1")
TEXT_PAGES = ("matrix", "parameters", "evaluation", "evaluation/sweep", "compare", "words", "sample", "confidence",
              "parity", "add")
EXPORTS = ("confusion.csv", "evaluation.csv", "matrix.csv", "notebook.ipynb", "parameters.csv", "predictions.csv",
           "priors.csv")
TABLE_PAGES = ("gaussian", "gaussian/parameters", "gaussian/evaluation", "gaussian/parity")
TABLE_DOWNLOADS = ("confusion.csv", "evaluation.csv", "notebook.ipynb", "parameters.csv", "predictions.csv",
                   "rows.csv")
REVIEWS = ("", "text=match+was+sharp", "text=the+keeper+was+not+composed+<script>")

# A signed CSRF token (itsdangerous: payload.timestamp.signature), wherever the page writes it.
_CSRF = re.compile(rb"I[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{20,}")


def _file_name(url: str, form: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9._=-]+", "_", url)[:120]
    return f"{readable}.{hashlib.sha1(url.encode()).hexdigest()[:10]}.{form}"


def _text_urls(corpus_id):
    base = f"/corpora/{corpus_id}"
    yield base
    for settings in TEXT_SETTINGS:
        yield from (f"{base}/{page}?{settings}" for page in TEXT_PAGES)
        yield from (f"{base}/inference?{settings}&{review}&step={step}" for review in REVIEWS for step in STEPS)
        yield from (f"{base}/export/{export}?{settings}" for export in EXPORTS)
    for word in ("match", "the", "chinese", "free"):
        yield f"{base}/parameters/cell?word={word}"
        yield f"{base}/parameters/cell?word={word}&class=positive"
    yield from (f"{base}/parameters?sort=breaking", f"{base}/words?sort=negative", f"{base}/matrix?q=a&page=2")


def _table_urls(corpus_id):
    base = f"/corpora/{corpus_id}"
    yield base
    for settings in ("", "var_smoothing=0", "var_smoothing=1e-3&prior=uniform"):
        yield from (f"{base}/{page}?{settings}" for page in TABLE_PAGES)
        yield from (f"{base}/gaussian/inference?{settings}&step={step}" for step in GAUSSIAN_STEPS)
        yield from (f"{base}/gaussian/{download}?{settings}" for download in TABLE_DOWNLOADS)


def _captured(client, url: str, headers: dict, pasted: dict) -> tuple[str, bytes, bool]:
    """(the URL with fixed names, what was answered, whether it was a download) for one request."""
    response = client.get(url, headers=headers)
    body = _CSRF.sub(b"TOKEN", response.data)
    location = response.headers.get("Location", "")
    for name, corpus_id in pasted.items():
        body = body.replace(corpus_id.encode(), name.encode())
        url, location = url.replace(corpus_id, name), location.replace(corpus_id, name)
    content_type = response.headers.get("Content-Type", "")
    head = f"{url}\n{response.status_code} {content_type}\n{location}\n".encode()
    return url, head + body, content_type.startswith(("text/csv", "application/x-ip"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    app = create_app({"TESTING": True}, instance_path=tempfile.mkdtemp(prefix="webnb-capture-"))
    client = app.test_client()
    token = re.search(rb'name="csrf_token"[^>]*value="([^"]*)"', client.get("/corpora").data)
    form = {"csrf_token": token.group(1).decode()} if token else {}
    pasted = {}
    for name, text in (("PASTED-TEXT", PASTED_TEXTS), ("PASTED-MANY", PASTED_MANY), ("PASTED-TABLE", PASTED_TABLE)):
        response = client.post("/corpora/paste", data={**form, "corpus": text, "name": name})
        assert response.status_code == 303, response.data[:500]
        pasted[name] = response.headers["Location"].rsplit("/", 1)[-1]
    text_ids = [example.id for example in EXAMPLES] + [pasted["PASTED-TEXT"], pasted["PASTED-MANY"]]
    table_ids = [example.id for example in TABLE_EXAMPLES] + [pasted["PASTED-TABLE"]]
    written = 0
    urls = ["/", "/corpora", *(u for i in text_ids for u in _text_urls(i))]
    urls += [u for i in table_ids for u in _table_urls(i)]
    # Every page as a slide too, at 100 % and at 150 % (downloads have none).
    pages = [u for u in urls if u.startswith("/corpora/") and not any(s in u for s in (".csv", ".ipynb", "/export/"))]
    urls += [u + ("&" if "?" in u else "?") + slide for u in pages for slide in ("presenter=1", "presenter=1&zoom=150")]
    for url in urls:
        json_url = url + ("&" if "?" in url else "?") + "format=json"
        for kind, request_url, headers in (("page", url, {}), ("fragment", url, {"HX-Request": "true"}),
                                           ("json", json_url, {})):
            shown, captured, download = _captured(client, request_url, headers, pasted)
            (args.out / _file_name(shown, kind)).write_bytes(captured)
            written += 1
            if download:
                break  # a download has no fragment or JSON twin
    print(f"{written} responses written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
