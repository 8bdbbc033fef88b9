"""Hatch build hook: make sure the widget bundle (cann_nb/static/widget.js) exists before packaging.

Skipped when the bundle exists (an sdist carries it, so installing from an sdist needs no Node) or when
CANN_NB_SKIP_JS=1. Otherwise runs ``npm ci`` (when node_modules is missing) and ``npm run build``.
Without npm, a wheel or sdist build fails with a clear message (a package without its front end would
show only the static summary); an editable install just warns.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUNDLE = Path("cann_nb") / "static" / "widget.js"


class FrontendBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        root = Path(self.root)
        if os.environ.get("CANN_NB_SKIP_JS") == "1" or (root / BUNDLE).is_file():
            return
        if not (root / "package.json").is_file():
            return
        npm = shutil.which("npm")
        if not npm:
            msg = (f"cann_nb: {BUNDLE} is missing and npm is not installed; install Node 18+ and run "
                   "`npm ci && npm run build`, or set CANN_NB_SKIP_JS=1 to package without the widgets")
            if version == "editable":
                self.app.display_warning(msg)
                return
            raise RuntimeError(msg)
        if not (root / "node_modules" / "esbuild").is_dir():
            subprocess.run([npm, "ci", "--silent", "--no-audit", "--no-fund"], cwd=root, check=True)
        subprocess.run([npm, "run", "--silent", "build"], cwd=root, check=True)
        if not (root / BUNDLE).is_file():
            raise RuntimeError(f"cann_nb: `npm run build` did not produce {BUNDLE}")
