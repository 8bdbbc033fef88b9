"""docs/ci.md really runs: its files are written and its commands executed in order, with the exit
codes it states; and the README's GitHub Actions job uses only flags the CLI accepts."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cann_nb.frontends import cli

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.M | re.S)
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


def doc_steps(text: str):
    """("file", name, content) and ("run", command, expected exit code), in document order."""
    for lang, info, body in BLOCK.findall(text):
        if lang == "python" and "file=" in info:
            yield "file", info.split("file=", 1)[1].strip(), body
        elif lang == "bash":
            for line in body.replace("\\\n", " ").splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                m = EXIT.search(line)
                yield "run", EXIT.sub("", line).strip(), int(m.group(1)) if m else 0


def test_ci_walkthrough_runs_as_documented(tmp_path):
    env = {**os.environ, "KINETO_LOG_LEVEL": "99",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    env.pop("CANN_NB_DIR", None)
    outputs = []
    for kind, what, arg in doc_steps((ROOT / "docs" / "ci.md").read_text(encoding="utf-8")):
        if kind == "file":
            (tmp_path / what).write_text(arg, encoding="utf-8")
            continue
        r = subprocess.run(what, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == arg, f"{what}\n-> exit {r.returncode}, expected {arg}\n{r.stdout}\n{r.stderr}"
        outputs.append((what, r))
    commands = [c for c, _ in outputs]
    assert sum(c.startswith("cann-nb run") for c in commands) == 3
    # the planted regression: caught, with a readable table, a JUnit report and the right magnitude
    caught = next(r for c, r in outputs if "--junit" in c)
    assert "BREACH" in caught.stdout and "profile  metric" in caught.stdout and "-> exit 1" in caught.stdout
    suite = ET.parse(tmp_path / "perf" / "junit.xml").getroot().find("testsuite")
    assert suite.get("failures") == "2"
    r = subprocess.run(["cann-nb", "check", "--file", "perf/pr@1", "--baseline", "perf/baseline",
                        "--max-regression", "10%", "--metric", "step_p50", "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    row = json.loads(r.stdout)["results"][0]
    assert r.returncode == 1 and row["breach"] and row["significant"]
    extra_ms = (row["value"] - row["baseline"]) / 1e6
    assert 170 < extra_ms < 300, extra_ms            # planted: +200 ms per step
    # where the time went: the loader's sleep is the slower op
    where = next(r for c, r in outputs if c.startswith("cann-nb compare"))
    assert "model.load_batch" in where.stdout and "slower" in where.stdout
    # the clean change passes; bad input names the bad token
    assert "0 breaches" in outputs[-4][1].stdout
    assert "missing unit" in outputs[-3][1].stderr and "'mss'" in outputs[-2][1].stderr
    assert "not a file or folder" in outputs[-1][1].stderr


def _readme_ci_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## CI", 1)[1].split("\n## ", 1)[0]
    yaml = "\n".join(body for lang, _, body in BLOCK.findall(section) if lang in ("yaml", "yml"))
    cmds = []
    for line in yaml.splitlines():
        if "cann-nb " in line:
            cmds.append(line[line.index("cann-nb ") + len("cann-nb "):].strip())
    return cmds


def test_readme_ci_job_uses_valid_commands():
    cmds = _readme_ci_commands()
    assert any(c.startswith("check ") for c in cmds) and any(c.startswith("run ") for c in cmds)
    parser = cli._parser()
    for c in cmds:
        argv = [a for a in shlex.split(c) if "${{" not in a]
        args, unknown = parser.parse_known_args(argv)
        assert args.command == "run" or not unknown, (c, unknown)
