"""The LMS's way in (LTI 1.3): the login the platform begins, the launch it posts back, webnb's key set, and the step
that opens a launch in a window of its own; then the instructor's picker (deep linking), a student's graded question
of its own, and the course's grades and members for its instructor.

The login and the launch come as cross-site requests from the platform with no CSRF token: they alone are exempt from
both checks (webnb/lti/__init__.py), and the launch is trusted only once its signed token passes every check of
webnb/lti/adapter.py. A launch inside the LMS's iframe gets no cookie when the browser blocks third-party cookies, so
nothing of it lives in a cookie until the browser shows webnb in a window of its own.
"""
from __future__ import annotations

import hashlib
from urllib.parse import urlencode, urlsplit

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, session, url_for
from werkzeug.exceptions import HTTPException

from webnb.answers import refusal, wants_json
from webnb.engine.shared.numbers import parse_decimal
from webnb.hosting.security import content_security_policy
from webnb.lesson.notation import model_name
from webnb.lesson.pages import NAIVE_BAYES, TEXT_PAGES
from webnb.lesson.state import preset_state
from webnb.lti.activity import QUESTIONS, Activity, activity_of, check_answer
from webnb.lti.adapter import (
    CHECKS,
    LaunchRefused,
    LessonLink,
    ServiceFailed,
    course_members,
    deep_link_answer,
    key_set,
    login_redirect,
    register_platform,
    validate_launch,
)
from webnb.lti.addresses import tool_addresses
from webnb.lti.registry import DeepLinking, Invitation, Window
from webnb.room.hall import setting_at
from webnb.room.lecture import MAX_ANSWER_LENGTH, prompt
from webnb.room.questions import AnswerRefused, count_answer, lesson_at
from webnb.views.common import load_held_out

bp = Blueprint("lti", __name__, url_prefix="/lti")

# What the login and the launch read of the platform's request; nothing else of it is looked at.
LOGIN_PARAMETERS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id", "lti_deployment_id")
# A launch refused for these is malformed (400); for the others, not trusted (403).
MALFORMED = frozenset({"format", "message", "login hint"})
YES = ("1", "true", "yes", "on")


def lti():
    return current_app.extensions["webnb_lti"]


def login_key() -> str:
    """Whose logins are counted together: one LMS user (its ``login_hint``) from one client address."""
    hint = request.values.get("login_hint", "")[:200]
    return f"lti-login:{request.remote_addr}:{hashlib.sha256(hint.encode()).hexdigest()}"


@bp.route("/login", methods=["GET", "POST"])
def login():
    params = {name: request.values[name] for name in LOGIN_PARAMETERS if name in request.values}
    try:
        location = login_redirect(params, lti().registry, lti().logins, url_for("lti.launch", _external=True),
                                  secure=request.is_secure)
    except LaunchRefused as refused:
        return _refused(refused, "login")
    return redirect(location, 302)


@bp.post("/launch")
def launch():
    params = {name: request.form[name] for name in ("id_token", "state") if name in request.form}
    try:
        launched = validate_launch(params, lti().registry, lti().logins, lti().keysets, secure=request.is_secure)
    except LaunchRefused as refused:
        return _refused(refused, "launch")
    registry = lti().registry
    if launched.deep_linking is not None:  # an instructor choosing a lesson for the course
        ticket = registry.open(DeepLinking(launched.platform_id, launched.deployment_id,
                                                     dict(launched.deep_linking)))
        return redirect(url_for("lti.pick", ticket=ticket), 303)
    workspace = registry.workspace_for(registry.platform(launched.platform_id), launched.deployment_id,
                                       launched.subject, grading=launched.grading)
    course = ({"platform": launched.platform_id, "deployment": launched.deployment_id,
               "context": launched.context_id, "title": launched.context_title, "roster": launched.memberships_url}
              if launched.instructor and launched.context_id else None)
    target = lesson_target(launched)
    # A student of a graded link that asks a question of its own lands on it (the lesson is a link away); its
    # instructor lands on the lesson, and may look at the question as the students see it.
    activity = activity_of(launched.custom.get("question", ""), target) if launched.grading is not None else None
    window = Window(workspace, launched.instructor,
                    url_for("lti.activity") if activity and not launched.instructor else target, course,
                    activity.to_dict() if activity else None)
    ticket = registry.open(window)
    _sign_in(window)  # kept if the browser keeps webnb's cookie here (a launch in a window of its own)
    return redirect(url_for("lti.enter", ticket=ticket), 303)


@bp.get("/enter/<ticket>")
def enter(ticket: str):
    """The lesson of a launch. In the LMS's iframe without webnb's cookie, the lesson is shown with a link that opens
    it in a window of its own, where the cookie is webnb's own and the workspace follows."""
    registry = lti().registry
    window = registry.peek(Window, ticket)
    if window is None:
        return refusal("This link has expired", "This link to a lesson has expired or was used already. Open the "
                                                "activity from your course again.", 410)
    in_a_frame = request.headers.get("Sec-Fetch-Dest") in ("iframe", "frame")
    if session.get("workspace") == window.workspace or not in_a_frame:
        registry.take(Window, ticket)
        _sign_in(window)
        return redirect(window.target, 303)
    return redirect(_with_parameter(window.target, "lti_window", ticket), 303)


# The lesson pages an instructor may link a course to (the text pages of the menu), by key.
LINKABLE_PAGES = {page.key: page for page in TEXT_PAGES if page.in_menu}


@bp.get("/pick/<ticket>")
def pick(ticket: str):
    """The instructor chooses the lesson the course links to: corpus, page, model, α and the review."""
    if lti().registry.peek(DeepLinking, ticket) is None:
        return _choice_expired()
    return _picker(ticket, {}, {})


@bp.get("/pick/<ticket>/answer")
def answer(ticket: str):
    """The chosen lesson, signed and posted back to the course (by the browser, in a form that sends itself)."""
    registry = lti().registry
    if registry.peek(DeepLinking, ticket) is None:
        return _choice_expired()
    chosen = {name: request.args.get(name, "") for name in ("corpus", "page", "model", "alpha", "text", "title",
                                                            "score_maximum")}
    chosen["presenter"] = "1" if request.args.get("presenter") else ""
    chosen["graded"] = "1" if request.args.get("graded") else ""
    chosen["question"] = request.args.get("question", "")
    chosen["target"] = request.args.get("target", "").strip()
    link, problems = lesson_link(chosen)
    if problems:
        return _picker(ticket, chosen, problems, 400)
    choice = registry.take(DeepLinking, ticket)
    if choice is None:  # chosen in another tab at the same moment
        return _choice_expired()
    try:
        signed = deep_link_answer(registry, choice, link)
    except LaunchRefused as refused:
        return _refused(refused, "choice")
    return_url = choice.settings["deep_link_return_url"]
    response = current_app.make_response(_page("lti/return.html", {"return_url": return_url, "JWT": signed},
                                               link=link, return_url=return_url, signed=signed))
    # The one page whose form goes to another site: the course's own address for the answer.
    returning = urlsplit(return_url)
    response.headers["Content-Security-Policy"] = content_security_policy(
        lti().frame_origins(), form_targets=(f"{returning.scheme}://{returning.netloc}",))
    return response


def lesson_link(chosen: dict) -> tuple[LessonLink | None, dict]:
    """The lesson an instructor chose, as the link the course keeps, or what is wrong with the choice."""
    problems = {}
    entry = next((entry for entry in current_app.extensions["webnb"]["catalog"].builtin()
                  if entry.id == chosen["corpus"] and not entry.is_table), None)
    if entry is None:
        problems["corpus"] = "Choose one of the corpora listed."
    page = LINKABLE_PAGES.get(chosen["page"])
    if page is None:
        problems["page"] = "Choose one of the pages listed."
    if chosen["model"] not in NAIVE_BAYES:
        problems["model"] = "Choose one of the models listed."
    score_maximum = None
    if chosen["graded"]:
        try:
            score_maximum = parse_decimal(chosen["score_maximum"] or "10", "The points", low=0, high=10_000,
                                          low_open=True)
        except ValueError as problem:
            problems["points"] = str(problem)
    parameters = [(name, chosen[name]) for name in ("model", "alpha", "text") if chosen[name]]
    if entry is not None:
        problems.update(preset_state(entry.presets + tuple(parameters), entry.n_documents).errors)
    if problems:
        return None, problems
    path = f"/corpora/{entry.id}{page.path}" + (f"?{urlencode(parameters)}" if parameters else "")
    activity, problem = _chosen_activity(chosen, path)
    if problem:
        return None, {"question": problem}
    custom = {"lesson": path, **({"presenter": "1"} if chosen["presenter"] else {})}
    if score_maximum is not None:
        custom["score_maximum"] = f"{score_maximum:g}"
    if activity is not None:
        custom["question"] = activity.question
    title = chosen["title"].strip()[:200] or f"{entry.name}: {page.title}"
    return LessonLink(title=title, url=request.host_url.rstrip("/") + path, custom=custom,
                      score_maximum=score_maximum), {}


def _chosen_activity(chosen: dict, path: str) -> tuple[Activity | None, str | None]:
    """The question of its own the instructor chose for the lesson at ``path``, or what is wrong with it."""
    question = chosen.get("question", "")
    if not question:
        return None, None
    if question not in QUESTIONS:
        return None, "Choose one of the questions listed."
    if not chosen["graded"]:
        return None, "A question of its own is graded: tick “graded”, or choose no question."
    if question == "challenge:class":
        training = lesson_at(path.split("/")[2], path).training
        classes = training.statistics.classes if training is not None else ()
        if chosen["target"] not in classes:
            return None, f"Name the class the review should be put in: one of {', '.join(classes)}."
        question += f":{chosen['target']}"
    return activity_of(question, path), None


def _picker(ticket: str, chosen: dict, problems: dict, status: int = 200):
    corpora = [entry for entry in current_app.extensions["webnb"]["catalog"].builtin() if not entry.is_table]
    models = [(model, model_name(model)) for model in NAIVE_BAYES]
    twin = {"corpora": [entry.id for entry in corpora], "pages": list(LINKABLE_PAGES), "models": list(NAIVE_BAYES),
            "questions": list(QUESTIONS), "problems": problems}
    return _page("lti/pick.html", twin, status, ticket=ticket, corpora=corpora, pages=LINKABLE_PAGES.values(),
                 models=models, questions=QUESTIONS, chosen=chosen, problems=problems)


def _page(template: str, twin: dict, status: int = 200, **context):
    """One of the LMS's pages, or its JSON twin for a client that asks for JSON (the app's one rule)."""
    if wants_json():
        return jsonify(twin), status
    return render_template(template, **context), status


def _choice_expired():
    return refusal("This choice has expired", "This page for choosing a lesson has expired or was used already. "
                   "Start again from your course.", 410)


# --- a graded question of its own (webnb/lti/activity.py) ------------------------------------------------------------


def _activity_here() -> tuple[Activity | None, bool]:
    """The activity this browser was launched into, and whether it may answer: the session's (a student answers it,
    its instructor looks at it); in the LMS's iframe without webnb's cookie, the launch's (from its window ticket),
    to read only."""
    if session.get("lti_activity"):
        return Activity(**session["lti_activity"]), not session.get("lti_instructor")
    ticket = request.args.get("lti_window", "")
    window = lti().registry.peek(Window, ticket) if 0 < len(ticket) <= 64 else None
    if window is not None and window.activity:
        return Activity(**window.activity), False
    return None, False


def _no_activity():
    return refusal("No activity here", "This page shows the graded question of an activity in your course. Open "
                   "the activity from your course.", 404)


@bp.get("/activity")
def activity():
    """A graded question of its own, for the student whom the course launched into it."""
    chosen, answering = _activity_here()
    if chosen is None:
        return _no_activity()
    return _activity_page(chosen, answering)


def _activity_page(chosen: Activity, answering: bool, *, refused: AnswerRefused | None = None, typed: str = "",
                   status: int = 200):
    """The activity's page: its question, what the lesson's settings are, the student's last answer and the grade
    kept for the course. A tuning's held-out documents are counted first (a progress page on a large corpus)."""
    lesson = lesson_at(chosen.corpus_id, chosen.address)
    classes = lesson.training.statistics.classes if lesson.training is not None else ()
    if lesson.training is None or (chosen.goal == "class" and chosen.target not in classes):
        return refusal("This activity cannot be answered", "The question this activity asks does not fit its "
                       "lesson (a class the corpus does not have, or settings no model can be trained with). Tell "
                       "your lecturer.", 400)
    problem = load_held_out(lesson)[1] if chosen.kind == "tune" and answering else None
    setting = setting_at(lesson.entry.name, lesson.state)
    last = session.get("lti_answer") if answering else None
    link = lti().registry.grade_link(session["workspace"]) if answering else None
    grade = next(iter(lti().registry.scores(link=link)), None) if link else None
    twin = {"activity": chosen.to_dict(), "prompt": prompt(chosen, setting), "about": setting.to_dict(),
            "answering": answering, "previewing": bool(session.get("lti_instructor")), "problem": problem,
            "last_answer": last, "refused": refused and refused.message,
            "grade": grade and {"score_given": grade.score_given, "score_maximum": grade.score_maximum,
                                "state": grade.state}}
    return _page("lti/activity.html", twin, status, activity=chosen, prompt=twin["prompt"], about=setting,
                 answering=answering, previewing=twin["previewing"], problem=problem, last=last, grade=grade,
                 refused=refused, typed=typed,
                 max_length=MAX_ANSWER_LENGTH, lesson_address=chosen.address,
                 step_by_step=chosen.with_review(last["answer"]) if last and chosen.kind == "challenge" else None)


@bp.get("/activity/answers")
def activity_answers_page():
    """The answers' address, opened (a progress page that counted a large corpus during an answer comes back here):
    the activity's page."""
    return redirect(url_for("lti.activity"), 303)


@bp.post("/activity/answers")
def activity_answer():
    """A student's answer to their activity: checked at once, its grade kept and sent to the course if it is their
    best, and the page shown again with how it went."""
    chosen, answering = _activity_here()
    if chosen is None:
        return _no_activity()
    if not answering:
        return refusal("Only students answer here", "Each student answers this question alone, and their best "
                       "answer is their grade; the course's instructor sees the question without answering it. "
                       "Nothing was stored.", 403)
    given = request.form.get("answer", "")
    try:
        count_answer()
        answered = check_answer(chosen, given)
    except AnswerRefused as refused:
        response = current_app.make_response(
            refusal(refused.title, refused.message, refused.status) if wants_json()
            else _activity_page(chosen, True, refused=refused, typed=given[:MAX_ANSWER_LENGTH],
                                status=refused.status))
        if refused.status == 429:
            response.headers["Retry-After"] = "60"
        return response
    session["lti_answer"] = answered.to_dict()
    lti().grade(session["workspace"], chosen.kind, success=answered.success, accuracy=answered.accuracy)
    if wants_json():
        return answered.to_dict()
    return redirect(url_for("lti.activity"), 303)


@bp.get("/grades")
def grades():
    """For a course's instructor: the grades webnb sends to their course, each waiting, sent or failed."""
    course = session.get("lti_course")
    if not course:
        return refusal("Only for a course's instructors", "This page lists the grades webnb sends to a course. Open "
                       "webnb from your course as its instructor to see it.", 403)
    kept = lti().registry.scores(platform=course["platform"], context_id=course["context"])
    counts = {state: sum(score.state == state for score in kept) for state in ("waiting", "sent", "failed")}
    twin = {"course": course["title"], "counts": counts, "scores": [
        {"student": score.subject, "lineitem": score.lineitem, "score_given": score.score_given,
         "score_maximum": score.score_maximum, "state": score.state, "tries": score.tries, "error": score.last_error}
        for score in kept]}
    return _page("lti/grades.html", twin, course=course, scores=kept, counts=counts)


@bp.get("/roster")
def roster():
    """For a course's instructor: the course's members (their names, on this page only, never on the projector),
    beside who joined the class this browser leads and how many of its questions each answered."""
    course = session.get("lti_course")
    if not course:
        return refusal("Only for a course's instructors", "This page lists a course's members. Open webnb from your "
                       "course as its instructor to see it.", 403)
    if not course.get("roster"):
        return refusal("No list of members", "Your course's LMS did not offer webnb the list of its members (the "
                       "Names and Role Provisioning Service). Turn it on in the tool's settings in the LMS, then open "
                       "webnb from the course again.", 404)
    try:
        members = course_members(lti().registry, lti().keysets.http, lti().courier.tokens, course["platform"],
                                 course["roster"])
    except ServiceFailed as failed:
        return refusal("The course's members could not be read", f"Your course's LMS did not list its members "
                       f"({failed}). Try again in a moment.", 502)
    platform = lti().registry.platform(course["platform"])
    workspaces = lti().registry.workspaces_of(platform.issuer, course["deployment"]) if platform else {}
    storage = current_app.extensions["webnb"]["storage"]
    code = session.get("leading")
    lecture = storage.get_class(code) if code else None
    joined = set(storage.class_members(lecture.code)) if lecture else set()
    answered = storage.answers_per_student(lecture.code) if lecture else {}
    rows = [(member, workspaces.get(member.user_id) in joined, answered.get(workspaces.get(member.user_id), 0))
            for member in members]
    others = len(joined - {workspaces.get(member.user_id) for member in members})
    twin = {"course": course["title"], "class": lecture.code if lecture else None, "others": others, "members": [
        {"name": member.name, "roles": list(member.roles), "status": member.status, "joined": in_class,
         "answered": answers} for member, in_class, answers in rows]}
    return _page("lti/roster.html", twin, course=course, lecture=lecture, rows=rows,
                 joined=sum(in_class for _, in_class, _ in rows), others=others)


@bp.get("/register/<ticket>")
def register(ticket: str):
    """LTI Dynamic Registration, through a one-time address from `webnb lti registration-url`: the LMS opens it with
    its ``openid_configuration`` (and a ``registration_token``), and webnb registers itself there."""
    registry = lti().registry
    openid_configuration = request.args.get("openid_configuration", "")
    if registry.peek(Invitation, ticket) is None:
        return refusal("This registration address has expired", "This address for registering an LMS has expired "
                       "or was used already. Ask the server's operator for a new one (`webnb lti registration-url`).",
                       410)
    if not openid_configuration:
        return refusal("Open this address from your LMS", "The LMS opens this address when it registers a tool "
                       "(with its openid_configuration); paste it there, as the tool's registration URL.", 400)
    if registry.take(Invitation, ticket) is None:
        return refusal("This registration address has expired", "This address was used a moment ago.", 410)
    try:
        platform = register_platform(registry, lti().keysets.http, tool_addresses(request.host_url),
                                     openid_configuration, request.args.get("registration_token"))
    except ServiceFailed as failed:
        registry.release(Invitation, ticket)
        return refusal("The LMS did not register webnb", f"Registering with the LMS failed ({failed}). Nothing was "
                       "stored; the address stays valid, so try again from the LMS.", 502)
    lti().frame_origins.forget()
    response = current_app.make_response(_page("lti/registered.html", {
        "issuer": platform.issuer, "client_id": platform.client_id, "deployments": list(platform.deployments)},
        platform=platform))
    asking = urlsplit(openid_configuration)
    response.headers["Content-Security-Policy"] = content_security_policy(
        (*lti().frame_origins(), f"{asking.scheme}://{asking.netloc}"))
    return response


@bp.get("/jwks.json")
def jwks():
    """webnb's public keys, with which platforms verify what webnb signs."""
    response = jsonify(key_set(lti().registry))
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


def window_offer() -> dict:
    """For every page: the ticket that opens this launch in a window of its own, when the page is shown in the LMS's
    iframe without webnb's cookie (the ``lti_window`` parameter of :func:`enter`)."""
    ticket = request.args.get("lti_window") if request.method == "GET" else None
    if not ticket or len(ticket) > 64:
        return {"lti_window": None}
    window = lti().registry.peek(Window, ticket)
    if window is None or session.get("workspace") == window.workspace:
        return {"lti_window": None}
    return {"lti_window": ticket}


def lesson_target(launched) -> str:
    """The lesson a launch lands on: the resource link's custom ``lesson`` (a path of webnb's, with its query), else
    its target_link_uri when it names a lesson page; else the home page. An instructor's link with the custom
    ``presenter=1`` opens in presenter mode."""
    target = next((path for path in (_lesson_path(launched.custom.get("lesson", "")),
                                     _lesson_path(launched.target_link_uri)) if path), url_for("home.index"))
    if launched.instructor and launched.custom.get("presenter", "").strip().lower() in YES:
        target = _with_parameter(target, "presenter", "1")
    return target


def _lesson_path(address: str) -> str | None:
    """``address`` as a path and query of this site's, if it names one of its pages (not the LTI routes)."""
    parts = urlsplit(address.strip())
    if parts.netloc and f"{parts.scheme}://{parts.netloc}".lower() != request.host_url.rstrip("/").lower():
        return None
    if not parts.path.startswith("/") or parts.path.startswith("//"):
        return None
    try:
        endpoint, _ = current_app.url_map.bind(request.host).match(parts.path, method="GET")
    except HTTPException:  # no such page (404), or not one to GET (405)
        return None
    if endpoint == "static" or endpoint.startswith("lti."):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _with_parameter(target: str, name: str, value: str) -> str:
    return target + ("&" if "?" in target else "?") + urlencode({name: value})


def _sign_in(window: Window) -> None:
    """This browser becomes the launched user: their workspace, and an instructor's right to start a class. Whatever
    the browser was before as someone else is forgotten (a shared computer, another user's launch)."""
    if session.get("workspace") != window.workspace:
        session.clear()
    session["workspace"] = window.workspace
    session.permanent = True
    if window.instructor:
        session["lti_instructor"] = True
    if window.course:
        session["lti_course"] = window.course
    # This launch's question of its own, if any: another launch's, and the answer given to it, are forgotten.
    session.pop("lti_answer", None)
    if window.activity:
        session["lti_activity"] = window.activity
    else:
        session.pop("lti_activity", None)


def _refused(refused: LaunchRefused, what: str):
    status = 400 if refused.check in MALFORMED else 403
    about = CHECKS.get(refused.check)
    message = (f"webnb refused this {what} from your course: the {refused.check} check failed, because "
               f"{refused.reason.rstrip('.')}." + (f" That check asks that {about}." if about else "")
               + " Nothing was stored. Open the activity from your course again; if it fails again, show this page "
                 "to whoever looks after your course's tools.")
    return refusal(f"The {what} was refused: {refused.check}", message, status)
