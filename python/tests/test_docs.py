"""Docs that cannot go stale: every repository path a document names exists, and every command a
README shows answers its --help.

Paths are read from the Markdown outside results/ (README.md, docs/, the studies' READMEs; the
committed results and their notes keep the paths of the revision that made them) and from the opening comment of every source file (its leading comment lines or docstring; every
comment line of a CMake file). A path is a word that starts with one of the checkout's top-level
folders (`src/kps/scan.hpp`, `results/h100-cuda/`), an installed include path (`kps/scan.hpp`:
src/kps/scan.hpp) or a Markdown link's target (relative to its file). Placeholders match anything:
`<machine>`, an upper-case word (`NAME`), `*`; a path cut by `...` is checked up to there. Outputs
of the commands (build/, results/local/) are not the repository's. A path exists when a commit of
the working tree would hold it: a file git tracks or would track (not ignored), or a folder of one.

Commands are the lines of the sh code blocks of README.md, docs/ and the studies' READMEs whose
program is `./kps` (or an installed `kps`) or a script of the checkout that takes --help: each
(program, subcommand) runs once with --help and must exit 0."""
import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import ROOT, kps_env

OUTPUTS = ("build/", "results/local")  # what the commands write: not the repository's
DOCS = ("README.md", "docs/", "studies/")
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cuh", ".py", ".sh", ".cmake", ".in", ".sbatch", ".yaml", ".txt", ".table"}
CODE_FENCE = re.compile(r"^```(\w*)\s*$")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@lru_cache(maxsize=None)
def tree(root: Path) -> tuple:
    """(files, folders) a commit of root's working tree would hold, as POSIX paths relative to it."""
    git = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True) if shutil.which("git") else None
    if not git or git.returncode:
        pytest.skip("not a git checkout (a copy of the files, as spack builds): what a commit holds is unknown")
    listed = git.stdout.split("\0")
    files = {f for f in listed if f and (root / f).is_file()}
    folders = {str(p) for f in files for p in Path(f).parents if str(p) != "."}
    return frozenset(files), frozenset(folders)


def _tops(root: Path) -> list:
    _, folders = tree(root)
    return sorted({f.split("/", 1)[0] for f in folders if "/" not in f})


@lru_cache(maxsize=None)
def _path_word(tops: tuple):
    tops = "|".join(re.escape(t) for t in tops)
    return re.compile(rf"(?<![\w./$~@-])(?:\./)?((?:{tops})/[^\s`'\"()\[\],;|]*|(?:kps|kps_models)/[\w/.-]+\.h(?:pp)?)")


def _pattern(word: str):
    """A path word as a glob relative to the checkout, None for an output or nothing left."""
    word = word.split("#")[0].split("...")[0].split("…")[0].rstrip(".:,")
    word = re.sub(r"<[^>]*>", "*", word)
    word = "/".join("*" if re.fullmatch(r"[A-Z][A-Z_]*", part) else part for part in word.split("/"))
    if re.match(r"(kps|kps_models)/", word):
        word = "src/" + word
    word = word.rstrip("/")
    if not word or word.startswith(OUTPUTS) or word + "/" in OUTPUTS:
        return None
    return word


def exists(root: Path, pattern: str) -> bool:
    files, folders = tree(root)
    if not any(c in pattern for c in "*?["):
        return pattern in files or pattern in folders
    return any(fnmatch.fnmatchcase(p, pattern) for p in files | folders)


def _markdown_lines(text: str):
    """(line number, text, in a code block) of a Markdown document."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = CODE_FENCE.match(line.strip())
        if m:
            fence = None if fence is not None else m.group(1)
            continue
        yield n, line, fence


def _opening_comment(path: Path, text: str):
    """(line number, text) of a source file's opening comment; every comment line of a CMake file."""
    lines = text.splitlines()
    if path.name == "CMakeLists.txt" or path.suffix == ".cmake":
        yield from ((n, l) for n, l in enumerate(lines, 1) if l.lstrip().startswith("#"))
        return
    n = 0
    if lines and lines[0].startswith("#!"):
        n = 1
    if path.suffix == ".py" and n < len(lines) and lines[n].lstrip().startswith(('"""', "'''")):
        quote = lines[n].lstrip()[:3]
        for k in range(n, len(lines)):
            yield k + 1, lines[k]
            if quote in (lines[k].lstrip()[3:] if k == n else lines[k]):
                return
        return
    in_block = False
    for k in range(n, len(lines)):
        s = lines[k].strip()
        if in_block or s.startswith("/*"):
            in_block = "*/" not in s
        elif not s.startswith(("//", "#")) or (s.startswith("#") and path.suffix in (".hpp", ".cpp", ".h", ".cuh")):
            return
        yield k + 1, lines[k]


def documents(root: Path) -> list:
    files, _ = tree(root)
    return sorted(f for f in files if f.endswith(".md") and f.startswith(DOCS))


def sources(root: Path) -> list:
    files, _ = tree(root)
    out = []
    for f in sorted(files):
        p = Path(f)
        if f.startswith(("results/", "test/data/")) or f.endswith(".md"):
            continue
        if p.suffix in SOURCE_SUFFIXES or p.name == "CMakeLists.txt" or (p.suffix == "" and _has_shebang(root / f)):
            out.append(f)
    return out


def _has_shebang(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"#!"
    except OSError:
        return False


def dead_paths(root: Path) -> list:
    """'file:line: path' for every path a document or an opening comment names that does not exist."""
    word = _path_word(tuple(_tops(root)))
    dead = []

    def check(name, n, line, base):
        found = [w for w in word.findall(line) if _pattern(w) and not exists(root, _pattern(w))]
        for target in LINK.findall(line) if base is not None else ():
            target = target.split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            rel = os.path.normpath(os.path.join(base, target))
            if not rel.startswith("..") and not rel.startswith(OUTPUTS) and not exists(root, rel):
                found.append(target)
        dead.extend(f"{name}:{n}: {w}" for w in dict.fromkeys(found))

    for name in documents(root):
        text = (root / name).read_text(encoding="utf-8")
        for n, line, _ in _markdown_lines(text):
            check(name, n, line, os.path.dirname(name))
    for name in sources(root):
        text = (root / name).read_text(encoding="utf-8", errors="replace")
        for n, line in _opening_comment(Path(name), text):
            check(name, n, line, None)
    return dead


# --- commands -------------------------------------------------------------------------------------

def _shell_lines(text: str):
    """(line number, command) of the sh code blocks, continuation lines joined."""
    pending, start = "", 0
    for n, line, fence in _markdown_lines(text):
        if fence not in ("sh", "bash", "shell", "console"):
            continue
        code = line.split(" #")[0].rstrip() if not line.lstrip().startswith("#") else ""
        if not pending:
            start = n
        if code.endswith("\\"):
            pending += code[:-1] + " "
            continue
        if (pending + code).strip():
            yield start, (pending + code).strip()
        pending = ""


def _program(root: Path, command: str):
    """(argv of its --help, the name to report) for a command of the checkout, None for others."""
    try:
        words = shlex.split(command.replace("$(", "").replace(")", ""))
    except ValueError:
        return None
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", words[0]):
        words.pop(0)  # VAR=value before the program
    if not words:
        return None
    prog, rest = words[0], words[1:]
    sub = [rest[0]] if rest and not rest[0].startswith("-") else []
    if prog in ("./kps", "kps"):
        return [str(root / "kps") if prog == "./kps" else "kps", *sub, "--help"], " ".join([prog, *sub])
    if "/" not in prog or prog.startswith(("/", "build/", "$")):
        return None
    path = root / prog
    files, _ = tree(root)
    if prog.lstrip("./") not in files or not os.access(path, os.X_OK):
        return None
    if "--help" not in path.read_text(encoding="utf-8", errors="replace"):
        return None  # a script without options (test/gpu_suite.sh BUILD OUT): it exists, that is all
    return [str(path), "--help"], prog


def readme_commands(root: Path) -> dict:
    """{(program, subcommand): [where it is shown]} of every README and docs page."""
    found = {}
    for name in documents(root):
        for n, command in _shell_lines((root / name).read_text(encoding="utf-8")):
            got = _program(root, command)
            if got:
                argv, shown = got
                found.setdefault((tuple(argv), shown), []).append(f"{name}:{n}")
    return found


def failing_helps(root: Path, shown_only=None) -> list:
    """'where: why' for every README command (or those shown as `shown_only`) whose --help fails."""
    failed = []
    for (argv, shown), where in sorted(readme_commands(root).items()):
        if shown_only and shown != shown_only:
            continue
        if argv[0] == "kps":  # the installed command: the package's own entry point
            argv = (sys.executable, "-m", "kps_report", *argv[1:])
            env = kps_env()
        else:
            env = {k: v for k, v in os.environ.items() if k != "KPS_PROG"}
        p = subprocess.run(list(argv), capture_output=True, text=True, cwd=root, env=env, timeout=120)
        if p.returncode != 0 or not p.stdout.strip():
            why = (p.stderr.strip().splitlines() or ["no output"])[-1]
            failed.append(f"{where[0]}: `{shown} --help` exits {p.returncode}: {why}")
    return failed


# --- the tests ------------------------------------------------------------------------------------

def test_every_path_named_exists():
    assert dead_paths(ROOT) == []


def test_every_readme_command_answers_help():
    commands = readme_commands(ROOT)
    assert any(shown == "./kps test" for _, shown in commands), "README.md shows no `./kps test`"
    assert failing_helps(ROOT) == []


@pytest.fixture
def copy(tmp_path):
    """A copy of the checkout to plant mistakes in: README.md, src/ and the kps script copied, the
    rest linked."""
    dst = tmp_path / "checkout"
    dst.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in ("README.md", "src", "kps"):
            (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, dst / entry.name)
        elif entry.name != ".git":
            (dst / entry.name).symlink_to(entry)
    return dst


def test_a_planted_dead_path_is_found(copy):
    readme = copy / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nSee `src/kps/no_such_scan.hpp` and"
                      " [the notes](docs/no-such-page.md).\n", encoding="utf-8")
    header = copy / "src" / "kps" / "scan.hpp"
    header.write_text("// moved from kps/no_such_header.hpp\n" + header.read_text(encoding="utf-8"), encoding="utf-8")
    lines = readme.read_text(encoding="utf-8").count("\n")
    assert dead_paths(copy) == [f"README.md:{lines}: src/kps/no_such_scan.hpp",
                                f"README.md:{lines}: docs/no-such-page.md",
                                "src/kps/scan.hpp:1: kps/no_such_header.hpp"]


def test_a_planted_failing_command_is_found(copy):
    readme = copy / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\n```sh\n./kps frobnicate --fast\n```\n",
                      encoding="utf-8")
    failed = failing_helps(copy, "./kps frobnicate")
    assert len(failed) == 1 and failed[0].startswith("README.md:"), failed
    assert "`./kps frobnicate --help` exits 2" in failed[0] and "unknown command 'frobnicate'" in failed[0]
