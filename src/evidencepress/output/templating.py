"""The Jinja environment of a site's templates: every way a template can fail is a TemplateError.

Jinja raises TemplateError for what it checks (syntax, an undefined variable),
but a template that includes, extends or calls itself without end raises
RecursionError, ``{{ 1 // 0 }}`` ZeroDivisionError, and a template that is not
UTF-8 UnicodeDecodeError. Here each becomes a TemplateRuntimeError or
TemplateSyntaxError carrying the template's frames, so the build reports it at
the template's line (``article.template_problem``) instead of a traceback.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache


class GuardedTemplate(jinja2.Template):
    def render(self, *args: Any, **kwargs: Any) -> str:
        with _guarded():
            return super().render(*args, **kwargs)


_PIECES_AT_ONCE = 4096


def render_utf8(template: jinja2.Template, *args: Any, **kwargs: Any) -> bytes:
    """``template.render(...).encode("utf-8")``, encoded as it is made, failing as ``render`` does:
    the pieces Jinja makes a page from took four times the page (a record page of 26,000 results
    is 24 MB)."""
    out = io.BytesIO()
    batch: list[str] = []
    with _guarded():
        for piece in template.generate(*args, **kwargs):
            batch.append(piece)
            if len(batch) == _PIECES_AT_ONCE:
                out.write("".join(batch).encode("utf-8"))
                batch.clear()
    out.write("".join(batch).encode("utf-8"))
    return out.getvalue()


@contextlib.contextmanager
def _guarded() -> Iterator[None]:
    """What a template raises besides a TemplateError, made one."""
    try:
        yield
    except RecursionError as exc:
        failure = _runtime("the template includes, extends or calls itself without end", exc,
                           "an include, extends or macro call at this line leads back to itself: break the loop")
        failure.loop = True  # type: ignore[attr-defined]  # the line is the loop's first, not where it ran out
        raise failure from None
    except ArithmeticError as exc:
        raise _runtime(f"arithmetic in the template failed: {exc}", exc,
                       "templates show the export's values; they compute nothing from them") from None


def _runtime(message: str, exc: BaseException, hint: str) -> jinja2.TemplateRuntimeError:
    failure = jinja2.TemplateRuntimeError(message)
    failure.hint = hint  # type: ignore[attr-defined]  # read by article.template_problem
    return failure.with_traceback(exc.__traceback__)


class TextLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader whose template that is not UTF-8 is a syntax error at its first bad byte."""

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str, Callable[[], bool]]:
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError as exc:
            path = next((Path(folder) / template for folder in self.searchpath
                         if (Path(folder) / template).is_file()), Path(template))
            line = exc.object[:exc.start].count(b"\n") + 1
            failure = jinja2.TemplateSyntaxError(
                f"the template is not UTF-8 text: byte 0x{exc.object[exc.start]:02x} cannot be decoded",
                line, template, str(path))
            failure.hint = "save the template as UTF-8 text"  # type: ignore[attr-defined]
            raise failure from None


class MemoryBytecode(jinja2.BytecodeCache):
    """Compiled templates kept in this process by template name, file and source checksum (Jinja
    compiles again when the checksum differs). A dev server makes an environment per rebuild, and
    compiling the site's templates each time was 0.05 s of a rebuild."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


def guarded_environment(folders: list[str], **options: Any) -> jinja2.Environment:
    env = jinja2.Environment(loader=TextLoader(folders), **options)
    env.template_class = GuardedTemplate
    return env
