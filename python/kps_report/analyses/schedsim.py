"""Instruction-level simulation of the cos loop on one SM sub-partition (the latency study).

The model in src/kps_models/latency_model.hpp abstracts a warp's iteration into a latency Z and a bottleneck demand D. This
tool goes one level down to ask what the multi-block misses of that model are made of: it reads the loop's SASS
(`cuobjdump -sass` of the objects that hold the kernels), follows one iteration's fast path, and issues it from n
warps, in order, one instruction per cycle per scheduler, with the documented pipe widths of sm_90 and fixed
latencies of 4 cycles for the FP32 and integer pipes. Two constants per kernel come from the same two calibration
points as the C++ model: the latency of the XU instructions (MUFU.COS, F2I) from threads:32/teams:1, and a time scale
(ns per simulated cycle) from threads:1024/teams:1. The scheduling policy is the open question:

  lrr       round robin over the ready warps
  oldest    the oldest ready warp (launch order)
  blockrr   the oldest block with a ready warp, round robin among its warps
  blockgto  the block that issued last while it has a ready warp, else the oldest block; round robin within it

Usage (SASS from the CUDA build; cuobjdump ships with the CUDA toolkit; `kps schedsim` runs this module, as
`./kps schedsim` in a checkout):
  cuobjdump -sass build/cuda/bench/CMakeFiles/kps-bench.dir/latency_bench.cpp.o > kokkos.sass
  cuobjdump -sass build/cuda/bench/CMakeFiles/kps_bench.dir/cuda/native_kernels.cpp.o > native.sass
  kps schedsim fit --sass kokkos.sass native.sass --results results/h100-cuda/latency --policy blockgto
  kps schedsim scan --sass kokkos.sass native.sass --kernel cuda/fast_cosf/1 --blocks 0,0,1
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from kps_report import gbench
from kps_report.analyses import latency, latency_model

PIPES = {  # opcode -> pipe on sm_90 (the XU pipe: 16 lanes per SM, 4 per scheduler)
    "FADD": "fma", "FMUL": "fma", "FFMA": "fma", "HFMA2": "fma", "IMAD": "fma",
    "IADD3": "alu", "ISETP": "alu", "LOP3": "alu", "SHF": "alu", "SEL": "alu", "FSEL": "alu", "FSETP": "alu",
    "MOV": "alu", "VIADD": "alu", "LEA": "alu", "I2FP": "alu", "PRMT": "alu",
    "MUFU": "xu", "F2I": "xu", "I2F": "xu", "F2F": "xu",
    "BRA": "br", "UIADD3": "uni", "UMOV": "uni", "ULDC": "uni", "LDC": "mem",
}
# Cycles a warp instruction occupies its pipe (32 FP32 lanes, 16 integer lanes, 4 XU lanes per scheduler) and the
# fixed latencies; the XU latency is calibrated, LDC (a constant-cache hit) is off the dependent chain.
OCCUPANCY = {"fma": 1, "alu": 2, "br": 1, "uni": 1, "mem": 1, "xu": 8}
LATENCY = {"fma": 4, "alu": 4, "br": 1, "uni": 2, "mem": 20}
TICKS = 10  # simulation ticks per cycle (calibrated latencies are not whole cycles)


def functions(text):
    """{mangled name: ['/*addr*/ [@P] OP args ;', ...]} of a cuobjdump -sass listing."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m[1]
            out[name] = []
        elif name and re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
            out[name].append(re.sub(r"\s*/\* 0x[0-9a-f]+ \*/", "", line).strip())
    return out


def _regs(tok):
    tok = tok.strip().lstrip("-!|~").split(".")[0].rstrip("|")
    return [tok] if re.fullmatch(r"R\d+|P\d+|UR\d+|UP\d+", tok) else []


def loop_trace(lines):
    """The instructions one pass of the function's main loop issues: of its loops (backward conditional branches),
    the one whose path does the most floating-point and XU work, with forward branches inside it taken (they skip
    the slow path: cosf's Payne-Hanek reduction is never reached here). Each entry: (pipe, opcode, dst, src)."""
    ins = []
    for line in lines:
        m = re.match(r"/\*([0-9a-f]+)\*/\s+(@!?P\d+\s+)?(\S+)\s*(.*?)\s*;", line)
        if m:
            ins.append((int(m[1], 16), (m[2] or "").strip(), m[3], m[4]))
    at = {i[0]: i for i in ins}
    loops = [(int(a.split()[0], 16), addr) for addr, g, op, a in ins
             if op == "BRA" and g and int(a.split()[0], 16) < addr]
    if not loops:
        raise ValueError("schedsim: no loop in the function")

    def walk(top, end):
        path, addr = [], top
        while addr <= end:
            i = at[addr]
            path.append(i)
            if i[2] == "BRA" and addr != end and addr < int(i[3].split()[0], 16) <= end:
                addr = int(i[3].split()[0], 16)
                continue
            addr += 16
        return path

    def work(path):
        return sum(i[2].split(".")[0] in ("MUFU", "F2I", "FFMA", "FADD", "FMUL") for i in path)

    trace = []
    for _, guard, op, args in max((walk(*l) for l in loops), key=work):
        root = op.split(".")[0]
        ops = [o.strip() for o in args.split(",")] if args else []
        dst, src = [], _regs(guard.lstrip("@!")) if guard else []
        if root != "BRA" and ops:
            dst, rest = _regs(ops[0]), ops[1:]
            if rest and re.fullmatch(r"P\d+", rest[0]) and root in ("IADD3", "LOP3", "ISETP", "FSETP", "LEA", "IMAD"):
                dst, rest = dst + [rest[0]], rest[1:]
            src += [r for o in rest for r in _regs(o)]
            if (".64" in op or ".WIDE" in op or "F64" in op) and dst and dst[0].startswith("R"):
                dst.append("R%d" % (int(dst[0][1:]) + 1))
        trace.append((PIPES.get(root, "alu"), op, tuple(dst), tuple(src)))
    return trace


def simulate(trace, blocks, passes, xu_latency, policy="blockgto"):
    """Cycles until each warp has run `passes` passes of trace. blocks: the block (age rank, 0 = launched first) of
    each warp on the scheduler, warps listed in launch order. All warps start at cycle 0."""
    n, length = len(blocks), len(trace)
    lat = [round(TICKS * (xu_latency if p == "xu" else LATENCY[p])) for p, _, _, _ in trace]
    occ = {p: round(TICKS * o) for p, o in OCCUPANCY.items()}
    pc, passes_done, ready = [0] * n, [0] * n, [dict() for _ in range(n)]
    next_issue, finish, free = [0] * n, [None] * n, dict.fromkeys(occ, 0)
    t, done, last, rr = 0, 0, None, 0
    while done < n:
        cands = [w for w in range(n) if finish[w] is None and next_issue[w] <= t and free[trace[pc[w]][0]] <= t
                 and all(ready[w].get(r, 0) <= t for r in trace[pc[w]][2] + trace[pc[w]][3])]
        if not cands:
            later = [x for x in list(free.values()) + next_issue + [v for r in ready for v in r.values()] if x > t]
            t = min(later) if later else t + TICKS
            continue
        if policy == "lrr":
            pool = cands
        elif policy == "oldest":
            pool = [min(cands)]
        elif policy in ("blockrr", "blockgto"):
            pool = [w for w in cands if last is not None and blocks[w] == blocks[last]] if policy == "blockgto" else []
            if not pool:
                oldest = min(blocks[w] for w in cands)
                pool = [w for w in cands if blocks[w] == oldest]
        else:
            raise ValueError("schedsim: unknown policy " + policy)
        w = min(pool, key=lambda i: (i - rr) % n)
        rr, last = (w + 1) % n, w
        pipe, _, dst, _ = trace[pc[w]]
        free[pipe] = t + occ[pipe]
        for r in dst:
            ready[w][r] = t + lat[pc[w]]
        next_issue[w] = t + TICKS
        pc[w] += 1
        if pc[w] == length:
            pc[w], passes_done[w] = 0, passes_done[w] + 1
            if passes_done[w] == passes:
                finish[w], done = (t + TICKS) / TICKS, done + 1
        t += TICKS
    return finish


def scheduler_blocks(blocks_on_sm, warps_per_block, schedulers=latency_model.SCHEDULERS_PER_SM):
    """Block of each warp on each scheduler (the model's placement rule, latency_model.scheduler_block_warps)."""
    dev = latency_model.Device(1, schedulers)
    team = warps_per_block * dev.warp_size
    out = [tuple(b for b, count in enumerate(latency_model.scheduler_block_warps(dev, blocks_on_sm, team, s))
                 for _ in range(count)) for s in range(schedulers)]
    return [b for b in out if b]


class Kernel:
    """One (impl, math, chains) loop: its trace, calibrated constants and predictions."""

    def __init__(self, trace, chains, policy, passes):
        self.trace, self.policy, self.passes = trace, policy, passes
        # source iterations per pass: every iteration of every chain ends in one F2I.TRUNC (c += int(f + 1))
        self.iterations = sum(op.startswith("F2I.TRUNC") for _, op, _, _ in trace) // chains
        if self.iterations < 1:
            raise ValueError("schedsim: the loop has no F2I.TRUNC; not the cos loop")
        self.cache = {}

    def cycles(self, blocks, xu_latency):
        key = (blocks, xu_latency)
        if key not in self.cache:
            finish = simulate(self.trace, blocks, self.passes, xu_latency, self.policy)
            self.cache[key] = max(finish) / (self.passes * self.iterations)
        return self.cache[key]

    def calibrate(self, one_warp_ns, eight_warps_ns):
        """XU latency so that one warp takes one_warp_ns per iteration once scaled, and the scale (ns per cycle)
        so that eight warps of one block take eight_warps_ns."""
        scale = 0.5  # ns per cycle: a starting guess
        for _ in range(3):
            lo, hi = 1.0, 300.0
            for _ in range(22):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if self.cycles((0,), round(mid, 2)) * scale < one_warp_ns else (lo, mid)
            self.xu_latency = round((lo + hi) / 2, 2)
            scale = eight_warps_ns / self.cycles((0,) * 8, self.xu_latency)
        self.scale = scale
        return self

    def predict_ms(self, league, team_size, blocks_per_sm, sms, iterations):
        """Waves one after the other (as the C++ model); per wave the SM with the most blocks and its slowest
        scheduler."""
        warps, total, left = -(-team_size // 32), 0.0, league
        while left > 0:
            in_wave = min(left, sms * blocks_per_sm)
            worst = max(self.cycles(b, self.xu_latency) for b in scheduler_blocks(-(-in_wave // sms), warps))
            total += worst * self.scale * iterations * 1e-6
            left -= in_wave
        return total


KERNEL_NAMES = (  # mangled names of the cos-loop kernels: (impl, pattern with chains and fast-math groups)
    ("kokkos", r"CosLoopINS_4CudaELi(\d)ELNS\d_7CosMathE(\d)E"),
    ("cuda", r"cos_loop_kernelILi(\d)ELb(\d)E"),
)


def kernels_of(sass_texts):
    """{(impl, math, chains): trace} for every cos-loop kernel found in the listings."""
    out = {}
    for text in sass_texts:
        for name, lines in functions(text).items():
            for impl, pattern in KERNEL_NAMES:
                m = re.search(pattern, name)
                if m:
                    out[(impl, "fast_cosf" if m[2] == "1" else "cosf", int(m[1]))] = loop_trace(lines)
    return out


def measured(results_dir):
    """({(impl, math, chains, threads, teams): point}, SMs) of the GPU latency sweep in a results folder, read as
    the study's analysis reads it (the newest run of each benchmark)."""
    res = gbench.load_study("latency", Path(results_dir))
    rows = {(p["impl"], p["math"], p["chains"], p["threads"], p["teams"]): p
            for p in latency.points(res.records) if "blocks_per_sm" in p}
    return rows, int(res.context.get("device_compute_units", 0))


def fit(traces, rows, sms, policy, passes, out=sys.stdout):
    """Calibrates each kernel from its two points and predicts the rest; returns the relative errors."""
    errors = {}
    for key in sorted(traces):
        impl, math, chains = key
        points = {k[3:]: p for k, p in rows.items() if k[:3] == key}
        if (32, "1") not in points or (1024, "1") not in points:
            continue
        ns = {c: points[c]["ms"] / points[c]["loop_iterations"] * 1e6 for c in ((32, "1"), (1024, "1"))}
        k = Kernel(traces[key], chains, policy, passes).calibrate(ns[(32, "1")], ns[(1024, "1")])
        misses = []
        for (threads, teams), p in sorted(points.items()):
            ms = k.predict_ms(int(p["league"]), threads, int(p["blocks_per_sm"]), sms, p["loop_iterations"])
            e = ms / p["ms"] - 1
            errors[key + (threads, teams)] = e
            if abs(e) > 0.10:
                misses.append(f"{threads}/{teams} {e:+.3f}")
        worst = max((errors[key + p] for p in points), key=abs)
        print(f"{impl}/{math}/chains:{chains}: XU latency {k.xu_latency} cycles, {1 / k.scale:.3f} cycles/ns, "
              f"worst {worst:+.3f}, outside 10 %: {', '.join(misses) or 'none'}", file=out)
    inside = sum(abs(e) <= 0.10 for e in errors.values())
    print(f"{policy}, {passes} passes: {inside} of {len(errors)} points within 10 %", file=out)
    return errors


def main(argv=None, prog="kps schedsim"):
    from kps_report.cli import Parser  # one line for bad input, as every kps command
    ap = Parser(prog=prog, description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("fit", "scan"))
    ap.add_argument("--sass", nargs="+", required=True, help="cuobjdump -sass listings holding the kernels")
    ap.add_argument("--results", default="results/h100-cuda/latency", help="folder of latency-*.json")
    ap.add_argument("--policy", default="blockgto", choices=("lrr", "oldest", "blockrr", "blockgto"))
    ap.add_argument("--passes", type=int, default=24, help="passes of the unrolled loop simulated per warp")
    ap.add_argument("--kernel", help="scan: impl/math/chains, e.g. cuda/fast_cosf/1")
    ap.add_argument("--blocks", help="scan: block of each warp on the scheduler, e.g. 0,0,1")
    a = ap.parse_args(argv)
    texts = []
    for p in a.sass:
        try:
            texts.append(Path(p).read_text())
        except OSError as e:
            sys.exit(f"{prog}: error: cannot read {p} ({e.strerror})")
    traces = kernels_of(texts)
    if not traces:
        sys.exit(f"{prog}: error: no cos-loop kernel in " + ", ".join(a.sass))
    if a.command == "fit":
        rows, sms = measured(a.results)
        if not rows or sms < 1:
            sys.exit(f"{prog}: error: no GPU latency sweep (with its SM count) in {a.results}")
        fit(traces, rows, sms, a.policy, a.passes)
        return
    try:
        impl, math, chains = a.kernel.split("/")
        trace = traces[(impl, math, int(chains))]
        blocks = tuple(int(b) for b in a.blocks.split(","))
    except (AttributeError, ValueError, KeyError):
        sys.exit(f"{prog}: error: scan needs --kernel impl/math/chains (one of "
                 f"{', '.join('/'.join(map(str, k)) for k in sorted(traces))}) and --blocks, e.g. 0,0,1")
    k = Kernel(trace, int(chains), a.policy, a.passes)
    for tenth in range(150, 261, 5):
        per_warp = [f / (a.passes * k.iterations) for f in simulate(trace, blocks, a.passes, tenth / 10, a.policy)]
        print(f"XU latency {tenth / 10:5.1f}: cycles per iteration of each warp " +
              " ".join(f"{c:5.1f}" for c in per_warp))


if __name__ == "__main__":
    sys.exit(main())
