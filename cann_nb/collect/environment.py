"""Describe the machine and software a profile was taken on (goes to ``profile.meta["environment"]``).

Cheap by design: it never imports torch or torch_npu (importing torch alone costs about a second).
Their versions come from package metadata; CUDA/NPU presence is probed only when the user's code
has already imported them, which is exactly when it matters.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import socket
import sys
from importlib import metadata
from pathlib import Path

# distribution name -> module name, for the versions worth knowing when reading a profile
_PACKAGES = {
    "cann_nb": "cann_nb", "numpy": "numpy", "pandas": "pandas", "psutil": "psutil",
    "torch": "torch", "torch_npu": "torch_npu", "nvidia-ml-py": "pynvml",
}
_CANN_ENV = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH")


def describe_environment() -> dict:
    """A JSON-serialisable description of this process's machine, Python and AI frameworks."""
    env = dict(_static())
    env["packages"] = {dist: v for dist, mod in _PACKAGES.items() if (v := _version(dist, mod))}
    env["torch"] = _torch_info()
    cann = {k: os.environ[k] for k in _CANN_ENV if os.environ.get(k)}
    if cann:
        env["cann"] = cann
    return env


@functools.lru_cache(maxsize=1)
def _static() -> dict:
    """What cannot change while the process lives."""
    info = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
    }
    try:
        import psutil

        info["cpu_count_physical"] = psutil.cpu_count(logical=False)
        info["memory_total_bytes"] = int(psutil.virtual_memory().total)
    except Exception:  # psutil missing or unsupported platform: leave the keys out, never guess
        pass
    return info


def cache_dir() -> Path:
    """Where figures measured once per machine are cached: ``$CANN_NB_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/cann_nb`` or ``~/.cache/cann_nb``."""
    root = os.environ.get("CANN_NB_CACHE_DIR")
    return Path(root) if root else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cann_nb"


def machine_key(model, cores) -> str | None:
    """The key of a machine's cached figures: CPU model and core count (None when either is unknown)."""
    return f"{model} x{cores}" if model and cores else None


def this_machine_key() -> str | None:
    env = describe_environment()
    return machine_key(env.get("cpu_model"), env.get("cpu_count"))


def read_cache(name: str) -> dict:
    """The cache file ``name`` (a JSON object keyed by machine and method), {} when absent or unreadable."""
    try:
        data = json.loads((cache_dir() / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_cache(name: str, key: str, value) -> None:
    """Set ``key`` in the cache file ``name`` (atomically: a temporary file renamed over it)."""
    path = cache_dir() / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = read_cache(name)
        data[key] = value
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass   # a read-only home: measured again next time, never an error


def _cpu_model() -> str | None:
    # platform.processor() is empty or just "x86_64" on Linux; /proc/cpuinfo has the real name
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("model name", "Model", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _version(dist: str, module: str) -> str | None:
    mod = sys.modules.get(module)
    v = getattr(mod, "__version__", None) if mod is not None else None
    return str(v) if v else _dist_version(dist)


@functools.lru_cache(maxsize=None)
def _dist_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _torch_info() -> dict:
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "version"):  # absent, or still half-imported
        v = _dist_version("torch")
        return {"installed": v is not None, "version": v, "imported": False} if v else {"installed": False}
    info: dict = {"installed": True, "imported": True, "version": str(torch.__version__),
                  "cuda_build": torch.version.cuda, "hip_build": getattr(torch.version, "hip", None)}
    if hasattr(torch, "get_num_threads"):
        info["num_threads"] = int(torch.get_num_threads())   # the CPU roof scales with it (cpu_peaks)
    # a CPU-only build answers without touching a driver; only GPU builds are asked
    if info["cuda_build"] or info["hip_build"]:
        try:
            info["cuda_available"] = bool(torch.cuda.is_available())
            info["cuda_device_count"] = int(torch.cuda.device_count()) if info["cuda_available"] else 0
        except Exception as exc:
            info["cuda_error"] = f"{type(exc).__name__}: {exc}"
    else:
        info["cuda_available"] = False
    if "torch_npu" in sys.modules and hasattr(torch, "npu"):
        try:
            info["npu_available"] = bool(torch.npu.is_available())
            info["npu_device_count"] = int(torch.npu.device_count()) if info["npu_available"] else 0
        except Exception as exc:
            info["npu_error"] = f"{type(exc).__name__}: {exc}"
    return info
