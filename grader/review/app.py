"""``grader review OUT``: the review app's pages and actions (Starlette, Jinja2 templates with
autoescape, served by uvicorn on 127.0.0.1), behind :class:`grader.review.security.Guard`.

Pages (GET): ``/`` the queue, grouped (:meth:`grader.review.data.Batch.groups`); ``/g/{group}``
one group's members and the action confirming them all; ``/s/{key}`` one submission (its code,
and a notebook's outputs as text or static images; the failing tests, the diagnosis, the score by
part, comments, the ledger's history; the reference and the diff against it on ``r``).
Actions (POST, each a ledger line, :mod:`grader.review.actions`): ``/s/{key}/adjust``,
``/s/{key}/comment``, ``/s/{key}/undo``, ``/s/{key}/reveal``, ``/g/{group}/confirm``. A refused
action answers with the page's words in the reviewer's language; a conflict (409) shows both
versions.

Everything a student wrote (code, outputs, file names, names, messages with their numbers) reaches
a page only through the templates' autoescape, as text; the one script is ``/static/review.js``.

Example::

    app, keys = make_app(Path("out"), rubric, port=8765, by="tanaka", lang="ja")
    keys.launch_url()
"""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError
from grader.i18n.messages import by_lang, said, translate
from grader.report import ledger
from grader.review import actions
from grader.review.data import Batch
from grader.review.security import Guard, Keys

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from grader.spec.rubric.model import ManualItem, Rubric

__all__ = ["LANGS", "WORDS", "make_app", "refusal"]

HERE = Path(__file__).resolve().parent
LANGS = ("ja", "en")

#: the pages' words: name in the templates -> label key (grader/i18n/review.py)
WORDS = by_lang({
    "title": "review_title", "queue": "review_queue", "members": "review_members", "reviewed": "review_reviewed",
    "confirm_all": "review_confirm_all", "score": "score", "part": "review_part", "total": "review_total",
    "code": "similarity_code", "outputs": "review_outputs", "failing": "review_failing", "diagnosis": "review_diagnosis",
    "history": "review_history", "comments": "review_comments", "comment": "review_comment",
    "reference": "review_reference", "diff": "review_diff", "adjust": "review_adjust", "points": "review_points",
    "set": "review_set", "reason": "review_reason", "save": "review_save", "undo": "review_undo",
    "reveal": "review_reveal", "next": "review_next", "prev": "review_prev", "help": "review_help",
    "keyboard": "review_keys", "key_j": "review_key_j", "key_k": "review_key_k", "key_digits": "review_key_digits",
    "key_c": "review_key_c", "key_s": "review_key_s", "key_u": "review_key_u", "key_r": "review_key_r",
    "key_help": "review_key_help", "conflict": "review_conflict", "theirs": "review_theirs",
    "mine": "review_mine", "send_again": "review_send_again", "back": "review_back", "no_source": "review_no_source",
    "lines": "review_lines", "file": "review_file", "state_here": "review_state_here",
    "state_moved": "review_state_moved", "state_outdated": "review_state_outdated", "expected": "expected",
    "actual": "actual", "blind": "review_blind", "refused": "review_refused", "shown_as_text": "review_as_text",
    "line_cut": "review_line_cut", "group_of": "review_group_of", "none": "review_none", "by": "review_by",
    "lang_other": "review_lang_other", "items_title": "review_items", "item_points": "review_item_points",
    "preview": "review_preview", "apply_all": "review_apply_all", "given": "review_given",
    "final_now": "review_final_now", "final_after": "review_final_after", "key_items": "review_key_items", "passed": "passed", "not_passed": "gb_no",
})

#: why the guard refused, in words (both languages: the refusal comes before any page's language)
_REFUSALS = {"host": said("review_refused_host"), "session": said("review_refused_session"),
             "origin": said("review_refused_origin"), "csrf": said("review_refused_csrf"),
             "token": said("review_refused_token"), "body": said("review_refused_body")}


def refusal(why: str) -> str:
    """The guard's refusal (why: a key of the guard's checks), in Japanese and then in English."""
    text = _REFUSALS[why]
    return f"{translate(text, 'ja')}\n{translate(text, 'en')}\n"


def _env() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    return env


def make_app(outdir: Path, rubric: Rubric, *, port: int, by: str, lang: str, blind: bool = False,
             keys: Keys | None = None, batch: Batch | None = None) -> tuple[Guard, Keys]:
    """The app (guarded) and its keys, for ``outdir`` graded with ``rubric``."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, HTMLResponse, RedirectResponse
    from starlette.routing import Route

    keys = keys or Keys(port=port)
    batch = batch or Batch(outdir, rubric, secret=keys.secret, blind=blind)
    env = _env()
    default_lang = lang if lang in LANGS else "ja"

    def who(request: Request) -> str:
        """The reviewer of the request's session (their launch URL named them), else the app's."""
        return keys.reviewer_of(request.scope.get("state", {}).get("session", "")) or by

    def lang_of(request: Request) -> str:
        asked = request.query_params.get("lang", "")
        return asked if asked in LANGS else default_lang

    def render(request: Request, template: str, status: int = 200, **ctx: Any) -> Response:
        language = lang_of(request)
        page = env.get_template(template).render(
            t=WORDS[language], lang=language, other="en" if language == "ja" else "ja",
            csrf=request.scope.get("state", {}).get("csrf", ""), blind=batch.blind, by=who(request),
            tr=lambda text: translate(text, language), **ctx)
        return HTMLResponse(page, status_code=status)

    def refuse(request: Request, exc: Exception, status: int = 400) -> Response:
        return render(request, "message.html.j2", status=status, message=translate(str(exc), lang_of(request)))

    def member(name: str, group: str, language: str) -> dict[str, Any]:
        data = batch.reports[name]
        return {"key": batch.key_of(name), "who": batch.shown_name(name, language), "score": _num(data["score"]),
                "max": _num(data["max_score"]), "reviewed": batch.reviewed(name, group)}

    async def queue(request: Request) -> Response:
        batch.refresh()
        language = lang_of(request)
        groups = [{"key": g.key, "kind": g.kind, "title": g.title, "detail": g.detail, "size": len(g.members),
                   "done": sum(batch.reviewed(n, g.key) for n in g.members),
                   "members": [member(n, g.key, language) for n in g.members[:50]], "more": max(0, len(g.members) - 50)}
                  for g in batch.groups(language)]
        return render(request, "queue.html.j2", groups=groups, students=len(batch.reports))

    async def group_page(request: Request) -> Response:
        batch.refresh()
        language = lang_of(request)
        g = batch.group(request.path_params["group"], language)
        if g is None:
            return refuse(request, UsageError(said("review_no_such_page")), 404)
        members = [member(n, g.key, language) for n in g.members]
        heads = ",".join(f"{batch.key_of(n)}:{batch.head_of(n)}" for n in g.members)
        return render(request, "group.html.j2", group=g, members=members, heads=heads)

    def find(request: Request) -> str:
        name = batch.name_of(request.path_params["key"])
        if name is None:
            raise UsageError(said("review_no_such_page"))
        return name

    async def submission(request: Request) -> Response:
        batch.refresh()
        language = lang_of(request)
        try:
            name = find(request)
        except UsageError as exc:
            return refuse(request, exc, 404)
        return render(request, "submission.html.j2", **_submission_view(batch, name, request.query_params.get("g", ""),
                                                                      language))

    async def act(request: Request) -> Response:
        language = lang_of(request)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        try:
            name = find(request)
            head = _int(fields.get("head", ""), "head")
            what = request.path_params["action"]
            if what == "adjust":
                part = fields.get("part") or None
                points, set_to = _number(fields.get("points", "")), _number(fields.get("set", ""))
                if (points is None) == (set_to is None):
                    raise UsageError(said("give_one_points_set"))
                actions.adjust(outdir, rubric, name, head=head, part=part, points=points, set_to=set_to,
                               reason=fields.get("reason", ""), by=who(request), lang=language)
            elif what == "comment":
                file = fields.get("file", "")
                shown = {f.label: [t for _, t in f.lines] for f in batch.files(name)}
                if file not in shown:
                    raise UsageError(said("review_comment_no_file", file=file))
                start = _int(fields.get("start", ""), "start")
                end = _int(fields.get("end", "") or str(start), "end")
                first = min(n for n, _ in next(f for f in batch.files(name) if f.label == file).lines)
                actions.comment(outdir, rubric, name, head=head, file=file, start=start - first + 1,
                                end=end - first + 1, text=fields.get("text", ""), by=who(request), lines=shown[file],
                                lang=language)
            elif what == "undo":
                actions.undo(outdir, rubric, name, head=head, n=_int(fields.get("n", ""), "n"),
                             reason=fields.get("reason", "") or said("review_undo_reason"), by=who(request), lang=language)
            elif what == "item":
                item = _item(rubric, fields.get("item", ""))
                actions.toggle_item(batch, name, item, head=head, by=who(request), lang=language)
            elif what == "reveal":
                if not batch.blind:
                    raise UsageError(said("review_not_blind"))
                if batch.revealed(name):
                    raise UsageError(said("review_already_revealed"))
                actions.reveal(outdir, name, pseudonym=batch.pseudonym(name), reason=fields.get("reason", ""), by=who(request))
            else:
                raise UsageError(said("review_no_such_page"))
        except actions.Conflict as conflict:
            batch.refresh()
            return render(request, "conflict.html.j2", status=409, **_conflict_view(batch, conflict, fields,
                                                                                     request.url.path, language))
        except (UsageError, ledger.LedgerError) as exc:
            return refuse(request, exc)
        batch.refresh()
        target = f"/s/{batch.key_of(name)}?lang={language}&g={fields.get('g', '')}"
        if fields.get("next") == "1":
            target = _next_of(batch, name, fields.get("g", ""), language) or target
        return RedirectResponse(target, status_code=303)

    async def confirm(request: Request) -> Response:
        language = lang_of(request)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        batch.refresh()
        g = batch.group(request.path_params["group"], language)
        if g is None:
            return refuse(request, UsageError(said("review_no_such_page")), 404)
        heads = _heads(batch, fields.get("heads", ""))
        try:
            actions.confirm_group(outdir, rubric, list(g.members), group=g.key, title=g.title, by=who(request),
                                  heads=heads, lang=language)
        except actions.Conflict as conflict:
            batch.refresh()
            return render(request, "conflict.html.j2", status=409, **_conflict_view(batch, conflict, fields,
                                                                                     request.url.path, language))
        except (UsageError, ledger.LedgerError) as exc:
            return refuse(request, exc)
        batch.refresh()
        return RedirectResponse(f"/g/{g.key}?lang={language}", status_code=303)

    async def items_page(request: Request) -> Response:
        batch.refresh()
        language = lang_of(request)
        rows = [{"n": i, "id": m.id, "title": m.title.ja if language == "ja" else m.title.en,
                 "part": m.part or "", "worth": batch.item_worth(m.id), "given": len(batch.with_item(m.id))}
                for i, m in enumerate(rubric.manual, 1)]
        return render(request, "items.html.j2", items=rows)

    async def item_change(request: Request) -> Response:
        language = lang_of(request)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        batch.refresh()
        try:
            item = _item(rubric, request.path_params["item"])
            points = _number(fields.get("points", ""))
            if points is None:
                raise UsageError(said("review_points_not_number", got="''"))
            if request.path_params["step"] == "preview":
                rows = actions.item_preview(batch, item, points)
                for row in rows:
                    row["who"] = batch.shown_name(row["name"], language)
                return render(request, "item_preview.html.j2", item=item, points=points, rows=rows,
                              title=item.title.ja if language == "ja" else item.title.en,
                              heads=",".join(f"{batch.key_of(r['name'])}:{r['head']}" for r in rows))
            if request.path_params["step"] != "apply":
                raise UsageError(said("review_no_such_page"))
            actions.repoint_item(batch, item, points, heads=_heads(batch, fields.get("heads", "")), by=who(request),
                                 lang=language)
        except actions.Conflict as conflict:
            batch.refresh()
            return render(request, "conflict.html.j2", status=409, **_conflict_view(batch, conflict, fields,
                                                                                     request.url.path, language))
        except (UsageError, ledger.LedgerError) as exc:
            return refuse(request, exc)
        batch.refresh()
        return RedirectResponse(f"/items?lang={language}", status_code=303)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("review.js", "review.css"):
            return refuse(request, UsageError(said("review_no_such_page")), 404)
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return FileResponse(HERE / "static" / name, media_type=f"{kind}; charset=utf-8")

    app: Starlette = Starlette(routes=[
        Route("/", queue), Route("/g/{group}", group_page), Route("/g/{group}/confirm", confirm, methods=["POST"]),
        Route("/s/{key}", submission), Route("/s/{key}/{action}", act, methods=["POST"]),
        Route("/items", items_page), Route("/items/{item}/{step}", item_change, methods=["POST"]),
        Route("/static/{name}", static),
    ])
    return Guard(app, keys, refusal), keys


def _heads(batch: Batch, text: str) -> dict[str, int]:
    """The ledger head each student's page was rendered from, as a form carries it back
    (``key:n,key:n``); keys the batch does not know and numbers that are not are left out."""
    heads: dict[str, int] = {}
    for piece in text.split(","):
        key, _, n = piece.partition(":")
        named = batch.name_of(key)
        if named is not None and n.isdigit():
            heads[named] = int(n)
    return heads


def _item(rubric: Rubric, item_id: str) -> ManualItem:
    item = next((m for m in rubric.manual if m.id == item_id), None)
    if item is None:
        raise UsageError(said("review_no_such_item", item=repr(item_id[:60])))
    return item


def _num(x: object) -> str:
    return f"{float(x):g}"  # type: ignore[arg-type]


def _number(text: str) -> float | None:
    text = unicodedata.normalize("NFKC", text).strip().replace("\u2212", "-")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise UsageError(said("review_points_not_number", got=repr(text[:40]))) from None
    if not math.isfinite(value):
        raise UsageError(said("adjust_not_finite", option="points", value=value))
    return value


def _int(text: str, what: str) -> int:
    text = unicodedata.normalize("NFKC", text).strip()
    if not text.isdigit():
        raise UsageError(said("review_not_a_number", what=what, got=repr(text[:40])))
    return int(text)


def _next_of(batch: Batch, name: str, group: str, lang: str) -> str | None:
    g = batch.group(group, lang)
    if g is None or name not in g.members:
        return None
    i = g.members.index(name)
    if i + 1 < len(g.members):
        return f"/s/{batch.key_of(g.members[i + 1])}?lang={lang}&g={g.key}"
    return f"/g/{g.key}?lang={lang}"


def _submission_view(batch: Batch, name: str, group: str, lang: str) -> dict[str, Any]:
    """What the submission page shows (plain data; the template escapes every string)."""
    from grader.review.data import comments_of

    data = batch.reports[name]
    files = batch.files(name)
    lines = {f.label: [t for _, t in f.lines] for f in files}
    comments = comments_of(batch.entries, name, lines)
    g = batch.group(group, lang)
    prev_link = next_link = None
    if g is not None and name in g.members:
        i = g.members.index(name)
        if i > 0:
            prev_link = f"/s/{batch.key_of(g.members[i - 1])}?lang={lang}&g={g.key}"
        next_link = _next_of(batch, name, g.key, lang)
    mine = [e for e in batch.entries if e.submission == name]
    undone = {e.target for e in mine if e.op == "undo"}
    history = [{"n": e.n, "op": e.op, "part": e.part or "", "change": _change(e), "reason": e.reason, "by": e.by,
                "at": e.at, "undoable": e.op in ("adjust", "comment") and e.n not in undone,
                "undone": e.n in undone} for e in mine]
    failing = [t for t in data.get("tests", []) if t.get("status") in ("failed", "error")]
    return {
        "key": batch.key_of(name), "who": batch.shown_name(name, lang), "data": data, "files": files,
        "comments": comments, "history": history, "failing": failing, "head": batch.head_of(name),
        "group": g, "prev_link": prev_link, "next_link": next_link, "reference": batch.reference(name),
        "source_missing": not files, "can_reveal": batch.blind and not batch.revealed(name),
        "review": [int(e["n"]) for e in ledger.review_of(data)],
        "items": [{"n": i, "id": m.id, "title": m.title.ja if lang == "ja" else m.title.en, "part": m.part or "",
                   "worth": batch.item_worth(m.id), "given": batch.item_points(name, m.id)}
                  for i, m in enumerate(batch.rubric.manual, 1)],
        "score": _num(data["score"]), "max": _num(data["max_score"]),
        "parts": [{"id": p["id"], "title": (p.get("title") or {}).get(lang) or p["id"], "score": _num(p["score"]),
                   "max": _num(p["max_score"])} for p in data.get("parts", [])],
        "mistakes": [{"id": m.get("id", ""), "part": m.get("part", ""),
                      "message": (m.get("message") or {}).get(lang) or (m.get("message") or {}).get("en", "")}
                     for m in data.get("mistakes", [])],
    }


def _change(e: ledger.Entry) -> str:
    if e.points is not None:
        return f"{e.points:+g}"
    if e.set is not None:
        return f"={e.set:g}"
    if e.target is not None:
        return f"#{e.target}"
    if e.op == "comment" and isinstance(e.note, dict):
        return f"{e.note.get('file', '')}:{e.note.get('start', '')}-{e.note.get('end', '')}"
    return ""


def _conflict_view(batch: Batch, conflict: actions.Conflict, fields: dict[str, str], path: str,
                   lang: str) -> dict[str, Any]:
    theirs = [{"n": e.n, "op": e.op, "part": e.part or "", "change": _change(e), "reason": e.reason, "by": e.by,
               "at": e.at, "text": (e.note or {}).get("text", "") if isinstance(e.note, dict) else ""}
              for e in conflict.theirs]
    mine = {k: "" if v is None else str(v) for k, v in conflict.mine.items() if k not in ("lines", "hash")}
    again = {k: v for k, v in fields.items() if k not in ("csrf", "head", "heads")}
    heads = ""
    if "heads" in fields:
        heads = ",".join(f"{batch.key_of(n)}:{batch.head_of(n)}" for n in batch.reports
                         if f"{batch.key_of(n)}:" in fields["heads"])
    return {"who": batch.shown_name(conflict.name, lang), "theirs": theirs, "mine": mine, "again": again,
            "head": batch.head_of(conflict.name), "heads": heads, "action": path,
            "back": f"/s/{batch.key_of(conflict.name)}?lang={lang}"}
