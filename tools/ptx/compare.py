#!/usr/bin/env python3
"""Compares the PTX of two builds of tools/ptx/classic.cpp (today's sums and scans on the four types,
every kernel the dispatch compiles for them) kernel by kernel: whether the kernels of one tree are
the kernels of the other, instruction for instruction.

    tools/ptx/compare.py BASE.ptx NEW.ptx

Kernels are matched by their demangled names, with what the newer tree's templates add for today's
sums left out (the problem, kps::impl::ScanProblem<...>; the operator, kps::plus, and the
accessors' defaults): a kernel's name, its parameters' names (which carry the mangled name) and its
local labels are normalised, the rest compared line for line. Prints each kernel of BASE as
`same`, `LAYOUT` (the same instructions in the same order; only the functor's member offsets and the
register numbers differ), `REORDERED` (as LAYOUT, but instructions within a basic block in
another order, which the PTX assembler schedules anew anyway) or `DIFFERENT` (with the first differing lines), the kernels only one file
has, and exits 1 when any kernel of BASE differs or is missing in NEW.
"""
import re
import subprocess
import sys

ENTRY = re.compile(r"^(?:\.visible |\.weak )*\.entry (\S+)\(")


def kernels(path):
    """{mangled name: body lines} of every .entry of a PTX file."""
    out, name, body, depth = {}, None, [], 0
    with open(path) as f:
        for line in f:
            m = ENTRY.match(line)
            if m and name is None:
                name, body, depth = m.group(1), [line], 0
                continue
            if name is not None:
                body.append(line)
                depth += line.count("{") - line.count("}")
                if line.strip() == "}" and depth <= 0:
                    out[name] = body
                    name = None
    return out


def demangle(names):
    res = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, res.stdout.splitlines()))


def strip_template_arg(s, head, keep=lambda arg: False):
    """Removes every `, head<...>` (balanced angle brackets) from a demangled name whose argument
    list `keep` does not claim."""
    start = 0
    while True:
        i = s.find(", " + head + "<", start)
        if i < 0:
            return s
        j, depth = i + len(head) + 3, 1
        while depth:
            depth += {"<": 1, ">": -1}.get(s[j], 0)
            j += 1
        if keep(s[i + len(head) + 3:j - 1]):
            start = j
        else:
            s = s[:i] + s[j:]


CLASSIC = re.compile(r"(\w+), kps::plus, \1 const\*, \1\*, kps::impl::NoInit(, false)?")


def key(demangled):
    # Today's sums: the problem of the newer kernels with the operator plus, pointers, no initial
    # value and no run-time flags. Other problems (a deterministic sum) keep their names.
    s = strip_template_arg(demangled, "kps::impl::ScanProblem", keep=lambda a: not CLASSIC.fullmatch(a.strip()))
    # The generic tile scan's propagation lambda, named after the older tile_scan<Exec, T>.
    s = re.sub(r"tile_scan<Kokkos::(\w+), (\w+), \2 const\*, \2\*, kps::plus, kps::impl::NoInit>"
               r"\(Kokkos::\1 const&, \2 const\* const&, \2\* const&, (.*?), kps::plus const&, "
               r"kps::impl::NoInit const&\)",
               r"tile_scan<Kokkos::\1, \2>(Kokkos::\1 const&, \2 const*, \2*, \3)", s)
    # The operator and accessors the newer kernels name where today's sums take the defaults.
    for t in ("int", "long", "float", "double"):
        s = s.replace(f", {t} const*, {t}*, kps::plus>", ">")
    s = s.replace(", kps::plus>", ">")
    s = s.replace(" >", ">")
    return s


SYMBOL = re.compile(r"_Z\w+")
LABEL = re.compile(r"\$L__BB\d+_")
DEPOT = re.compile(r"__local_depot\d+")


def normalise(name, body, names):
    """A kernel's lines with its own name, its basic blocks' and local depot's numbers (they count
    the file's functions) and every other mangled symbol (a demoted shared variable's name carries
    the kernel's template arguments) replaced by what matching keys them by."""
    lines = []
    for line in body:
        line = line.replace(name, "KERNEL")
        line = LABEL.sub("$L__BB_", line)
        line = DEPOT.sub("__local_depot", line)
        line = SYMBOL.sub(lambda m: key(names.get(m.group(0), m.group(0))), line)
        lines.append(line.rstrip())
    return lines


REGISTER = re.compile(r"%(r|rd|f|fd|p|rs|h|hh|b)\d+")
OFFSET = re.compile(r"\[(%rd_|\w+)\+-?\d+\]")


def loose(lines):
    """The lines with registers' numbers and parameters' offsets gone: two kernels equal under it
    run the same instructions in the same order on registers of the same kinds, and differ only in
    the functor's layout (where a member lies) and the register allocator's numbering."""
    out = []
    for line in lines:
        line = REGISTER.sub(lambda m: "%" + m.group(1) + "_", line)
        line = OFFSET.sub(lambda m: "[" + m.group(1) + "+OFF]", line)
        line = re.sub(r"\.reg \.(\w+) \t?%(\w+)<\d+>;", r".reg .\1 %\2<N>;", line)
        out.append(line)
    return out


def blocks(lines):
    """The loose lines as a list of basic blocks, each block's instructions sorted: two kernels equal
    under it run the same instructions in each block, in an order the PTX assembler schedules anew."""
    out, block = [], []
    for line in loose(lines):
        if line.startswith("$L__BB"):
            out.append(sorted(block))
            block = [line]
        else:
            block.append(line)
    out.append(sorted(block))
    return out


def symbols(bodies):
    """{mangled: demangled} of every mangled symbol inside the bodies."""
    found = set()
    for body in bodies:
        for line in body:
            found.update(SYMBOL.findall(line))
    return demangle(sorted(found)) if found else {}


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    base, new = kernels(argv[1]), kernels(argv[2])
    dbase, dnew = demangle(list(base)), demangle(list(new))
    names = symbols(list(base.values()) + list(new.values()))
    by_key = {key(dnew[n]): n for n in new}
    differ = missing = layout = reordered = 0
    matched = set()
    for n in sorted(base, key=lambda m: key(dbase[m])):
        k = key(dbase[n])
        if k not in by_key:
            print("MISSING  ", k[:160])
            missing += 1
            continue
        m = by_key[k]
        matched.add(m)
        a, b = normalise(n, base[n], names), normalise(m, new[m], names)
        if a == b:
            print("same     ", k[:160])
        elif loose(a) == loose(b):
            layout += 1
            print("LAYOUT   ", k[:160])
        elif blocks(a) == blocks(b):
            reordered += 1
            print("REORDERED", k[:160])
        else:
            differ += 1
            print("DIFFERENT", k[:160])
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    print("    base:", x.strip()[:150])
                    print("    new: ", y.strip()[:150])
                    break
            if len(a) != len(b):
                print(f"    {len(a)} lines against {len(b)}")
    extra = [key(dnew[m]) for m in new if m not in matched]
    print(f"{len(base)} kernels in {argv[1]}: {len(base) - differ - missing - layout - reordered} the same, "
          f"{layout} the same up to the functor's layout and register numbers, "
          f"{reordered} the same up to the order of instructions within basic blocks, {differ} different, "
          f"{missing} missing; {len(extra)} kernels only in {argv[2]}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
