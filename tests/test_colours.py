"""The colours of the themes (static/charts.css, issue 24 part 7): text is legible on every background it can sit on
(4.5 : 1 in the normal theme, 7 : 1 in the high-contrast ones, WCAG's formula), the class colours stand out from the
paper (3 : 1, as WCAG asks of lines) and stay apart from each other for normal vision and under simulated protanopia,
deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009, full severity; distance in CIELAB)."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from webnb.lesson import charts, pages

CSS = (Path(__file__).parents[1] / "static" / "charts.css").read_text(encoding="utf-8")
TEXTS = ("ink", "muted", "accent", "bad", "good", "warn")
BACKGROUNDS = ("paper", "head", "stripe", "bad-bg", "good-bg", "warn-bg", "mark-bg", "hi-bg")
SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
D65 = np.array([0.95047, 1.0, 1.08883])


def block(selector: str) -> dict[str, str]:
    body = re.search(re.escape(selector) + r" \{(.*?)\}", CSS, re.S).group(1)
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})", body))


def theme(name: str) -> dict[str, str]:
    """The colour variables in force in a theme: the normal ones, overridden by the theme's."""
    colours = block(":root")
    return colours | (block(f"body.theme-{name}") if name else {})


def linear(colour: str) -> np.ndarray:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    c = np.array([int(digits[i:i + 2], 16) for i in (0, 2, 4)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def contrast(a: str, b: str) -> float:
    light, dark = sorted((float(linear(c) @ [0.2126, 0.7152, 0.0722]) for c in (a, b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def lab(rgb: np.ndarray) -> np.ndarray:
    t = SRGB_TO_XYZ @ np.clip(rgb, 0, 1) / D65
    f = np.where(t > 216 / 24389, np.cbrt(t), (24389 / 27 * t + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair(colours: list[str], simulation=None) -> float:
    seen = [lab(linear(c) if simulation is None else np.array(simulation) @ linear(c)) for c in colours]
    return min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(seen, 2))


def test_the_formulas_give_known_values():
    assert contrast("#000", "#fff") == pytest.approx(21)
    assert contrast("#767676", "#fff") == pytest.approx(4.54, abs=0.01)  # the lightest grey that passes AA
    assert closest_pair(["#ff0000", "#00ff00"]) > 100
    # Red and green, far apart for most eyes, nearly meet for a deuteranope: the simulation must show it.
    red_green = ["#d62728", "#2ca02c"]
    assert closest_pair(red_green, SIMULATIONS["deuteranopia"]) < 0.4 * closest_pair(red_green)


@pytest.mark.parametrize("name", list(pages.THEMES), ids=lambda name: name or "normal")
def test_every_text_colour_is_legible_on_every_background(name):
    colours = theme(name)
    least = 7 if name else 4.5
    weak = [f"--{text} on --{ground}: {contrast(colours[text], colours[ground]):.2f}"
            for text in TEXTS for ground in BACKGROUNDS if contrast(colours[text], colours[ground]) < least]
    assert weak == []


@pytest.mark.parametrize("name", list(pages.THEMES), ids=lambda name: name or "normal")
def test_the_class_colours_stand_out_and_stay_apart_for_every_eye(name):
    colours = theme(name)
    lines = [colours[f"class-{k}"] for k in range(charts.CLASS_COLOURS)]
    assert len(set(lines)) == charts.CLASS_COLOURS
    assert min(contrast(line, colours["paper"]) for line in lines) >= 3
    distances = {"normal vision": closest_pair(lines)} | {
        simulation: closest_pair(lines, matrix) for simulation, matrix in SIMULATIONS.items()}
    assert min(distances.values()) >= 20, distances


def test_a_theme_and_a_zoom_are_read_from_the_address_and_carried_by_links(client):
    answer = client.get("/corpora/match-reviews/inference?text=match&presenter=1&theme=dark&zoom=150")
    html = answer.get_data(as_text=True)
    assert 'class="presenter slide theme-dark zoom-150"' in html
    # The deck's links keep both; the key t goes on to the normal theme, z to 100 %, Z to 125 %.
    assert re.search(r'data-step="next"[^>]*href="[^"]*theme=dark&amp;zoom=150', html)
    assert re.search(r'data-control="theme" href="(?![^"]*theme=)[^"]*"', html)
    assert re.search(r'data-control="zoom-in" href="[^"]*theme=dark(?![^"]*zoom=)[^"]*"', html)
    assert re.search(r'data-control="zoom-out" href="[^"]*zoom=125', html)


def test_an_unknown_theme_or_zoom_says_so_and_keeps_the_default(client):
    html = client.get("/corpora/match-reviews/inference?text=match&theme=pink&zoom=300").get_data(as_text=True)
    assert "The theme is light or dark (high contrast), or normal." in html
    assert "The zoom is 125 or 150 (per cent), or 100." in html
    assert "theme-" not in html.split("<body", 1)[1].split(">", 1)[0]
    html = client.get("/corpora/match-reviews/inference?text=match&theme=normal&zoom=100").get_data(as_text=True)
    assert "The theme is" not in html and "The zoom is" not in html


def test_a_table_of_numbers_takes_the_theme_too(client):
    html = client.get("/corpora/iris/gaussian/inference?presenter=1&theme=light").get_data(as_text=True)
    assert 'class="presenter slide theme-light"' in html


def test_the_dark_theme_changes_colours_only_so_its_slides_are_laid_out_as_the_light_ones():
    """The browser tests check the layout (fit, zoom, scrolling) of the high-contrast slides in the light theme only,
    and axe's structure rules in one theme: true as long as what the dark theme sets apart from the light one is
    colour alone (its variables and color-scheme) and every other rule names both themes."""
    root = Path(__file__).parents[1]
    dark_rules = []
    for sheet in sorted((root / "static").glob("*.css")):
        for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet.read_text(encoding="utf-8")):
            if "theme-dark" in selector:
                properties = {name for name, _ in re.findall(r"([\w-]+)\s*:\s*([^;]+);?", body)}
                dark_rules.append((sheet.name, selector.strip(), properties))
    assert dark_rules
    for sheet, selector, properties in dark_rules:
        if "theme-light" not in selector:
            assert all(name.startswith("--") or name == "color-scheme" for name in properties), (sheet, selector)
    templates_and_scripts = [*(root / "templates").rglob("*.html"), *(root / "static").glob("*.js")]
    assert not [path for path in templates_and_scripts if "theme-dark" in path.read_text(encoding="utf-8")]
