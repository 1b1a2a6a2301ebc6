"""One Jinja environment for every system's pages: the system's own templates first, then the
shared ones of pipelines/core/templates (the table enhancement every page includes, the site's
base page). Autoescape for HTML: a hostile name stays text."""
from __future__ import annotations

import hashlib
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape

CORE_TEMPLATES = Path(__file__).parent / "templates"

# The templates are the package's own files, not edited while a run renders: each is read once per
# process, not looked up on disk again for every page (Jinja's auto_reload stats a template and each
# one it extends or includes on every get_template: 0.3-0.45 s of CPU in a Swedish night's 3,300
# player pages). Every environment of the project is made with these.
FIXED_TEMPLATES = {"auto_reload": False}


def template_env(folder: Path, **options) -> Environment:
    settings = {"autoescape": select_autoescape(["html", "j2"]), "keep_trailing_newline": True} | FIXED_TEMPLATES | options
    return Environment(loader=ChoiceLoader([FileSystemLoader(folder), FileSystemLoader(CORE_TEMPLATES)]), **settings)


def rendering_code(template_dir: Path, module_file: str | Path, texts: dict[str, str]) -> str:
    """What a publication's pages depend on besides their data: the templates of `template_dir`,
    the module that renders them and the fixed texts in the organisation's language
    (data/site/messages.csv). A page kept from a night with another code is rendered again (a new
    release, or the office changed the organisation's `language` or its catalogue)."""
    digest = hashlib.sha256()
    for path in sorted(Path(template_dir).glob("*")) + [Path(module_file)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16] + " " + hashlib.sha256(repr(sorted(texts.items())).encode("utf-8")).hexdigest()[:16]
