# ab.py DIR: per (op, backend, size): main-1, main-2, new-1, new-2 medians (us), new/main ratio of the means,
# and cub within each run; then each variant against new's runs.
import csv, sys, os, glob
d = sys.argv[1]
def load(name):
    p = os.path.join(d, name + '.csv')
    if not os.path.exists(p): return {}
    return {(r['op'], r['backend'], int(r['size'])): (float(r['median_ms']) * 1000, r['verified']) for r in csv.DictReader(open(p))}
runs = {n: load(n) for n in ['main-1', 'main-2', 'new-1', 'new-2']}
keys = sorted(set().union(*[set(v) for v in runs.values()]), key=lambda k: (k[0], k[1], k[2]))
print('op backend size | main-1 main-2 new-1 new-2 (us) | new/main time | new x cub | main x cub')
for k in keys:
    v = [runs[n].get(k, (float('nan'), ''))[0] for n in runs]
    bad = [n for n in runs if k in runs[n] and runs[n][k][1] != 'passed']
    m = (v[0] + v[1]) / 2; nw = (v[2] + v[3]) / 2
    ck = (k[0], 'cub', k[2])
    cm = sum(runs[n].get(ck, (float('nan'),))[0] for n in ['main-1', 'main-2']) / 2
    cn = sum(runs[n].get(ck, (float('nan'),))[0] for n in ['new-1', 'new-2']) / 2
    print(f"{k[0]:11s} {k[1]:9s} 2^{k[2].bit_length()-1:<2d} | {v[0]:8.2f} {v[1]:8.2f} {v[2]:8.2f} {v[3]:8.2f} | {nw/m:6.3f} | {cn/nw:5.2f} | {cm/m:5.2f} {'UNVERIFIED ' + str(bad) if bad else ''}")
for p in sorted(glob.glob(os.path.join(d, '*.csv'))):
    name = os.path.basename(p)[:-4]
    if name in runs: continue
    var = load(name)
    print(f'\n== {name}: time vs new (mean of new-1/2), and x cub in its own run')
    for k in sorted(var, key=lambda k: (k[0], k[1], k[2])):
        if k[1] == 'cub': continue
        base = [runs[n][k][0] for n in ['new-1', 'new-2'] if k in runs[n]]
        b = sum(base) / len(base) if base else float('nan')
        c = var.get((k[0], 'cub', k[2]), (float('nan'),))[0]
        print(f"{k[0]:11s} {k[1]:9s} 2^{k[2].bit_length()-1:<2d} {var[k][0]:9.2f} us  vs new {var[k][0]/b if b==b else float('nan'):6.3f}  x cub {c/var[k][0]:5.2f} {var[k][1]}")
