"""The code in README.md and docs/ works as written.

- A block marked ``<!-- docs-test: run -->`` on the line before its fence is run, in a temporary
  directory: a python block with ``exec`` (the run blocks of one page share their names, in
  order; a line ``print(...)  # X`` must print X), a bash block command by command (``executorch-nnapi`` through its ``main`` in this
  process, as the test of the CLI does). The README's two quick starts are such blocks.
- Every other bash command is checked without running it: ``executorch-nnapi ...`` and
  ``python <script> ...`` / ``python -m <module> ...`` are parsed by their own argparse parser
  (which stops them before they do anything), ``nnapi_executor_runner`` takes only the
  flags its source reads, a repository script exists (and ``scripts/dev.sh`` knows the command),
  ``pip`` installs this project (or a package requirements-dev.txt pins), another program is the
  console script of an installed package, and every ``EXECUTORCH_NNAPI_*`` variable is read by the
  code.
- Every other python block is checked against the API it imports: each imported name exists,
  each attribute of an imported module exists, each call of an imported function or class passes
  arguments its signature takes, and a class of this project called with literal arguments is
  constructed (so that ``NnapiPartitioner(accelerator_type="npu")`` fails here too).
- Every fenced block names its language, so that no code escapes these checks as "text".
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import io
import os
import pathlib
import re
import runpy
import shlex
import subprocess
import sys
import tomllib
from typing import Any, Callable, Iterator, Optional
from unittest import mock

import pytest

from markdown_pages import DOCUMENTS, GENERATED, ROOT, CodeBlock, code_blocks

CODE_LANGUAGES = {"python", "bash"}
PAGES = [doc for doc in DOCUMENTS if doc not in GENERATED]
RUNNER_SOURCE = ROOT / "runtime" / "runner" / "nnapi_executor_runner.cpp"
SHELL_OPERATORS = {"&&", "||", ";", "|"}
REDIRECTIONS = {">", ">>", "2>", "2>>", "<", "&>"}
# Where the code that reads environment variables lives (not tests/: a test setting one proves no use).
CODE_FOLDERS = ("lowering", "partitioners", "quantizer", "runtime", "host_driver", "tools", "scripts", "examples", "bench")


def _page_id(doc: pathlib.Path) -> str:
    return str(doc.relative_to(ROOT))


# ---------------------------------------------------------------- shell commands


def shell_commands(text: str) -> list[tuple[dict[str, str], list[str]]]:
    """The simple commands of a bash block: (environment assignments, argv), redirections dropped."""
    commands = []
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        current: list[str] = []
        for word in words + [";"]:
            if word not in SHELL_OPERATORS:
                current.append(word)
                continue
            env: dict[str, str] = {}
            while current and re.match(r"[A-Za-z_]\w*=", current[0]):
                name, _, value = current.pop(0).partition("=")
                env[name] = value
            argv = []
            words_left = iter(current)
            for w in words_left:
                if w in REDIRECTIONS:
                    next(words_left, None)
                elif not re.match(r"\d?>", w):
                    argv.append(w)
            if argv or env:
                commands.append((env, argv))
            current = []
    return commands


class _Parsed(Exception):
    """Raised by the patched ``parse_args`` once the arguments are parsed: nothing else runs."""


@contextlib.contextmanager
def _parse_only() -> Iterator[io.StringIO]:
    real = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        raise _Parsed(real(self, args, namespace))

    stderr = io.StringIO()
    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_args), contextlib.redirect_stderr(stderr):
        yield stderr


def argparse_problem(run: Callable[[], Any]) -> Optional[str]:
    """Why ``run``'s argparse parser refuses its arguments, or None: ``run`` stops right after parsing."""
    with _parse_only() as stderr:
        try:
            run()
        except _Parsed:
            return None
        except SystemExit as e:
            message = stderr.getvalue().strip().splitlines()[-1:] or [str(e.code)]
            return message[0]
    return "it ran to its end without parsing arguments"


@contextlib.contextmanager
def _as_script(path: pathlib.Path, args: list[str]) -> Iterator[None]:
    """``python path args``: its folder first on sys.path, its argv; sys.path and modules restored."""
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(path.parent))
    try:
        with mock.patch.object(sys, "argv", [str(path), *args]):
            yield
    finally:
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if getattr(sys.modules[name], "__file__", None) and pathlib.Path(sys.modules[name].__file__).parent in (
                    ROOT / "bench", ROOT / "examples", ROOT / "scripts"):
                del sys.modules[name]


def _cli_problem(args: list[str]) -> Optional[str]:
    from executorch_nnapi.tools.cli import main
    return argparse_problem(lambda: main(args))


def _python_problem(args: list[str]) -> Optional[str]:
    if args[:1] == ["-m"]:
        if len(args) < 2 or importlib.util.find_spec(args[1]) is None:
            return f"no module {args[1:2]}"
        with mock.patch.object(sys, "argv", [args[1], *args[2:]]):
            return argparse_problem(lambda: runpy.run_module(args[1], run_name="__main__", alter_sys=False))
    script = ROOT / args[0]
    if not script.is_file():
        return f"no such script {args[0]}"
    with _as_script(script, args[1:]):
        return argparse_problem(lambda: runpy.run_path(str(script), run_name="__main__"))


def _runner_problem(args: list[str]) -> Optional[str]:
    known = set(re.findall(r'flag == "(--[\w-]+)"', RUNNER_SOURCE.read_text()))
    unknown = [a for a in args if a.startswith("--") and a not in known]
    return f"nnapi_executor_runner has no {', '.join(unknown)}" if unknown else None


def _script_problem(program: str, args: list[str]) -> Optional[str]:
    script = ROOT / program
    if not script.is_file() or not os.access(script, os.X_OK):
        return f"no executable script {program}"
    # A script dispatching on its first argument (`case "$cmd" in setup) ...`) must know it.
    source = script.read_text()
    commands = re.findall(r"^\s*([\w-]+)\)", source.split('case "$cmd" in', 1)[1], re.M) if 'case "$cmd" in' in source else []
    if commands and (not args or args[0] not in commands):
        return f"{program} has no command {args[:1]} (it has {', '.join(commands)})"
    return None


def _pip_problem(args: list[str]) -> Optional[str]:
    """pip builds or installs this project, or a package requirements-dev.txt pins."""
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    pinned = set(re.findall(r"^([\w.-]+)", (ROOT / "requirements-dev.txt").read_text(), re.M))
    if args[:1] == ["wheel"]:
        return None if "." in args else "pip wheel builds the checkout: its path is ."
    if args[:1] == ["install"]:
        targets = [a for a in args[1:] if not a.startswith("-")]
        wrong = [t for t in targets if not (t.split("[")[0] in {name, *pinned} or t.endswith(".whl") or t == ".")]
        return f"pip install of something else than {name} or a pinned package: {wrong}" if wrong else None
    return f"pip {args[:1]}"


def _console_script_problem(program: str) -> Optional[str]:
    """A command of an installed package (its console script), e.g. model-explorer."""
    found = importlib.metadata.entry_points(group="console_scripts", name=program)
    return None if found else f"no check for the program {program!r}: run the block or teach test_docs_code.py to check it"


@functools.cache
def _variables_read_by_the_code() -> frozenset[str]:
    names = set()
    for folder in CODE_FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".c", ".cpp", ".h", ".sh"):
                names.update(re.findall(r"EXECUTORCH_NNAPI_\w+", path.read_text(errors="replace")))
    return frozenset(names)


def command_problem(env: dict[str, str], argv: list[str]) -> Optional[str]:
    """Why the documented command ``env argv`` would not work as written, or None."""
    unknown = sorted(n for n in env if n.startswith("EXECUTORCH_NNAPI_") and n not in _variables_read_by_the_code())
    if unknown:
        return f"no code reads {', '.join(unknown)}"
    if not argv:
        return None
    program, args = argv[0], argv[1:]
    if program == "executorch-nnapi":
        return _cli_problem(args)
    if program in ("python", "python3"):
        return _python_problem(args)
    if program == "nnapi_executor_runner":
        return _runner_problem(args)
    if program == "pip":
        return _pip_problem(args)
    if "/" in program:
        return _script_problem(program, args)
    return _console_script_problem(program)


# ---------------------------------------------------------------- python blocks


def _import_bindings(tree: ast.AST) -> tuple[dict[str, Any], list[str]]:
    """The names the block's imports bind, and the imports that fail."""
    bound: dict[str, Any] = {}
    problems = []
    for node in ast.walk(tree):
        try:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    importlib.import_module(alias.name)
                    top = alias.name if alias.asname else alias.name.split(".")[0]
                    bound[alias.asname or top] = importlib.import_module(top)
            elif isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        importlib.import_module(f"{node.module}.{alias.name}")
                    bound[alias.asname or alias.name] = getattr(module, alias.name)
        except (ImportError, AttributeError) as e:
            problems.append(f"line {node.lineno}: {e}")
    return bound, problems


def _resolve(expr: ast.expr, bound: dict[str, Any]) -> Any:
    """What an imported name or a module's / class's attribute chain is; None for anything else."""
    if isinstance(expr, ast.Name):
        return bound.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _resolve(expr.value, bound)
        if inspect.ismodule(base) or inspect.isclass(base):
            if not hasattr(base, expr.attr) and inspect.ismodule(base):
                with contextlib.suppress(ImportError):
                    importlib.import_module(f"{base.__name__}.{expr.attr}")
            return getattr(base, expr.attr, _MISSING)
    return None


_MISSING = object()


def _call_problem(function: Any, call: ast.Call) -> Optional[str]:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None  # a builtin without a signature
    name = getattr(function, "__qualname__", repr(function))
    try:
        signature.bind_partial(*[None] * len(call.args), **{k.arg: None for k in call.keywords})
    except TypeError as e:
        return f"line {call.lineno}: {name}(...): {e}"
    if inspect.isclass(function) and function.__module__.startswith("executorch_nnapi."):
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except ValueError:
            return None  # not literal: constructed when the block runs
        try:
            function(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - any refusal of the documented arguments
            return f"line {call.lineno}: {name}(...): {type(e).__name__}: {e}"
    return None


def api_problems(source: str) -> list[str]:
    """What of the public API a python block uses does not exist or takes other arguments."""
    tree = ast.parse(source)
    bound, problems = _import_bindings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _resolve(node, bound) is _MISSING:
            problems.append(f"line {node.lineno}: {ast.unparse(node)} does not exist")
        elif isinstance(node, ast.Call):
            function = _resolve(node.func, bound)
            if callable(function) and function is not _MISSING:
                problem = _call_problem(function, node)
                if problem:
                    problems.append(problem)
    return problems


# ---------------------------------------------------------------- running blocks


# A printing line that shows its output: `print(torch.allclose(a, b))  # True`.
SHOWN_OUTPUT = re.compile(r"^print\(.*\)\s*#\s*(.+?)\s*$", re.M)


def run_block(block: CodeBlock, namespace: dict[str, Any]) -> None:
    """Runs ``block`` in the current directory (python: in ``namespace``; each ``print(...)  # X``
    line must print X)."""
    if block.language == "python":
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block.text, block.where, "exec"), namespace)
        lines = printed.getvalue().splitlines()
        for shown in SHOWN_OUTPUT.findall(block.text):
            assert shown in lines, f"{block.where}: printed {lines}, the page shows {shown!r}"
            lines = lines[lines.index(shown) + 1:]
        return
    from executorch_nnapi.tools.cli import main
    for env, argv in shell_commands(block.text):
        if argv[:1] == ["executorch-nnapi"] and not env:
            assert main(argv[1:]) == 0, f"{block.where}: {shlex.join(argv)}"
        else:
            path = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
            subprocess.run(shlex.join(argv), shell=True, check=True, env={**os.environ, **env, "PATH": path},
                           timeout=600)


def _blocks(doc: pathlib.Path, run: bool) -> list[CodeBlock]:
    return [b for b in code_blocks(doc) if b.language in CODE_LANGUAGES and b.run == run]


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("doc", [d for d in PAGES if _blocks(d, run=True)], ids=_page_id)
def test_marked_blocks_run(doc, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for block in _blocks(doc, run=True):
        run_block(block, namespace)


@pytest.mark.parametrize("doc", PAGES, ids=_page_id)
def test_commands_are_accepted_by_their_parsers(doc):
    problems = [f"{b.where}: {shlex.join(argv)}: {problem}"
                for b in _blocks(doc, run=False) if b.language == "bash"
                for env, argv in shell_commands(b.text)
                for problem in [command_problem(env, argv)] if problem]
    assert problems == []


@pytest.mark.parametrize("doc", PAGES, ids=_page_id)
def test_python_blocks_use_the_api_as_it_is(doc):
    problems = [f"{b.where}: {p}" for b in _blocks(doc, run=False) if b.language == "python"
                for p in api_problems(b.text)]
    assert problems == []


@pytest.mark.parametrize("doc", PAGES, ids=_page_id)
def test_every_block_names_its_language(doc):
    assert [b.where for b in code_blocks(doc) if not b.language] == []


def test_the_readme_quick_starts_are_run():
    marked = [b.language for b in code_blocks(ROOT / "README.md") if b.run]
    assert marked.count("python") >= 1 and marked.count("bash") >= 1


def test_the_readme_is_a_front_page():
    """At most ~200 lines, and no dated measurement (dated tables belong to docs/ or bench/)."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", text) == []


@pytest.mark.parametrize("doc", PAGES, ids=_page_id)
def test_no_page_dates_its_measurements(doc):
    """A page states what holds; a dated re-measurement is lab-notebook history."""
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", doc.read_text()) == []


def test_the_guide_lists_every_page():
    index = (ROOT / "docs" / "README.md").read_text()
    linked = set(re.findall(r"\]\(([\w-]+\.md)\)", index))
    assert sorted(d.name for d in (ROOT / "docs").glob("*.md") if d.name != "README.md" and d.name not in linked) == []


def test_the_checks_report_what_they_should(tmp_path):
    """Each kind of mistake is reported, and the correct forms are not."""
    good = ["executorch-nnapi export resnet18 -o r.pte --dynamic 2:h:33:512 --feature-level 29",
            "EXECUTORCH_NNAPI_HOST_FAULT=CONV_2D:1 executorch-nnapi debug m.pte --etrecord m.etrecord > log.txt",
            "nnapi_executor_runner --model m.pte --option use_burst=true",
            "python examples/export_dynamic.py --model resnet18 --size 64",
            "scripts/dev.sh test tests/lowering -k pool", "pip install executorch-nnapi", "pip wheel --no-deps -w dist .",
            "pip install ai-edge-model-explorer", "model-explorer graph.json"]
    bad = {"executorch-nnapi export resnet18 -o r.pte --no-such-flag": "unrecognized arguments: --no-such-flag",
           "executorch-nnapi export resnet18 -o r.pte --feature-level 36": "unknown NNAPI feature level 36",
           "executorch-nnapi export resnet18": "the following arguments are required: -o/--output",
           "EXECUTORCH_NNAPI_NO_SUCH_VARIABLE=1 executorch-nnapi ops": "no code reads EXECUTORCH_NNAPI_NO_SUCH_VARIABLE",
           "nnapi_executor_runner --model m.pte --threads 4": "nnapi_executor_runner has no --threads",
           "python examples/export_dynamic.py --modle resnet18": "unrecognized arguments: --modle resnet18",
           "python examples/no_such_example.py": "no such script examples/no_such_example.py",
           "scripts/dev.sh deploy": "scripts/dev.sh has no command ['deploy']",
           "pip install some-other-package": "pip install of something else",
           "make all": "no check for the program 'make'"}
    for line in good:
        assert [command_problem(env, argv) for env, argv in shell_commands(line)] == [None], line
    for line, expected in bad.items():
        [(env, argv)] = shell_commands(line)
        problem = command_problem(env, argv)
        assert problem is not None and expected in problem, (line, problem)
    assert shell_commands("a --x 1 \\\n    --y 2  # comment\nb && c | d > out.txt") == [
        ({}, ["a", "--x", "1", "--y", "2"]), ({}, ["b"]), ({}, ["c"]), ({}, ["d"])]

    assert api_problems("from executorch_nnapi.partitioners import NnapiPartitioner\n"
                        "NnapiPartitioner(feature_level=29, accelerator_type='gpu', max_cached_shapes=4)\n"
                        "NnapiPartitioner(feature_level=level)\n") == []
    problems = api_problems(
        "import executorch_nnapi.runtime\n"
        "from executorch_nnapi.partitioners import NnapiPartitioner, NoSuchName\n"
        "from executorch_nnapi.tools.export import to_nnapi_program\n"
        "from executorch_nnapi.quantizer import NnapiQuantizer\n"
        "NnapiPartitioner(accelerator_type='npu')\n"
        "to_nnapi_program(ep, cpu_methods='xnnpack')\n"
        "NnapiQuantizer(30, True, 1)\n"
        "executorch_nnapi.runtime.no_such_function()\n")
    assert len(problems) == 5, problems
    for expected in ("NoSuchName", "accelerator_type must be one of", "unexpected keyword argument 'cpu_methods'",
                     "too many positional arguments", "executorch_nnapi.runtime.no_such_function does not exist"):
        assert any(expected in p for p in problems), (expected, problems)

    namespace: dict[str, Any] = {}
    run_block(CodeBlock(tmp_path, 1, "python", "x = 2\nprint(x + 1)  # 3\nprint('ok')\n", True), namespace)
    with pytest.raises(AssertionError, match="the page shows '4'"):
        run_block(CodeBlock(tmp_path, 1, "python", "print(x + 1)  # 4\n", True), namespace)

    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- docs-test: run -->\n```python\nx = 1\n```\n\n- item:\n\n  ```\n  output\n  ```\n"
                    "\n```bash\nls\n```\n")
    blocks = code_blocks(page)
    assert [(b.line, b.language, b.run, b.text) for b in blocks] == [
        (4, "python", True, "x = 1\n"), (10, "", False, "output\n"), (14, "bash", False, "ls\n")]
