"""The progress of background work, polled by htmx (or by a meta refresh without JavaScript)."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template

from webnb.views.common import WorkInProgress, find_job, is_htmx

bp = Blueprint("jobs", __name__)


def _jobs():
    return current_app.extensions["webnb"]["jobs"]


@bp.get("/jobs/<job_id>")
def show(job_id):
    job = find_job(job_id)
    if job is None:
        abort(404)
    state = job.state  # read once: the worker thread may finish the job between two reads
    if state == "done":
        if is_htmx():
            response = make_response("", 204)
            response.headers["HX-Redirect"] = job.result_url
            return response
        return redirect(job.result_url, code=303)
    template = "jobs/show.html"
    page = render_template(template, job=job) if not is_htmx() else render_template("jobs/_progress.html", job=job)
    response = make_response(page, 200 if state == "running" else 400)
    response.headers["Vary"] = "HX-Request"
    return response


@bp.app_errorhandler(WorkInProgress)
def work_in_progress(error):
    """A page whose numbers are still being computed shows the progress, then itself."""
    template = "jobs/_progress.html" if is_htmx() else "jobs/show.html"
    response = make_response(render_template(template, job=error.job), 202)
    response.headers["Vary"] = "HX-Request"
    return response
