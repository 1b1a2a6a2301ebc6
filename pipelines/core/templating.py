"""One Jinja environment for every system's pages: the system's own templates first, then the
shared ones of pipelines/core/templates (the table enhancement every page includes, the site's
base page). Autoescape for HTML: a hostile name stays text."""
from __future__ import annotations

from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape

CORE_TEMPLATES = Path(__file__).parent / "templates"


def template_env(folder: Path, **options) -> Environment:
    settings = {"autoescape": select_autoescape(["html", "j2"]), "keep_trailing_newline": True} | options
    return Environment(loader=ChoiceLoader([FileSystemLoader(folder), FileSystemLoader(CORE_TEMPLATES)]), **settings)
