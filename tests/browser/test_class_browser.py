"""A class in the room in a real browser: the lecturer starts a class on the home page and shows the join slide at
projector size (the code in type of at least 96 px, the QR code visible, nothing cut off, axe clean); a second
browser joins by typing the code and lands on the lesson; a phone (390 × 844) opens the QR code's address and the
join form."""
from __future__ import annotations

import pytest
from accessibility import axe_violations
from playwright.sync_api import expect

from .conftest import PROJECTOR

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

SLIDE_MEASURES = """() => {
  const box = el => el.getBoundingClientRect();
  const code = document.querySelector('#class-code'), qr = document.querySelector('#class-qr svg');
  const smallest = [...document.querySelectorAll('main *')].filter(el => el.childElementCount === 0
      && el.textContent.trim() && box(el).width > 0).map(el => parseFloat(getComputedStyle(el).fontSize));
  return {codeSize: parseFloat(getComputedStyle(code).fontSize), code: box(code).toJSON(), qr: box(qr).toJSON(),
          scrollWidth: document.scrollingElement.scrollWidth, scrollHeight: document.scrollingElement.scrollHeight,
          smallestText: Math.min(...smallest)};
}"""


def within(box, width, height) -> bool:
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height


def test_the_lecturer_starts_a_class_and_a_student_joins_by_its_code(browsing, new_browsing, server_url, shot):
    lecturer = browsing.new_page()
    lecturer.goto(server_url + "/")
    lecturer.select_option("#class-corpus", "spam-ham")
    lecturer.click("#start-class")
    expect(lecturer.locator("h1")).to_have_text("Your class has started")
    code = lecturer.locator("#class-code").inner_text()
    assert len(code) == 6
    expect(lecturer.locator("#join-url")).to_have_text(f"{server_url}/join/{code}")
    assert axe_violations(lecturer) == []
    shot(lecturer, "class-started")

    lecturer.click("#show-join-slide")
    expect(lecturer).to_have_url(f"{server_url}/classes/{code}")
    expect(lecturer.locator("#class-code")).to_have_text(code)
    measures = lecturer.evaluate(SLIDE_MEASURES)
    assert measures["codeSize"] >= 96, measures
    assert measures["qr"]["width"] >= 250 and measures["qr"]["height"] >= 250, measures
    assert within(measures["qr"], PROJECTOR["width"], PROJECTOR["height"]), measures
    assert within(measures["code"], PROJECTOR["width"], PROJECTOR["height"]), measures
    assert measures["scrollWidth"] <= PROJECTOR["width"] and measures["scrollHeight"] <= PROJECTOR["height"]
    assert measures["smallestText"] >= 20, measures
    assert axe_violations(lecturer) == []
    shot(lecturer, "class-join-slide", full_page=False)

    student = new_browsing().new_page()
    student.goto(server_url + "/")
    student.click("#join-link")
    expect(student.locator("h1")).to_have_text("Join a class")
    student.fill("#class-code", f"{code[:3].lower()} - {code[3:].lower()}")
    student.get_by_role("button", name="Join").click()
    expect(student).to_have_url(f"{server_url}/corpora/spam-ham")
    expect(student.locator("h1")).to_contain_text("Spam or ham")
    # The student's browser does not lead the class.
    assert student.goto(f"{server_url}/classes/{code}").status == 404

    wrong = new_browsing().new_page()
    wrong.goto(server_url + "/join")
    wrong.fill("#class-code", "3X9KQ")
    wrong.get_by_role("button", name="Join").click()
    expect(wrong.locator("[role=alert]")).to_contain_text("No running class has this code")
    assert axe_violations(wrong) == []

    # Ended: the lecturer ends it, and the QR code's address says so.
    lecturer.click("text=End the class")
    expect(lecturer.locator("h1")).to_have_text(f"The class {code} has ended")
    late = new_browsing().new_page()
    assert late.goto(f"{server_url}/join/{code}").status == 410
    expect(late.locator("h1")).to_have_text("This class has ended")
    assert browsing.errors == []


def test_a_phone_joins_by_the_qr_address_and_by_the_form(new_browsing, server_url, shot):
    lecturer = new_browsing().new_page()
    lecturer.goto(server_url + "/")
    lecturer.select_option("#class-corpus", "match-reviews")
    lecturer.click("#start-class")
    code = lecturer.locator("#class-code").inner_text()

    phone_browsing = new_browsing()
    phone = phone_browsing.new_page()
    phone.set_viewport_size(PHONE)
    phone.goto(f"{server_url}/join")
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    field = phone.locator("#class-code").bounding_box()
    button = phone.get_by_role("button", name="Join").bounding_box()
    assert field["height"] >= 44 and button["height"] >= 44 and field["x"] + field["width"] <= PHONE["width"]
    assert axe_violations(phone) == []
    shot(phone, "class-join-phone")
    phone.fill("#class-code", code.lower())
    phone.get_by_role("button", name="Join").click()
    expect(phone).to_have_url(f"{server_url}/corpora/match-reviews")

    qr_phone = new_browsing().new_page()
    qr_phone.set_viewport_size(PHONE)
    qr_phone.goto(f"{server_url}/join/{code}")
    expect(qr_phone).to_have_url(f"{server_url}/corpora/match-reviews")
    assert qr_phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    assert phone_browsing.errors == []
