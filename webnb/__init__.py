"""webnb: Naive Bayes text classification, taught by showing every number."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


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

    from webnb import home

    app = Flask(
        __name__,
        instance_path=instance_path,
        instance_relative_config=True,
        template_folder=find_folder("templates"),
        static_folder=find_folder("static"),
    )
    # The dev key only suits webnb running on the instructor's own machine; anything shared sets its own.
    app.config.from_mapping(SECRET_KEY=os.environ.get("WEBNB_SECRET_KEY", "dev"))
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)

    app.register_blueprint(home.bp)
    return app
