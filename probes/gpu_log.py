"""GPU log: a separate process reads utilization, clocks and power every ~20 ms -> timestamped rows, joined to samples.

`python -m probes.gpu_log OUT [--interval-ms 20]` writes OUT (CSV, one reading a line, unix seconds first)
and OUT.source (where the readings come from, or why there are none) until it is sent SIGTERM. GpuLog
starts and stops it beside a probe: a separate process, never a thread in the probe's own, so the
readings do not contend for the interpreter with a host-bound decode step. Read only: nothing here
sets clocks, power limits or application clocks. NVML (nvidia-ml-py) first, then `nvidia-smi -lms`;
where neither answers (a CPU testbed) the log is empty and its source says why.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("unix_s", "gpu_util_pct", "mem_util_pct", "sm_clock_mhz", "mem_clock_mhz", "power_w", "temperature_c",
           "clock_event_reasons")
SMI_FIELDS = ("timestamp", "utilization.gpu", "utilization.memory", "clocks.sm", "clocks.mem", "power.draw",
              "temperature.gpu", "clocks_event_reasons.active")
UTILIZATION_NOTE = ("gpu_util_pct is NVML's utilization: the share of the driver's last sampling period (1/6 s to "
                    "1 s, by product) in which a kernel ran; read every interval_ms, so consecutive readings overlap")
ROOT = Path(__file__).resolve().parents[1]


def device_index() -> int:
    """The NVML index of the GPU MLX uses: CUDA_VISIBLE_DEVICES' first entry when it is a number, else 0."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(first) if first.isdigit() else 0


def nvml_loop(out, interval: float, running) -> None:
    """Readings through NVML until running() turns false; raises ImportError/NVMLError where NVML is missing."""
    import pynvml as nv

    nv.nvmlInit()
    handle = nv.nvmlDeviceGetHandleByIndex(device_index())
    reasons = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or nv.nvmlDeviceGetCurrentClocksThrottleReasons
    name = nv.nvmlDeviceGetName(handle)
    Path(out.name + ".source").write_text(f"nvml: {name}, index {device_index()}, driver "
                                          f"{nv.nvmlSystemGetDriverVersion()}\n")

    def read(fn, *args, scale=1.0):
        try:
            return fn(handle, *args) * scale if scale != 1.0 else fn(handle, *args)
        except nv.NVMLError:
            return ""

    writer = csv.writer(out)
    while running():
        now = time.time()
        try:
            util = nv.nvmlDeviceGetUtilizationRates(handle)
            gpu, mem = util.gpu, util.memory
        except nv.NVMLError:
            gpu = mem = ""
        writer.writerow([f"{now:.3f}", gpu, mem, read(nv.nvmlDeviceGetClockInfo, nv.NVML_CLOCK_SM),
                         read(nv.nvmlDeviceGetClockInfo, nv.NVML_CLOCK_MEM),
                         read(nv.nvmlDeviceGetPowerUsage, scale=1e-3),
                         read(nv.nvmlDeviceGetTemperature, nv.NVML_TEMPERATURE_GPU), read(reasons)])
        out.flush()
        time.sleep(max(0.0, interval - (time.time() - now)))


def smi_loop(out, interval: float, running) -> None:
    """Readings through `nvidia-smi --query-gpu ... -lms` (its own timestamps, local time, converted to unix s)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise FileNotFoundError("no nvidia-smi on PATH")
    command = [smi, f"--id={device_index()}", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits",
               f"-lms={max(1, int(interval * 1e3))}"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    Path(out.name + ".source").write_text("nvidia-smi --query-gpu " + ",".join(SMI_FIELDS) + "\n")
    writer = csv.writer(out)
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if not running():
                break
            cells = [c.strip() for c in line.split(",")]
            if len(cells) != len(SMI_FIELDS):
                continue
            stamp, fraction = cells[0].rsplit(".", 1) if "." in cells[0] else (cells[0], "0")
            unix = time.mktime(time.strptime(stamp, "%Y/%m/%d %H:%M:%S")) + float("0." + fraction)
            *values, reasons = (c if c not in ("[N/A]", "N/A") else "" for c in cells[1:])
            writer.writerow([f"{unix:.3f}", *values, int(reasons, 16) if reasons.startswith("0x") else reasons])
            out.flush()
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def logger_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes.gpu_log", description="log GPU readings until SIGTERM")
    parser.add_argument("out", type=Path)
    parser.add_argument("--interval-ms", type=float, default=20.0)
    args = parser.parse_args(argv)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    errors = []
    with open(args.out, "w", newline="") as out:
        csv.writer(out).writerow(COLUMNS)
        for loop in (nvml_loop, smi_loop):
            try:
                loop(out, args.interval_ms / 1e3, lambda: not stopping)
                return 0
            except Exception as error:  # noqa: BLE001 - any failure means: try the next source, say why
                errors.append(f"{loop.__name__}: {type(error).__name__}: {error}")
    Path(str(args.out) + ".source").write_text("unavailable: " + "; ".join(errors) + "\n")
    return 0


@dataclass
class GpuLog:
    """The logger process beside a probe: start() before the work, stop() -> (rows, source) after it."""

    path: Path
    interval_ms: float = 20.0
    _proc: subprocess.Popen | None = None
    _result: tuple[list[dict[str, float | str]], str] | None = None

    def __enter__(self) -> "GpuLog":
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def start(self) -> None:
        command = [sys.executable, "-m", "probes.gpu_log", str(self.path), "--interval-ms", str(self.interval_ms)]
        self._proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> tuple[list[dict[str, float | str]], str]:
        """End the logger (SIGTERM, then kill after 5 s) and read what it wrote; again: the same answer."""
        if self._result is not None:
            return self._result
        source_file = Path(str(self.path) + ".source")
        if self._proc is not None:
            deadline = time.monotonic() + 5.0  # a logger still starting up says what it found before it ends
            while not source_file.exists() and self._proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        source = source_file.read_text().strip() if source_file.exists() else "unavailable: the logger wrote nothing"
        rows = read_rows(self.path) if self.path.exists() else []
        self._result = rows, source
        return self._result


def number(text: str | None) -> float | str:
    """A reading as a float; blank where it failed or is not a number."""
    try:
        return float(text) if text else ""
    except ValueError:
        return ""


def read_rows(path: Path) -> list[dict[str, float | str]]:
    """The log's rows, readings as floats (blank where one failed); a line without its time is dropped."""
    with open(path, newline="") as handle:
        rows = [{k: number(v) for k, v in raw.items()} for raw in csv.DictReader(handle)]
    return [r for r in rows if r["unix_s"] != ""]


def window(rows: list[dict[str, float | str]], start: float, end: float) -> dict[str, object]:
    """Readings between start and end (unix s): how many, mean utilization and power, lowest and highest SM clock.

    rows are in time order (the logger appends them), so the window is found by bisection.
    """
    low = bisect.bisect_left(rows, start, key=lambda r: float(r["unix_s"]))
    high = bisect.bisect_right(rows, end, key=lambda r: float(r["unix_s"]))
    inside = rows[low:high]

    def values(name):
        return [float(r[name]) for r in inside if r[name] != ""]

    util, power, sm, mem = values("gpu_util_pct"), values("power_w"), values("sm_clock_mhz"), values("mem_clock_mhz")
    return {
        "gpu_readings": len(inside),
        "gpu_util_pct": statistics.fmean(util) if util else "",
        "sm_clock_mhz_min": min(sm) if sm else "", "sm_clock_mhz_max": max(sm) if sm else "",
        "mem_clock_mhz_min": min(mem) if mem else "",
        "power_w": statistics.fmean(power) if power else "",
    }


if __name__ == "__main__":
    sys.exit(logger_main())
