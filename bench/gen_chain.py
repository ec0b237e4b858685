#!/usr/bin/env python3
# gen_chain.py [N]: a stage I program of N sparse axes in a chain (default
# 200), for timing the passes on a deep program:
#
#   python3 bench/gen_chain.py 200 > chain.stir
#   time build/tools/stirc print chain.stir --stage 3 > /dev/null
#
# kernel chain(m, n1, z1, ..., nN, zN): A0 = dense_fixed(m),
# Ai = sparse_variable(A(i-1), ni, zi), a tensor X over every axis, Y over
# A0, and one iteration "S" + "R" * N computing Y[a0] += X[a0, ..., aN].
import sys

if len(sys.argv) > 2 or (len(sys.argv) == 2 and not sys.argv[1].isdigit()):
    sys.exit("usage: bench/gen_chain.py [N]: a program of N sparse axes "
             "(default 200)")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
params = ["m: i32"] + [f"n{i}: i32, z{i}: i32" for i in range(1, n + 1)]
axes = ", ".join(f"A{i}" for i in range(n + 1))
its = ", ".join(f"a{i}" for i in range(n + 1))
out = [f"kernel chain({', '.join(params)}) {{", "  axis A0 = dense_fixed(m);"]
out += [f"  axis A{i} = sparse_variable(A{i - 1}, n{i}, z{i});"
        for i in range(1, n + 1)]
out += [f"  tensor X: f32[{axes}];", "  tensor Y: f32[A0];",
        f"  iter chain ({its}) in [{axes}] \"S{'R' * n}\" {{",
        "    init { Y[a0] = 0.0; }", f"    Y[a0] += X[{its}];", "  }", "}"]
print("\n".join(out))
