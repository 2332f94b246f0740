"""`--fix` keeps a file what it was: its line endings, the file a symlink leads to (within the
linted paths and the project only), hard links, owner, mode and extended attributes; it leaves
read-only files alone, and files an editor saved while it ran; a write that fails (read-only
directory, full disk) leaves the file intact with a message and exit 2."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess

import pytest

from cursedlint import engine

from cursedlint.engine import fixes
from cursedlint.cli import main

# CUR101's unsafe fix resolves "ls" with shutil.which and inserts an `import shutil` line.
LINES = ["import subprocess", 'subprocess.run(["ls"], close_fds=False)', ""]
FIXED_LINES = ["import shutil", "import subprocess",
               'subprocess.run([shutil.which("ls")], close_fds=False)', ""]
ORIGINAL = "\n".join(LINES).encode()
FIXED = "\n".join(FIXED_LINES).encode()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project whose configuration (its root) targets Python 3.8, where the call forks."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "cursedlint.toml").write_text('target-python = "3.8"\n')
    monkeypatch.chdir(root)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return root


def fix(capsys, *paths: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", "--fix", "--unsafe-fixes", *(paths or ["."])])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def backups(directory) -> list[str]:
    return [name for name in os.listdir(directory) if name.startswith(".cursedlint-fix-")]


# -- line endings ------------------------------------------------------------------------------
@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"], ids=["crlf", "cr", "lf"])
def test_inserted_lines_end_as_the_file_does(project, capsys, newline):
    path = project / "launch.py"
    path.write_bytes(newline.join(LINES).encode())
    code, _, err = fix(capsys)
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert path.read_bytes() == newline.join(FIXED_LINES).encode()


def test_line_ending_is_the_first_lines():
    assert fixes.line_ending("a\r\nb\nc\r") == "\r\n"
    assert fixes.line_ending("a\rb\r\n") == "\r"
    assert fixes.line_ending("no line break") == "\n"


# -- symlinks ----------------------------------------------------------------------------------
def test_a_symlink_inside_the_project_has_its_target_fixed(project, capsys):
    (project / "shared").mkdir()
    target = project / "shared" / "launch.py"
    target.write_bytes(ORIGINAL)
    (project / "src").mkdir()
    link = project / "src" / "launch.py"
    link.symlink_to(os.path.join("..", "shared", "launch.py"))

    code, out, err = fix(capsys, "src")  # the target lies outside the linted path, in the project
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err and "CUR101" not in out
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "shared", "launch.py")
    assert target.read_bytes() == FIXED
    assert backups(project / "shared") == []


def test_a_symlink_and_its_target_both_linted_are_fixed_once(project, capsys):
    target = project / "target.py"
    target.write_bytes(ORIGINAL)
    (project / "link.py").symlink_to("target.py")
    code, out, err = fix(capsys)
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err and out.startswith("All checks")
    assert (project / "link.py").is_symlink() and target.read_bytes() == FIXED


@pytest.mark.parametrize("named", ["outside.py", "."])
def test_a_symlink_leading_out_of_the_project_is_left_alone(project, capsys, named):
    outside = project.parent / "elsewhere.py"
    outside.write_bytes(ORIGINAL)
    (project / "outside.py").symlink_to(outside)

    code, out, err = fix(capsys, named)  # named on the command line (as pre-commit does) too
    assert code == 1 and "outside.py:2:1: CUR101" in out
    assert (
        f"outside.py: fixes not written: it leads through a symlink to {outside}, outside the "
        "linted paths and the project; cursedlint writes nothing there"
    ) in err
    assert "cursedlint: fixed" not in err
    assert (project / "outside.py").is_symlink() and outside.read_bytes() == ORIGINAL


# -- the file's identity -----------------------------------------------------------------------
def test_hard_links_stay_one_file(project, capsys):
    first, second = project / "hard.py", project / "hard2.py"
    first.write_bytes(ORIGINAL)
    os.link(first, second)
    inode = first.stat().st_ino

    code, out, err = fix(capsys)
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err and out.startswith("All checks")
    for path in (first, second):
        assert path.stat().st_ino == inode and path.stat().st_nlink == 2
        assert path.read_bytes() == FIXED


def test_other_names_of_a_file_wait_for_its_fix_in_parallel_runs(project, capsys, monkeypatch):
    monkeypatch.setattr(engine.scheduler, "PARALLEL_MIN_BYTES", 0)  # fork workers even for small files
    for index in range(12):
        path = project / f"module_{index:02}.py"
        path.write_bytes(ORIGINAL)
        os.link(path, project / f"other_{index:02}.py")
        (project / f"zlink_{index:02}.py").symlink_to(path.name)

    code, out, err = fix(capsys, ".", "--jobs", "4")
    assert code == 0 and "fixed 12 problem(s) in 12 file(s)" in err and out.startswith("All checks")
    for index in range(12):
        path = project / f"module_{index:02}.py"
        assert path.read_bytes() == FIXED and path.stat().st_nlink == 2


def test_inode_mode_and_extended_attributes_are_kept(project, capsys):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    path.chmod(0o640)
    try:
        os.setxattr(path, "user.origin", b"generated by build.sh")
    except (AttributeError, OSError):
        pytest.skip("no user extended attributes on this file system")
    inode = path.stat().st_ino

    assert fix(capsys)[0] == 0
    assert path.read_bytes() == FIXED
    assert path.stat().st_ino == inode and path.stat().st_mode & 0o7777 == 0o640
    assert os.getxattr(path, "user.origin") == b"generated by build.sh"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_owner_and_group_are_kept(project, capsys):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    os.chown(path, 65534, 65534)
    assert fix(capsys)[0] == 0
    assert path.read_bytes() == FIXED
    assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)


# -- files that are not written ----------------------------------------------------------------
def test_a_read_only_file_is_not_written_even_by_root(project, capsys):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    path.chmod(0o444)
    code, out, err = fix(capsys)
    assert code == 1 and "launch.py:2:1: CUR101" in out  # the finding stays reported
    assert (
        "launch.py: fixes not written: the file is read-only (mode 0444); make it writable "
        "(chmod u+w) to have them applied"
    ) in err
    assert path.read_bytes() == ORIGINAL and path.stat().st_mode & 0o777 == 0o444


# -- an editor saves the file while --fix runs -------------------------------------------------
USER_EDIT = b"USER_EDIT = 'saved by the editor while the fix ran'\n"


def editor_saves(monkeypatch, path, save) -> None:
    """`save(path)` runs once, while `--fix` writes its first backup copy of the file (its
    flush to disk is the slowest step between reading the file and overwriting it)."""
    write_backup = fixes._write_backup
    saves = [save]

    def saving_meanwhile(target, original):
        backup = write_backup(target, original)
        while saves:
            saves.pop()(path)
        return backup

    monkeypatch.setattr(fixes, "_write_backup", saving_meanwhile)


def append_edit(path) -> None:
    with open(path, "ab") as handle:
        handle.write(USER_EDIT)


def save_by_rename(path) -> None:
    """Save as editors that write a new file and rename it over the old one do (here with the
    same content: only the file the name leads to has changed)."""
    new = path.with_name(path.name + ".new")
    new.write_bytes(path.read_bytes())
    os.replace(new, path)


@pytest.mark.parametrize("save", [append_edit, save_by_rename])
def test_a_file_saved_while_the_fix_runs_keeps_what_was_saved(project, capsys, monkeypatch, save):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    editor_saves(monkeypatch, path, save)
    code, out, err = fix(capsys)
    assert code == 1 and "launch.py:2:1: CUR101" in out
    assert ("launch.py: fixes not written: the file changed since cursedlint read it; run "
            "cursedlint again to fix it") in err
    assert "cursedlint: fixed" not in err
    expected = ORIGINAL + USER_EDIT if save is append_edit else ORIGINAL
    assert path.read_bytes() == expected and backups(project) == []

    code, _, err = fix(capsys)  # the next run fixes what was saved
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert path.read_bytes() == FIXED + (USER_EDIT if save is append_edit else b"")


def immutable(path) -> bool:
    """Set the immutable attribute (not even root may change or add to the file or directory)
    where this machine lets chattr do it."""
    chattr = shutil.which("chattr")
    return bool(chattr) and subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode == 0


def mutable(path) -> None:
    subprocess.run([shutil.which("chattr"), "-i", str(path)], check=True)


def test_a_file_this_user_may_not_write_is_not_written(project, capsys):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    if not immutable(path):
        pytest.skip("chattr cannot make a file immutable here")
    try:
        code, out, err = fix(capsys)
    finally:
        mutable(path)
    assert code == 1 and "launch.py:2:1: CUR101" in out
    assert "launch.py: fixes not written: this user may not write the file: Operation not permitted" in err
    assert path.read_bytes() == ORIGINAL and backups(project) == []


@pytest.fixture
def read_only_directory(project):
    """`project/locked`, in which no file can be created: by its mode, or for root (whom the
    mode does not stop) by the immutable attribute."""
    directory = project / "locked"
    directory.mkdir()
    (directory / "launch.py").write_bytes(ORIGINAL)
    directory.chmod(0o555)
    as_root = os.access(directory, os.W_OK)
    if as_root and not immutable(directory):
        directory.chmod(0o755)
        pytest.skip("running as root where chattr cannot make a directory immutable")
    yield directory
    if as_root:
        mutable(directory)
    directory.chmod(0o755)


def test_a_read_only_directory_is_a_clear_error(read_only_directory, capsys):
    path = read_only_directory / "launch.py"
    code, out, err = fix(capsys, "locked")
    assert code == 2 and "launch.py:2:1: CUR101" in out
    assert f"locked/launch.py: fixes not written: cannot create a backup copy in {read_only_directory}: " in err
    assert "; the file is unchanged" in err and "Traceback" not in err
    assert "cursedlint: error: the fixes of 1 file(s) could not be written" in err
    assert path.read_bytes() == ORIGINAL


# -- a full disk -------------------------------------------------------------------------------
class FullDisk:
    """os.write on a file system with `free` bytes left: a write beyond a file's end takes
    them; a write they cannot hold writes what fits (a short write), then fails with ENOSPC."""

    def __init__(self, free: int):
        self.free = free
        self.write = os.write

    def __call__(self, descriptor: int, data) -> int:
        offset = os.lseek(descriptor, 0, os.SEEK_CUR)
        growth = max(offset + len(data) - max(os.fstat(descriptor).st_size, offset), 0)
        fits = len(data) - max(growth - self.free, 0)
        if not fits:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.free -= min(growth, self.free)
        return self.write(descriptor, data[:fits])


@pytest.mark.parametrize("free", [0, len(ORIGINAL)], ids=["no-room", "room-for-the-backup"])
def test_a_full_disk_leaves_the_file_intact(project, capsys, monkeypatch, free):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    inode = path.stat().st_ino
    monkeypatch.setattr(os, "write", FullDisk(free))
    code, out, err = fix(capsys)
    monkeypatch.undo()
    assert code == 2 and "launch.py:2:1: CUR101" in out and "Traceback" not in err
    reason = (
        f"cannot write a backup copy in {project}: No space left on device" if free == 0
        else "writing it failed: No space left on device"
    )
    assert f"launch.py: fixes not written: {reason}; the file is unchanged" in err
    assert "cursedlint: error: the fixes of 1 file(s) could not be written" in err
    assert path.read_bytes() == ORIGINAL and path.stat().st_ino == inode
    assert backups(project) == []


def test_when_even_restoring_fails_the_backup_keeps_the_original(project, capsys, monkeypatch):
    path = project / "launch.py"
    path.write_bytes(ORIGINAL)
    inode = path.stat().st_ino
    write = os.write

    def failing_disk(descriptor, data):
        """Writes to the linted file stop after its first few bytes (an I/O error)."""
        if os.fstat(descriptor).st_ino == inode and os.lseek(descriptor, 0, os.SEEK_CUR):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return write(descriptor, data[:5] if os.fstat(descriptor).st_ino == inode else data)

    monkeypatch.setattr(os, "write", failing_disk)
    code, _, err = fix(capsys)
    monkeypatch.undo()
    [backup] = backups(project)
    assert code == 2
    assert (
        "launch.py: fixes not written: writing it failed: Input/output error, and so did "
        f"restoring its content: the original is kept in {project / backup}"
    ) in err
    assert (project / backup).read_bytes() == ORIGINAL
