#!/usr/bin/env python3
"""A sweep's CSV read back by pandas with its defaults: pandas.read_csv(path) and nothing
else. One row per cell, every column typed as a spreadsheet would type it, the run's
columns the same on every row, and the context in the JSON file beside the CSV.
Exits 77 (CTest's skip) when pandas is not installed, for this python3 nor for
/usr/bin/python3, where Debian's python3-pandas lives.
Usage: read_csv_with_pandas.py path/to/cis565_stream_compaction
"""

import json
import os
import subprocess
import sys
import tempfile

from system_python import import_or_skip

pandas = import_or_skip("pandas", "python3-pandas")


def main():
    program = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sweep.csv")
        # A command line with a comma and quotes, which the context holds and the CSV must not break on.
        subprocess.run([program, "--sizes", "2^8,1000", "--backends", "cpu,naive", "--reps", "2", "--quiet",
                        "--keep", "gt:1", "--output", path], check=True, stdout=subprocess.DEVNULL)
        table = pandas.read_csv(path)
        context = json.load(open(os.path.join(folder, "sweep.context.json")))

    # cpu: 4 ops x 3 inputs (2^8, 2^8 - 3, 1000); naive: scan x 3.
    assert len(table) == 4 * 3 + 3, len(table)
    assert list(table.columns[:6]) == ["run_id", "date", "gpu", "mode", "op", "backend"], list(table.columns)
    for column in ["run_id", "date", "gpu", "mode"]:
        assert table[column].nunique() == 1, (column, table[column].unique())
    assert table["run_id"][0] == context["run_id"], (table["run_id"][0], context["run_id"])
    assert table["date"][0] == context["date"]
    assert table["mode"][0] == "cold"
    assert str(table["size"].dtype) == "int64", table["size"].dtype
    assert str(table["npot"].dtype) == "bool", table["npot"].dtype
    cpu = table[table["backend"] == "cpu"]
    assert (cpu["verified"] == "passed").all(), cpu["verified"].unique()
    assert str(cpu["median_ms"].dtype) == "float64", cpu["median_ms"].dtype
    assert (cpu["min_ms"] <= cpu["median_ms"]).all() and (cpu["median_ms"] <= cpu["max_ms"]).all()
    assert sorted(set(table["size"])) == [253, 256, 1000], sorted(set(table["size"]))
    assert "gt:1" in context["command_line"]
    # The context also names the GPU's UUID and L2, the build's compiler, flags,
    # architectures and CCCL, and the GPU's state at the start ("unavailable" without NVML).
    for key in ["gpu_uuid", "l2_cache_MiB", "nvcc_version", "cuda_flags", "cuda_architectures", "cccl_version",
                "sm_clock_MHz_at_start", "memory_clock_MHz_at_start", "temperature_C_at_start", "power_W_at_start",
                "throttle_at_start"]:
        assert key in context, (key, sorted(context))
    assert context["nvcc_version"].split(".")[0].isdigit(), context["nvcc_version"]
    assert context["cccl_version"].startswith("CCCL "), context["cccl_version"]
    assert context["cuda_architectures"], context["cuda_architectures"]
    if table["gpu"][0] == "none":
        assert context["gpu_uuid"] is None, context["gpu_uuid"]
    else:
        assert context["gpu_uuid"].startswith("GPU-") and len(context["gpu_uuid"]) == 40, context["gpu_uuid"]
    print(f"ok: pandas.read_csv read {len(table)} rows of {len(table.columns)} columns")


if __name__ == "__main__":
    main()
