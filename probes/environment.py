"""The machine's environment: MLX, the OS and the hardware -> the manifest's `environment` record.

Nothing personal (no users, paths, environment variables). Cache sizes: the GPU's L2 from the CUDA
runtime (ctypes, no extra package), the CPU's caches from sysfs; a figure that cannot be read is
null, with the reason next to it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import importlib.metadata
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import mlx.core as mx

CUDA_DEV_ATTR_L2_CACHE_SIZE = 38  # cudaDevAttrL2CacheSize (CUDA runtime API; 89 is a yes/no attribute)
CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38  # the same attribute in the driver API
MIN_PLAUSIBLE_L2 = 64 << 10  # an answer below this is a wrong attribute, not a cache
PRIVATE_DEVICE_KEYS = {"uuid", "pci_bus_id"}  # identify one physical card, not its kind


def slug(text: str) -> str:
    """'Apple M1 Max' -> 'apple-m1-max': lower case, runs of other characters -> '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


CPU_NOISE = re.compile(r"\((?:r|tm)\)|@\s*[\d.]+\s*[gm]hz|\b\d+-core\b|\bprocessor\b|\bcpu\b", re.IGNORECASE)


def cpu_slug(cpu_model: str) -> str:
    """The CPU model as a testbed suffix: 'Intel(R) Xeon(R) Processor @ 2.80GHz' -> 'intel-xeon', 'AMD EPYC 7763
    64-Core Processor' -> 'amd-epyc-7763' (trademarks, clock, core count and the words CPU and Processor dropped;
    '' when unknown)."""
    name = slug(CPU_NOISE.sub(" ", cpu_model))
    return "" if name == "unknown" else name


def testbed_name(system: str, backend_name: str, device_name: str, cpu_model: str = "") -> str:
    """Default testbed: <os>-cpu-<cpu model> on the CPU backend (linux-cpu-amd-epyc: machines of one kind come
    with different CPUs, whose figures differ), apple-<chip> on Metal, nvidia-<gpu> on CUDA (the host CPU is in
    the environment record)."""
    if backend_name == "cpu":
        base = {"darwin": "macos"}.get(system.lower(), slug(system) or "unknown") + "-cpu"
        cpu = cpu_slug(cpu_model)
        return f"{base}-{cpu}" if cpu else base
    name = slug(device_name) or "gpu"
    vendor = {"metal": "apple", "cuda": "nvidia"}.get(backend_name, slug(backend_name))
    return name if name.startswith(vendor + "-") or name == vendor else f"{vendor}-{name}"


def backend() -> str:
    """'cpu', 'metal', 'cuda' (or 'gpu' if neither is reported) for MLX's default device."""
    if mx.default_device().type == mx.cpu:
        return "cpu"
    for name in ("metal", "cuda"):
        module = getattr(mx, name, None)
        if module is not None and module.is_available():
            return name
    return "gpu"


def compute_dtype() -> mx.Dtype:
    """fp32 on the CPU backend (its bf16 accumulates in bf16 and runs slower), bf16 on a GPU."""
    return mx.float32 if backend() == "cpu" else mx.bfloat16


def dtype_name(dtype: mx.Dtype) -> str:
    return str(dtype).split(".")[-1]


def device_info() -> dict[str, object]:
    """mx.device_info() with only plain values (name, architecture, memory, compute capability)."""
    info = mx.device_info() if hasattr(mx, "device_info") else {}
    return {key: value for key, value in sorted(info.items())
            if isinstance(value, (str, int, float, bool)) and key not in PRIVATE_DEVICE_KEYS}


def parse_cache_size(text: str) -> int | None:
    """sysfs cache size ('48K', '1280K', '49152K', '2M', '512') -> bytes."""
    text = text.strip().upper()
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        if text and text[-1] in units:
            return int(text[:-1]) * units[text[-1]]
        return int(text)
    except ValueError:
        return None


def cpu_caches(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> list[dict[str, object]]:
    """cpu0's caches from sysfs: level, type, size in bytes, how many CPUs share it."""
    caches = []
    for index in sorted(root.glob("index*")):
        try:
            read = lambda name: (index / name).read_text().strip()  # noqa: E731
            shared = read("shared_cpu_list") if (index / "shared_cpu_list").exists() else ""
            caches.append({"level": int(read("level")), "type": read("type"), "size_bytes": parse_cache_size(read("size")),
                           "shared_cpu_list": shared})
        except (OSError, ValueError):
            continue
    return caches


def _cudart_candidates() -> list[str]:
    names = ["libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"]
    found = ctypes.util.find_library("cudart")
    if found:
        names.append(found)
    for base in sys.path:  # wheels that ship the runtime (nvidia-cuda-runtime-*), and mlx's own folder
        names += sorted(glob.glob(os.path.join(base, "nvidia", "*", "lib", "libcudart.so*")))
        names += sorted(glob.glob(os.path.join(base, "nvidia", "cuda_runtime", "lib", "libcudart.so*")))
        names += sorted(glob.glob(os.path.join(base, "mlx", "lib", "libcudart.so*")))
    return list(dict.fromkeys(names))


def cuda_l2_cache_bytes(device: int = 0) -> tuple[int | None, str]:
    """(L2 bytes, how it was read) from cudaDeviceGetAttribute, else the driver's cuDeviceGetAttribute."""
    tried = []
    for name in _cudart_candidates():
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        value = ctypes.c_int(0)
        rc = lib.cudaDeviceGetAttribute(ctypes.byref(value), CUDA_DEV_ATTR_L2_CACHE_SIZE, device)
        if rc == 0 and value.value >= MIN_PLAUSIBLE_L2:
            return value.value, f"cudaDeviceGetAttribute(cudaDevAttrL2CacheSize) via {os.path.basename(name)}"
        tried.append(f"{os.path.basename(name)} returned error {rc}, value {value.value}")
    for name in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        dev, value = ctypes.c_int(0), ctypes.c_int(0)
        rc = lib.cuInit(0) or lib.cuDeviceGet(ctypes.byref(dev), device) or lib.cuDeviceGetAttribute(
            ctypes.byref(value), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev)
        if rc == 0 and value.value >= MIN_PLAUSIBLE_L2:
            why = "; ".join(tried) or "no libcudart found"
            return value.value, f"cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) via {name} ({why})"
        tried.append(f"{name} returned error {rc}, value {value.value}")
    return None, "not read: " + ("; ".join(tried) or "neither libcudart nor libcuda could be loaded")


def cache_record(backend_name: str) -> dict[str, object]:
    """The device's L2 (last level on a GPU), the CPU's caches, and the last-level figure a sweep aims at."""
    caches = cpu_caches()
    level2 = [c["size_bytes"] for c in caches if c["level"] == 2 and c["type"] in ("Unified", "Data")]
    top = max((c["level"] for c in caches), default=None)
    last = [c["size_bytes"] for c in caches if c["level"] == top and c["type"] in ("Unified", "Data")]
    record: dict[str, object] = {
        "cpu_caches": caches,
        "cpu_l2_cache_bytes": level2[0] if level2 else None,
        "cpu_last_level_cache_bytes": last[0] if last else None,
    }
    if backend_name == "cuda":
        l2, how = cuda_l2_cache_bytes()
        record.update({"device_l2_cache_bytes": l2, "device_l2_cache_source": how})
    elif backend_name == "cpu":
        record.update({
            "device_l2_cache_bytes": record["cpu_l2_cache_bytes"],
            "device_l2_cache_source": "cpu0 sysfs (level 2)" if level2 else "not read: no level-2 cache in sysfs",
        })
    else:
        record.update({"device_l2_cache_bytes": None,
                       "device_l2_cache_source": f"not read: no method for backend {backend_name}"})
    return record


def core_counts() -> dict[str, int | None]:
    """os.cpu_count() and the CPUs this process may run on (sched_getaffinity where there is one)."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"cpu_count": os.cpu_count(), "cpu_affinity_count": affinity}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        result = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.strip()
    return platform.processor() or "unknown"


def _meminfo(key: str) -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def memory_total_bytes() -> int | None:
    if platform.system() == "Darwin":
        result = subprocess.run(["sysctl", "-n", "hw.memsize"], capture_output=True, text=True)
        return int(result.stdout) if result.returncode == 0 else None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def memory_available_bytes() -> int | None:
    """Free memory now (Linux MemAvailable); the total elsewhere."""
    return _meminfo("MemAvailable") or memory_total_bytes()


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def load_average() -> list[float | None]:
    """1, 5 and 15 minute load averages (other work on the machine shows up in timings)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (None, None, None)
    return [round(x, 2) if x is not None else None for x in load]


def environment() -> dict[str, object]:
    """What a reader needs about the machine and software; nothing personal (no users, paths, env)."""
    packages = ["mlx", "mlx-cpu", "mlx-metal", "mlx-cuda", "mlx-cuda-12", "mlx-cuda-13", "mlx-lm", "numpy"]
    name = backend()
    return {
        "mlx_version": mx.__version__,
        "packages": {p: v for p in packages if (v := _version(p))},
        "backend": name,
        "device": str(mx.default_device()),
        "device_info": device_info(),
        "os": platform.system(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        **core_counts(),
        **cache_record(name),
        "memory_total_bytes": memory_total_bytes(),
        "memory_available_bytes_at_start": memory_available_bytes(),
        "load_average_at_start": load_average(),
        "libc_malloc_tuned": os.environ.get("MALLOC_MMAP_MAX_") == "0",
    }
