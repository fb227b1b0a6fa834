"""Commands that looked read-only but change files (PRODUCT.md §11: a command
judged read-only runs without approval and without a snapshot, so what it
changes cannot be rolled back). Each case is run for real with bash (which
is ``/bin/sh`` on macOS) in a folder of its own, to show that it does write
the file, and must be judged as needing approval; look-alikes that only read
must stay read-only."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from mira_desktop.services.agent.commands import mutation_reason

#: (command, the file it creates when run; None: not run here)
BYPASSES: list[tuple[str, str | None]] = [
    # bash evaluates arithmetic, array indexes and prompts (item: $((…)) and kin)
    ("echo $(( $(touch p) 0 ))", "p"),
    ("x='a[$(touch p)]'; echo $((x))", "p"),
    ("x='a[$(touch p)]'; echo $(( x + 1 ))", "p"),
    ("x='a[$(touch p)]'; echo $[x]", "p"),
    ("x='a[$(touch p)]'; [[ $x -eq 1 ]]", "p"),
    ("x='a[$(touch p)]'; [[ 1 -lt x ]]", "p"),
    ("test -v 'a[$(touch p)]'", "p"),
    ("[ -v 'a[$(touch p)]' ]", "p"),
    ("x='a[$(touch p)]'; [[ -v $x ]]", "p"),
    ("printf -v 'a[$(touch p)]' x", "p"),
    ("read 'a[$(touch p)]' < /dev/null", "p"),
    ("x='$(touch p)'; echo ${x@P}", "p"),
    ("x='$(touch p)'; echo \"${x@P}\"", "p"),
    ("x='a[$(touch p)]'; echo ${!x}", "p"),
    ("x='a[$(touch p)]'; y=abc; echo ${y:x}", "p"),
    ("i='b[$(touch p)]'; echo ${a[i]}", "p"),
    ("i='b[$(touch p)]'; echo \"${a[$i]}\"", "p"),
    ("x='a[$(touch p)]'; set -- a b; echo ${@:x}", "p"),
    # env's options clustered or abbreviated (item: env -S)
    ("env -S'touch p'", "p"),
    ("env -iS'/usr/bin/touch p'", "p"),
    ("env -iu ls touch p", "p"),
    ("env --split-str='touch p'", "p"),
    ("env -vS'touch p'", "p"),
    # sed: a w/e flag after another flag, scripts and in-place options however written
    ("sed 's/a/b/gw p' in.txt", "p"),
    ("sed 's/.*/touch p/ge' in.txt", "p"),
    ("sed 's/a/b/pw p' in.txt", "p"),
    ("sed 's/A/b/Iw p' in.txt", "p"),
    ("sed -e's/a/b/w p' in.txt", "p"),
    ("sed -ne's/a/b/w p' in.txt", "p"),
    ("sed -I '' s/a/b/ f", None),  # BSD sed's in-place option
    ("sed --in-pl s/a/b/ in.txt", None),
    ("sed -fscript.sed in.txt", None),
    ("sed --fi=script.sed in.txt", None),
    # tar: only a plain listing reads only
    ("tar tf a.tar --checkpoint=1 --checkpoint-action=exec='touch p'", "p"),
    ("tar -tf a.tar --use-comp='sh -c \"touch p\"'", "p"),
    ("TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=touch\\ p' tar tf a.tar", "p"),
    ("tar tf a.tar --to-command=./x", None),
    ("tar -tf a.tar -F ./x -M", None),
    ("tar -tf a.tar --info-script=./x", None),
    ("tar -tf a.tar --new-volume-script=./x", None),
    ("tar -tf a.tar --rsh-command=./x", None),
    ("tar -tf a.tar --index-file=out.txt", None),
    ("tar tf host:a.tar", None),
    # unzip: -q is not a listing
    ("unzip -q a.zip", "z.txt"),
    ("unzip -qq a.zip", "z.txt"),
    # git: options of read-only subcommands that run programs or write
    ("git ls-remote --upload-pack='touch p; false' .", "p"),
    ("git ls-remote --upl='touch p; false' .", "p"),
    ("git grep --open-f='touch p;' a", "p"),
    ("git grep -nO'touch p;' a", "p"),
    ("git cat-file --filt HEAD:in.txt", None),
    ("git diff --ext-diff", None),
    ("git log -p --ext-diff", None),
    ("git grep --textconv a", None),
    ("git help -w log", None),
    ("git config --remove-sect core", None),
    ("git config --ed", None),
    ("git config edit", None),
    ("git branch --edit-d", None),
    ("git branch --unset-u", None),
    ("git branch --set-u=origin/main", None),
    ("git branch -vuorigin/main", None),
    ("git reflog write HEAD old new msg", None),
    # sort, tree, date: options in clusters and abbreviated
    ("sort -uo p in.txt", "p"),
    ("sort -uop in.txt", "p"),
    ("sort --outp=p in.txt", "p"),
    ("sort --compress-program=./x in.txt", None),
    ("sort --compress-prog=./x in.txt", None),
    ("tree -ao p", None),
    ("tree -R -H . -L 1", None),
    ("date -us '2020-01-01'", None),
    # awk: program text attached to options, files, output in any form
    ('awk \'{ print "}" > "p" }\' in.txt', "p"),
    ('awk \'BEGIN { printf ";" > "p" }\'', "p"),
    ("awk -W exec prog.awk", "p"),
    ("gawk -e'BEGIN{system(\"touch p\")}'", None),
    ("gawk --so='BEGIN{system(\"touch p\")}'", None),
    ("gawk -o p '{print}' in.txt", None),
    ("gawk -p '{print}' in.txt", None),
    ("gawk -d '{print}' in.txt", None),
    ("gawk -l ./evil.so '{print}' in.txt", None),
    ("gawk '@load \"./evil\"; {print}' in.txt", None),
    ("gawk '@include \"prog.awk\"'", None),
    ('gawk \'BEGIN { f = "sys" "tem"; @f("touch p") }\'', None),
]

#: read-only commands that look like the bypasses
LOOK_ALIKES = [
    "echo $((1 + 2))",
    "echo $(( (4 * 2) % 3 ))",
    "echo $[1+1]",
    "[[ 1 -eq 1 ]] && echo yes",
    "[[ $x == y ]] && echo same",
    "[[ -f a.txt ]]",
    "[[ -v HOME ]]",
    "test -v HOME",
    '[ "$x" -eq 1 ]',
    "test $n -gt 3",
    "printf -v out '%s' x",
    "printf '%d\\n' 5",
    "printf -- '-v %s' x",
    "read -r line < list.txt",
    "read -a parts -d , < list.txt",
    "echo ${HOME} ${x:-default} ${x:=1} ${#x} ${x#pre} ${x%%.*} ${x/a/b} ${x^^}",
    'echo "${x:-$HOME}" ${x:0:2} ${x: -1} ${a[0]} ${a[@]} ${#a[@]} ${x@Q}',
    "echo ${!prefix*} ${!a[@]} $#",
    "echo '${x@P}' '$((x))'",
    "env -i ls",
    "env -u HOME -i ls",
    "env - LC_ALL=C ls",
    "nice -10 ls",
    "timeout -sKILL 5 ls",
    "command -v ls",
    "sed -n 1,5p f",
    "sed 's/hello/world/g' f",
    "sed -E 's/(a|b)+/[&]/g' f",
    "sed ':a;N;$!ba;s/\\n/ /g' f",
    "sed -n '/start/,/end/{p}' f",
    "sed '/^#/d;s/x/y/2g' f",
    "sed '$a end; w x' f",
    "sed -n '/a/I,+2p' f",
    "sed y/abc/xyz/ f",
    "sed -l 5 s/a/b/ f",
    "sed 'r other.txt' f",
    "sed -s -n '$p' a b",
    "tar tf a.tar",
    "tar tzvf a.tgz",
    "tar -tvf a.tar src/",
    "tar --list --file=a.tar --wildcards '*.py'",
    "unzip -l a.zip",
    "unzip -lq a.zip",
    "unzip -t a.zip",
    "unzip -p a.zip f.txt",
    "unzip -v a.zip",
    "unzip -Z -1 a.zip",
    "git log --oneline -n 5",
    "git log -p --output-indicator-new=+",
    "git ls-remote --tags origin",
    "git ls-remote -q --exit-code .",
    "git grep --text -n foo",
    "git diff --text --no-ext-diff",
    "git rev-list --filter=blob:none HEAD",
    "git cat-file -p HEAD",
    "git help log",
    "git branch --column=always",
    "git branch -a -vv --contains abc",
    "git tag -n5",
    "git config --list --show-origin",
    "git reflog -n 5",
    "sort -t, -k2 -rn f",
    "sort -to f",
    "sort --check=quiet f",
    "tree -L 2 -a",
    "date -u +%s",
    "uniq -c -f 1 in.txt",
    "awk '{print $1}' f",
    "awk -F, '$3 > 100 {print $1}' data.csv",
    "awk -v n=2 'NR > n { s += $2 } END { print s }' f",
    "awk 'length($0) > 80' f",
    "gawk --lint=fatal -- '{print}' f",
]


def make_inputs(folder: Path) -> None:
    """What the cases read: a text file, an awk program, a tar and a zip
    archive, a git repository holding the text file."""
    (folder / "in.txt").write_text("a\nb\n")
    with tarfile.open(folder / "a.tar", "w") as archive:
        archive.add(folder / "in.txt", "in.txt")
    (folder / "prog.awk").write_text('BEGIN { system("touch p") }\n')
    with zipfile.ZipFile(folder / "a.zip", "w") as archive:
        archive.writestr("z.txt", "zipped\n")
    if shutil.which("git"):
        for command in (["git", "init", "-q"], ["git", "add", "in.txt"]):
            subprocess.run(command, cwd=folder, capture_output=True, check=True)


@pytest.mark.parametrize(("command", "creates"), BYPASSES)
def test_bypasses_need_approval(tmp_path: Path, command: str, creates: str | None) -> None:
    reason = mutation_reason(command)
    if creates is not None and shutil.which("bash"):
        make_inputs(tmp_path)
        subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
        assert (tmp_path / creates).exists(), "the case no longer writes: fix the test"
    assert reason is not None


@pytest.mark.parametrize("command", LOOK_ALIKES)
def test_look_alikes_stay_read_only(command: str) -> None:
    assert mutation_reason(command) is None


#: commands for cmd.exe (Windows) that look read-only to a POSIX shell
CMD_BYPASSES = [
    "echo ' & del important.txt & '",  # single quotes do not quote
    "echo hi #& del x",  # "#" starts no comment
    "echo # & del x",
    'echo "%x%"',  # expanded inside quotes, before the line is read
    "echo !x!",
    "del=x ls",  # "=" ends the command's name: del runs
]
CMD_LOOK_ALIKES = ["git status", 'echo "a & b | c"', "type README.md", "git log --oneline -n 5"]


@pytest.mark.parametrize("command", CMD_BYPASSES)
def test_cmd_exe_commands_are_judged_by_cmd_exe_rules(command: str) -> None:
    assert mutation_reason(command, platform="win32") is not None


@pytest.mark.parametrize("command", CMD_LOOK_ALIKES)
def test_cmd_exe_look_alikes_stay_read_only(command: str) -> None:
    assert mutation_reason(command, platform="win32") is None


def test_a_program_reached_through_a_system_folder_is_judged_by_its_real_place(
    tmp_path: Path,
) -> None:
    """``/usr/bin/../../<workspace>/ls`` is the workspace's ``ls``, not the
    system's (``/bin/..`` likewise where /bin is no link to /usr/bin)."""
    fake = tmp_path / "ls"
    fake.write_text("#!/bin/sh\ntouch p\n")
    fake.chmod(0o755)
    command = "/usr/bin/../.." + str(tmp_path) + "/ls"
    if shutil.which("bash"):
        subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, check=False)
        assert (tmp_path / "p").exists()
    assert mutation_reason(command) is not None
    assert mutation_reason(f"/bin/..{tmp_path}/ls") is not None


@pytest.mark.parametrize(
    "command", ["/usr/local/bin/ls", "/opt/homebrew/bin/cat f", "/usr/local/bin/git status"]
)
def test_user_writable_program_folders_are_no_proof(command: str) -> None:
    assert mutation_reason(command) is not None


@pytest.mark.parametrize("command", ["/bin/ls -l", "/usr/bin/git status", "/usr/bin//cat f"])
def test_system_programs_by_path_stay_read_only(command: str) -> None:
    assert mutation_reason(command) is None
