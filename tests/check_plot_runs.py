#!/usr/bin/env python3
"""scripts/plot given several runs draws a line per run and back end, labelled by run: the
lines of each plot are counted and their labels read off the figure (matplotlib's Agg
back end) as the script draws them, for two CSVs of two runs, one CSV joining two runs,
and one run in two parts, which plots as one run. Exits 77 (CTest's skip) when matplotlib
is not installed, for this python3 nor for /usr/bin/python3.
Usage: check_plot_runs.py path/to/scripts/plot
"""

import importlib.machinery
import importlib.util
import os
import sys
import tempfile

from system_python import import_or_skip

import_or_skip("matplotlib", "python3-matplotlib")

HEADER = ("run_id,date,gpu,mode,op,backend,size,npot,block_size,median_ms,min_ms,max_ms,reps,bandwidth_GBps,"
          "copy_fraction,speedup_vs_cpu,speedup_vs_cub,kept,verified,note\n")


def csv_rows(run_id, backends, sizes, npot=False, scale=1.0):
    lines = []
    for backend in backends:
        block = "" if backend == "cpu" else "128"
        for size in sizes:
            for companion in ([False, True] if npot else [False]):
                n = size - 3 if companion else size
                ms = scale * n / 1e6
                lines.append(f"{run_id},2025-01-31T12:00:00Z,G,hot,scan,{backend},{n},{str(companion).lower()},"
                             f"{block},{ms},{ms},{ms},5,{8 * n / ms / 1e6},,,,,passed,\n")
    return "".join(lines)


def load_plot(path):
    loader = importlib.machinery.SourceFileLoader("sc_plot", path)
    spec = importlib.util.spec_from_loader("sc_plot", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_plot(module, folder, files):
    """{png name: [line labels]} of every plot the script draws for `files`."""
    drawn = {}
    original = module.finish

    def recording_finish(figure, axis, title, path):
        drawn[os.path.basename(path)] = [line.get_label() for line in axis.get_lines()]
        original(figure, axis, title, path)

    module.finish = recording_finish
    paths = []
    for name, text in files.items():
        paths.append(os.path.join(folder, name))
        with open(paths[-1], "w") as f:
            f.write(text)
    argv = sys.argv
    sys.argv = ["plot"] + paths + ["--out", folder]
    try:
        module.main()
    finally:
        sys.argv = argv
        module.finish = original
    for name in drawn:
        if not os.path.getsize(os.path.join(folder, name)):
            raise AssertionError(f"{name} is empty")
    return drawn


failures = []


def expect(what, got, wanted):
    if sorted(got) != sorted(wanted):
        failures.append(f"{what}: lines {sorted(got)}, expected {sorted(wanted)}")
    else:
        print(f"ok: {what}: {len(got)} lines")


def main():
    module = load_plot(sys.argv[1])
    sizes = [1 << 10, 1 << 12, 1 << 14]
    with tempfile.TemporaryDirectory() as folder:
        # Two runs, each in its own CSV: a line per run and back end, labelled by file stem.
        drawn = run_plot(module, folder, {
            "base.csv": HEADER + csv_rows("20250131T120000Z-aaaa", ["cpu", "cub"], sizes),
            "new.csv": HEADER + csv_rows("20250201T120000Z-bbbb", ["cpu", "cub"], sizes, scale=0.5),
        })
        expect("two CSVs, two runs, time", drawn["base-scan-time.png"],
               ["cpu, base", "cub, base", "cpu, new", "cub, new"])
        bandwidth = [label for label in drawn["base-scan-bandwidth.png"] if not label.startswith(("device", "theor"))]
        expect("two CSVs, two runs, bandwidth", bandwidth, ["cpu, base", "cub, base", "cpu, new", "cub, new"])

    with tempfile.TemporaryDirectory() as folder:
        # One CSV joining two runs, SIZE - 3 companions too: labelled by run_id.
        drawn = run_plot(module, folder, {
            "joined.csv": HEADER + csv_rows("run-a", ["cpu", "cub"], sizes, npot=True)
                          + csv_rows("run-b", ["cub"], sizes, npot=True, scale=2),
        })
        expect("one CSV, two runs", drawn["joined-scan-time.png"],
               ["cpu, run-a", "cpu (size - 3), run-a", "cub, run-a", "cub (size - 3), run-a", "cub, run-b",
                "cub (size - 3), run-b"])

    with tempfile.TemporaryDirectory() as folder:
        # One run in two parts (one run_id): plotted as one run, a line per back end.
        drawn = run_plot(module, folder, {
            "part1.csv": HEADER + csv_rows("run-x", ["cpu", "cub"], sizes[:2]),
            "part2.csv": HEADER + csv_rows("run-x", ["cpu", "cub"], sizes[2:]),
        })
        expect("one run in two parts", drawn["part1-scan-time.png"], ["cpu", "cub"])

    with tempfile.TemporaryDirectory() as folder:
        # A figure without samples (a median of 0) is not a point: a back end with only such
        # rows draws no line.
        empty = "".join(f"run-z,2025-01-31T12:00:00Z,G,cold,scan,thrust,{n},false,128,0,0,0,0,,,,,,passed,\n"
                        for n in sizes)
        drawn = run_plot(module, folder, {"zeros.csv": HEADER + csv_rows("run-z", ["cub"], sizes) + empty})
        expect("rows without samples", drawn["zeros-scan-time.png"], ["cub"])

    with tempfile.TemporaryDirectory() as folder:
        # One size and its SIZE - 3 companion (a block-size table's sweep): no plot against
        # array size, whose every line would be a point.
        drawn = run_plot(module, folder, {"one.csv": HEADER + csv_rows("run-o", ["cub"], sizes[:1], npot=True)})
        expect("one size and its companion", [name for name in drawn if name.endswith(("time.png", "width.png"))], [])

    with tempfile.TemporaryDirectory() as folder:
        # Four back ends drawn as references (--reference): four greys, each a valid colour.
        refs = ["decoupled", "cub", "thrust", "shared"]
        reference = set(module.REFERENCES)
        module.REFERENCES.update(refs)
        try:
            drawn = run_plot(module, folder, {"refs.csv": HEADER + csv_rows("run-r", ["cpu"] + refs, sizes)})
        finally:
            module.REFERENCES.clear()
            module.REFERENCES.update(reference)
        expect("four references", drawn["refs-scan-time.png"], ["cpu"] + [f"{name} (reference)" for name in refs])

    for failure in failures:
        print(f"FAIL: {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
