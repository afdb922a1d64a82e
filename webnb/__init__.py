"""webnb: Naive Bayes text classification, taught by showing every number."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024


def find_folder(name: str) -> Path:
    """``templates`` or ``static``: inside the package in an installed wheel, beside it in a checkout."""
    for candidate in (PACKAGE_DIR / name, PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise RuntimeError(f"webnb cannot find its {name!r} folder in {PACKAGE_DIR} or beside it")


def create_app(test_config=None, *, instance_path=None):
    """The webnb Flask app. ``instance_path`` lets tests keep the instance folder out of the checkout."""
    # Imported here, not at the top: importing webnb.engine runs this file and must not pull in Flask.
    from flask import Flask
    from flask_wtf.csrf import CSRFProtect

    from webnb import errors, lti, room
    from webnb.engine.records.telling_words import ToldLists
    from webnb.hosting import outages, ratelimits, security, work, workspaces
    from webnb.hosting.cache import DEFAULT_CACHE_MB, Cache
    from webnb.hosting.catalog import Catalog
    from webnb.hosting.jobs import Jobs
    from webnb.lesson import charts, formatting, notation, pages, slides
    from webnb.lesson.json_twins import JSONTwinProvider
    from webnb.store.database import Storage, default_url
    from webnb.views import (
        additions,
        calibration,
        compare,
        corpus,
        evaluation,
        export,
        gaussian,
        generative,
        handouts,
        home,
        inference,
        jobs,
        matrix,
        parameters,
        parity,
        prior,
        selection,
        sharing,
        words,
    )
    from webnb.views.common import kept_on_page

    app = Flask(
        __name__,
        instance_path=instance_path,
        instance_relative_config=True,
        template_folder=find_folder("templates"),
        static_folder=find_folder("static"),
    )
    app.json = JSONTwinProvider(app)
    # The dev key only suits webnb running on the instructor's own machine; anything shared sets its own.
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("WEBNB_SECRET_KEY", "dev"),
        DATABASE_URL=os.environ.get("WEBNB_DATABASE_URL"),
        # Hosted mode: lecturers who give this key in the browser may start a class (unset: nobody may there).
        WEBNB_INSTRUCTOR_KEY=os.environ.get("WEBNB_INSTRUCTOR_KEY"),
        MAX_CONTENT_LENGTH=DEFAULT_MAX_UPLOAD_BYTES,
        WTF_CSRF_TIME_LIMIT=None,  # a lesson tab stays open for a whole lecture
        WEBNB_BACKGROUND_UPLOAD_BYTES=1_000_000,  # bigger uploads are read in the background, with progress
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    workspaces.init_app(app)  # local or hosted mode; refuses to start hosted without a real secret
    os.makedirs(app.instance_path, exist_ok=True)
    database_url = app.config["DATABASE_URL"] or default_url(app.instance_path)

    storage = Storage(database_url)
    storage.create_schema()
    workspaces.check_database(app, storage)  # local mode refuses a database of hosted workspaces, unless allowed
    # What one process keeps of counted corpora (documents, statistics, matrices), in megabytes
    # (webnb/hosting/cache.py).
    cache_mb = float(app.config.setdefault("WEBNB_CACHE_MB", float(os.environ.get("WEBNB_CACHE_MB", DEFAULT_CACHE_MB))))
    # Every cache lives here, made with the app, so a new app starts with empty ones. One per purpose, each with the
    # bound that suits it: counted corpora by bytes (their sizes differ a thousandfold; the catalog's cache), the
    # finished comparisons and α sweeps by entries (small records, slow to compute; a corpus must not evict them).
    catalog = Catalog(storage, Cache(max_bytes=int(cache_mb * 2**20)))
    app.extensions["webnb"] = {
        "storage": storage,
        "catalog": catalog,
        "jobs": Jobs(storage=storage),
        "comparisons": Cache(max_entries=compare.COMPARISONS_KEPT),
        "sweeps": Cache(max_entries=evaluation.SWEEPS_KEPT),
        "parameter_tables": Cache(max_entries=parameters.PARAMETER_TABLES_KEPT),
        "told": ToldLists(),  # the telling words' lists, per model and settings
    }
    work.init_app(app)  # the memory cap per piece of work and the heavy computations at once (webnb/hosting/work.py)
    CSRFProtect(app)
    security.init_app(app)
    ratelimits.init_app(app)  # per workspace, in hosted mode only
    outages.init_app(app)  # knows when the database cannot be reached, and says so once in the log
    errors.init_app(app)  # every error a request meets, in webnb's own words (webnb/errors.py)
    app.jinja_env.filters.update(formatting.FILTERS)
    app.jinja_env.globals["lesson_menu"] = pages.lesson_menu
    app.jinja_env.globals.update(themes=pages.THEMES, zooms=pages.ZOOMS, next_choice=pages.next_choice,
                                 model_name=notation.model_name, model_names=notation.MODEL_NAMES)
    # What a slide or page keeps of a long list, by the rules of webnb/lesson/slides.py, and when a part is drawn
    # the compact way: the numbers are there, never in a template.
    app.jinja_env.globals.update(kept=kept_on_page, many=slides.many, few=slides.few,
                                 rows_per_class=slides.rows_per_class, contributions_chart=charts.contributions_chart,
                                 context_line=slides.context_line)
    app.jinja_env.tests.update(formatting.TESTS)

    app.register_blueprint(home.bp)
    for blueprint in (
        corpus.bp, matrix.bp, parameters.bp, inference.bp, evaluation.bp, compare.bp, words.bp, generative.bp,
        additions.bp, parity.bp, sharing.bp, jobs.bp, export.bp, gaussian.bp, prior.bp, handouts.bp, calibration.bp,
        selection.bp,
    ):
        app.register_blueprint(blueprint)
    # The class in the room: its views, broker and caches, and its one seam into the lesson pages registered above
    # (webnb/room/following.py wraps each page's view).
    room.init_app(app)
    lti.init_app(app)  # launches from an LMS (LTI 1.3), when the `lti` extra is installed
    return app
