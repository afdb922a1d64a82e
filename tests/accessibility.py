"""Accessibility checks for the browser tests, with axe-core from tests/vendor/ (pinned in scripts/vendor_assets.py).

    from accessibility import axe_violations

    def test_page_is_accessible(page, server_url):
        page.goto(server_url + "/")
        assert axe_violations(page) == []

axe is evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern, so pages
are checked under the policy they really have.
"""
from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).parent / "vendor" / "axe.min.js"


def axe_violations(page, impacts=("serious", "critical"), *, context=None, options=None) -> list[dict]:
    """The axe-core violations on the page whose impact is one of `impacts`, as plain dicts to compare or print.

    Each is {"id", "impact", "help", "targets"}, where targets holds one CSS selector path per offending node.
    `context` and `options` go to `axe.run` unchanged (for instance `context="#main"`, or
    `options={"runOnly": ["wcag2a", "wcag2aa"]}`). An empty list means none of those impacts were found.
    """

    if not page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the DevTools protocol rather than added as a <script>: the app's
        # Content-Security-Policy (script-src 'self') would block an inline script, and rightly so.
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;void 0")
    results = page.evaluate(
        "([context, options]) => axe.run(context ?? document, {resultTypes: ['violations'], ...(options ?? {})})",
        [context, options],
    )
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "targets": [node["target"] for node in violation["nodes"]],
        }
        for violation in results["violations"]
        if violation["impact"] in impacts
    ]
