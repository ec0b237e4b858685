# bench_rgms: RGMS (one RGCN layer, Y = sum_r A_r X W_r) on a relational graph,
# stir against PyG's RGCNConv and FastRGCNConv in the same process on the same
# card (bench/README.md, "bench_rgms").  Usage:
#
#   python3 bench/bench_rgms.py GRAPH.hetero[.gz]... [--features 16,32,64,128]
#       [--stirc build/tools/stirc] [--program examples/rgms_agg.stir]
#       [--schedule examples/rgms_agg.yaml] [--reps 100] [--no-pyg]
#       [--schedules-only DIR] [--edge-program examples/rgms_edge.stir]
#       [--candidates PATTERN,...] [--no-tc] [--tc-candidates PATTERN,...]
#
# stir: examples/rgms_agg.stir (the aggregated order) under --schedule (any
# size) and the variants of rgms_schedules() below, and the edge by edge
# examples/rgms_edge.stir (--edge-program; no intermediate T) under the
# variants of rgms_edge_schedules(), those matching --candidates (shell
# patterns of the names) when given, each run through `stirc
# run --backend cuda --time` (GPU.md: warm-ups, the L2 cache flushed before
# each run, the median), the
# fastest re-measured in a fresh run with --reps runs, its Y, W and X written
# as .npy.  PyG (aggr 'add', no root weight, no bias) gets the same W and X,
# is timed the same way (5 warm-ups, the median of 30 runs, L2 flushed), and
# its Y is checked against stir's.  Peak extra memory: PyG's is
# torch.cuda.max_memory_allocated around one layer call, less what was
# allocated before; stir's is every device buffer its run allocates beyond
# the inputs X and W: the relational format's arrays (I.indptr, I.indices,
# J.indptr, J.indices, A), the intermediate T (the aggregated order's), the
# COO arrays J.pos_I and J.pos_R (the coo_* and runs_* candidates') and the
# output Y.  The host time to read the graph and build the format is
# stirc's ("inputs:").  NAME_o candidates are NAME with overlapping
# launches (timed as a whole); runs_* keep a run of edges of one row in
# registers (cache_write_runs).
# --schedules-only DIR writes the schedule files (the tensor-core ones as
# tc_fF_NAME.yaml) and runs nothing (no GPU; --stirc still writes the
# candidates of the library's RGMS recipes, tc_tsh_*_gb and aggruns_*_zf4:
# `stirc recipe`);
# --no-tc skips the tensor-core schedules (rgms_tc_candidates);
# --tc-candidates runs those whose names match (rgms_tc_schedules).
import gzip, os, subprocess, sys, tempfile

FEATURES = [16, 32, 64, 128]


def rgms_schedule(feat, q, qa):
    """The schedule file (text) of rgms_agg.stir with fin = fout = feat
    specialized: zero T; then the edges (flattened over relation, row and
    column: `sparse_fuse`), feat / qa lanes an edge, each lane adding qa
    input features (strided by feat / qa, so the lanes' atomic adds into T
    are contiguous); zero Y; then T's rows (flattened over relation and
    row), feat / q lanes a row, each lane computing q output features
    (strided likewise, so a warp's loads of W[r] are contiguous) summed in
    registers and added atomically into Y.  Each launch has 256 threads a
    thread block: 256 / lanes rows or edges.  The zeroing of T and of Y is
    one launch (horizontal_fuse)."""
    s = ["kernel: rgms_agg", "stage1:",
         "  - specialize: {param: fin, value: %d}" % feat,
         "  - specialize: {param: fout, value: %d}" % feat,
         "  - sparse_fuse: {iter: zero_t, iters: [rr, i]}",
         "  - sparse_reorder: {iter: agg, order: [rr, i, j, fi]}",
         "  - sparse_fuse: {iter: agg, iters: [rr, i, j]}",
         "  - sparse_fuse: {iter: apply, iters: [rr, i]}",
         "stage2:"]
    lanes = min(feat, 32)
    for blk, loop, fl, qq in (("zero_t0", "rri", "fi", feat // lanes),
                              ("agg0", "rrij", "fi", qa),
                              ("zero0", "i", "fo", feat // lanes),
                              ("apply0", "rri", "fo", q)):
        rows = max(1, 256 // (feat // qq))
        if blk in ("agg0", "apply0"):
            s.append("  - set_atomic: {block: %s}" % blk)
        s += ["  - split: {block: %s, loop: %s, factors: [null, %d]}" % (blk, loop, rows),
              "  - bind: {block: %s, loop: %s_0, to: blockIdx.x}" % (blk, loop),
              "  - bind: {block: %s, loop: %s_1, to: threadIdx.y}" % (blk, loop)]
        if qq == 1:
            s.append("  - bind: {block: %s, loop: %s, to: threadIdx.x}" % (blk, fl))
            continue
        s.append("  - split: {block: %s, loop: %s, factors: [%d, null]}" % (blk, fl, qq))
        inner = ["%s_1" % fl, "fi", "%s_0" % fl] if blk == "apply0" else \
            ["%s_1" % fl, "%s_0" % fl]
        s += ["  - reorder: {block: %s, loops: [%s_0, %s_1, %s]}" % (blk, loop, loop, ", ".join(inner)),
              "  - bind: {block: %s, loop: %s_1, to: threadIdx.x}" % (blk, fl),
              "  - unroll: {block: %s, loop: %s_0}" % (blk, fl)]
    # one launch zeroes T and Y
    s.append("  - horizontal_fuse: {blocks: [zero_t0, zero0]}")
    if q == 1:
        s.append("  - cache_write: {block: apply0, buffer: Y, loop: fi, scope: local}")
    else:
        s += ["stage3:",
              "  - cache_write: {block: apply0, buffer: Y_data, loop: fi, scope: local}"]
    return "\n".join(s) + "\n"


def rgms_schedules(feat, example):
    """The candidates at fin = fout = feat: (name, text).  The example
    schedule (any size), then feat specialized with q = 2 or 4 output
    features a lane (apply) and qa input features a lane (agg): the fewest,
    feat / 8 and feat / 4, wherever feat / q and feat / qa are whole
    numbers of 4 to 32 lanes."""
    with open(example) as f:
        out = [(os.path.basename(example)[:-len(".yaml")], f.read())]
    qs = [q for q in (1, 2, 4, 8, 16, 32)
          if feat % q == 0 and 4 <= feat // q <= 32]
    for q in (2, 4):
        for qa in sorted({qs[0], feat // 8, feat // 4}) if q in qs else ():
            if qa in qs:
                out.append(("f%d_q%d_a%d" % (feat, q, qa),
                            rgms_schedule(feat, q, qa)))
    return out


def rgms_edge_head(feat, coo):
    """The first lines (a list) of an rgms_edge.stir schedule at fin =
    fout = feat: the sizes specialized, the edges flattened (`sparse_fuse`
    over relation, row and column; with their rows and relations read
    from stored COO arrays when coo), and Y zeroed (256 // min(feat, 32)
    rows a thread block, the output features on the lanes)."""
    s = ["kernel: rgms_edge", "stage1:",
         "  - specialize: {param: fin, value: %d}" % feat,
         "  - specialize: {param: fout, value: %d}" % feat,
         "  - sparse_fuse: {iter: rgms, iters: [rr, i, j]%s}" %
         (", coo: true" if coo else ""),
         "stage2:"]
    zl = min(feat, 32)
    s += ["  - split: {block: zero0, loop: i, factors: [null, %d]}" % (256 // zl),
          "  - bind: {block: zero0, loop: i_0, to: blockIdx.x}",
          "  - bind: {block: zero0, loop: i_1, to: threadIdx.y}"]
    if feat == zl:
        s.append("  - bind: {block: zero0, loop: fo, to: threadIdx.x}")
    else:
        s += ["  - split: {block: zero0, loop: fo, factors: [%d, null]}" % (feat // zl),
              "  - reorder: {block: zero0, loops: [i_0, i_1, fo_1, fo_0]}",
              "  - bind: {block: zero0, loop: fo_1, to: threadIdx.x}",
              "  - unroll: {block: zero0, loop: fo_0}"]
    return s


def rgms_edge_schedule(feat, q):
    """The schedule file (text) of rgms_edge.stir with fin = fout = feat
    specialized: zero Y (as in rgms_schedule); then the edges (flattened
    over relation, row and column: `sparse_fuse`), feat / q lanes an edge,
    each lane summing q output features (strided by feat / q, so a warp's
    loads of W[r] are contiguous) over the input features in registers
    and adding them atomically into Y.  256 threads a thread block."""
    s = rgms_edge_head(feat, False)
    lanes = feat // q
    s += ["  - set_atomic: {block: rgms0}",
          "  - split: {block: rgms0, loop: rrij, factors: [null, %d]}" % max(1, 256 // lanes),
          "  - bind: {block: rgms0, loop: rrij_0, to: blockIdx.x}",
          "  - bind: {block: rgms0, loop: rrij_1, to: threadIdx.y}"]
    if q == 1:
        s += ["  - bind: {block: rgms0, loop: fo, to: threadIdx.x}",
              "  - unroll: {block: rgms0, loop: fi}",
              "  - cache_write: {block: rgms0, buffer: Y, loop: fi, scope: local}"]
    else:
        s += ["  - split: {block: rgms0, loop: fo, factors: [%d, null]}" % q,
              "  - reorder: {block: rgms0, loops: [rrij_0, rrij_1, fo_1, fi, fo_0]}",
              "  - bind: {block: rgms0, loop: fo_1, to: threadIdx.x}",
              "  - unroll: {block: rgms0, loop: fo_0}",
              "stage3:",
              "  - cache_write: {block: rgms0, buffer: Y_data, loop: fi, scope: local}"]
    return "\n".join(s) + "\n"


def rgms_edge_schedules(feat):
    """The edge-by-edge candidates at fin = fout = feat (rgms_edge.stir):
    (name, text), q = 1, 2, 4, 8 output features a lane wherever feat / q
    is a whole number of 4 to 32 lanes; each also as coo_fF_qQ, with the
    edges' rows and relations read from stored COO arrays (`sparse_fuse`
    with coo: docs/schedules.md) instead of searched; then the vector
    candidates of rgms_coo_schedules()."""
    out = []
    for q in (1, 2, 4, 8):
        if feat % q == 0 and 4 <= feat // q <= 32:
            text = rgms_edge_schedule(feat, q)
            out.append(("edge_f%d_q%d" % (feat, q), text))
            out.append(("coo_f%d_q%d" % (feat, q), text.replace(
                "iters: [rr, i, j]}", "iters: [rr, i, j], coo: true}")))
    return out + rgms_coo_schedules(feat)


def rgms_coo_schedule(feat, v, threads, vatomic=False):
    """The schedule file (text) of rgms_edge.stir at fin = fout = feat
    with the edges' rows and relations read from COO arrays and vector
    loads (examples/rgms_coo.yaml is this at feat 32, v 4, threads 256):
    feat / v lanes an edge, each summing v consecutive output features
    in registers; the input features in steps of v, X's v of them loaded
    once (one vector load, a broadcast to the edge's lanes) and, for each,
    W[r]'s v output features (one vector load; consecutive edges mostly
    share the relation, so a warp's edges read the same lines of W[r]);
    threads / (feat / v) edges a thread block; the sums added atomically
    into Y (with vatomic, the v sums of a lane by one vector atomic add,
    sm_90: `vectorize` of the write-back)."""
    lanes = feat // v
    s = rgms_edge_head(feat, True)
    s += ["  - set_atomic: {block: rgms0}",
          "  - split: {block: rgms0, loop: rrij, factors: [null, %d]}" % (threads // lanes),
          "  - bind: {block: rgms0, loop: rrij_0, to: blockIdx.x}",
          "  - bind: {block: rgms0, loop: rrij_1, to: threadIdx.y}",
          "  - split: {block: rgms0, loop: fo, factors: [null, %d]}" % v,
          "  - split: {block: rgms0, loop: fi, factors: [null, %d]}" % v,
          "  - reorder: {block: rgms0, loops: [rrij_0, rrij_1, fo_0, fi_0, fi_1, fo_1]}",
          "  - bind: {block: rgms0, loop: fo_0, to: threadIdx.x}",
          "stage3:",
          "  - cache_write: {block: rgms0, buffer: Y_data, loop: fi_0, scope: local}",
          "  - cache_read: {block: rgms0, buffer: X_data, loop: fi_1, scope: local}",
          "  - cache_read: {block: rgms0, buffer: W_data, loop: fo_1, scope: local}",
          "  - vectorize: {block: X_data_local, loop: ax0}",
          "  - vectorize: {block: W_data_local, loop: ax0}",
          "  - unroll: {block: rgms0, loop: fi_1}",
          "  - unroll: {block: rgms0, loop: fo_1}"]
    if vatomic:
        s.append("  - vectorize: {block: Y_data_local, loop: ax0}")
    return "\n".join(s) + "\n"


def rgms_coo_schedules(feat):
    """The vector candidates at fin = fout = feat: (name, text) of
    rgms_coo_schedule, vectors of v = 4 or 2 features (dividing feat,
    feat / v at most 32 lanes), 128 or 256 threads a thread block."""
    out = [("coo_f%d_v%d_t%d" % (feat, v, t), rgms_coo_schedule(feat, v, t))
           for v in (4, 2) for t in (128, 256)
           if feat % v == 0 and 2 <= feat // v <= 32 and t % (feat // v) == 0]
    # the same with vector atomic adds (coo_fF_vV_tT_a)
    return out + [(n + "_a", rgms_coo_schedule(feat, int(n.split("_")[2][1:]),
                                               int(n.split("_")[3][1:]), True))
                  for n, _ in out]


def rgms_runs_schedule(feat, q, k, v=1, threads=256):
    """The schedule file (text) of rgms_edge.stir at fin = fout = feat with
    the edges' rows and relations read from COO arrays, k consecutive
    edges a thread (one after another) and the sums of a run of edges of
    one row kept in registers (`cache_write_runs`, docs/schedules.md):
    Y[i] gets one atomic add a run of edges into row i instead of one an
    edge (the COO order is relation, row, column, so a row's edges of one
    relation are consecutive).  With v = 1: feat / q lanes an edge, each
    summing q output features strided by feat / q (rgms_edge_schedule's
    order); with v = 2 or 4: feat / v lanes an edge, each summing v
    consecutive output features, X's and W's loaded v at a time (vector
    loads: rgms_coo_schedule's order; q unused).  threads / lanes groups
    of k edges a thread block."""
    lanes = feat // (v if v > 1 else q)
    s = rgms_edge_head(feat, True)
    s += ["  - set_atomic: {block: rgms0}",
          "  - split: {block: rgms0, loop: rrij, factors: [null, %d, %d]}" % (threads // lanes, k),
          "  - bind: {block: rgms0, loop: rrij_0, to: blockIdx.x}",
          "  - bind: {block: rgms0, loop: rrij_1, to: threadIdx.y}"]
    if v > 1:
        s += ["  - split: {block: rgms0, loop: fo, factors: [null, %d]}" % v,
              "  - split: {block: rgms0, loop: fi, factors: [null, %d]}" % v,
              "  - reorder: {block: rgms0, loops: [rrij_0, rrij_1, fo_0, rrij_2, fi_0, fi_1, fo_1]}",
              "  - bind: {block: rgms0, loop: fo_0, to: threadIdx.x}",
              "stage3:",
              "  - cache_write_runs: {block: rgms0, buffer: Y_data, loop: rrij_2, scope: local}",
              "  - cache_read: {block: rgms0, buffer: X_data, loop: fi_1, scope: local}",
              "  - cache_read: {block: rgms0, buffer: W_data, loop: fo_1, scope: local}",
              "  - vectorize: {block: X_data_local, loop: ax0}",
              "  - vectorize: {block: W_data_local, loop: ax0}",
              "  - unroll: {block: rgms0, loop: fi_1}",
              "  - unroll: {block: rgms0, loop: fo_1}"]
    elif q == 1:
        s += ["  - reorder: {block: rgms0, loops: [rrij_0, rrij_1, fo, rrij_2, fi]}",
              "  - bind: {block: rgms0, loop: fo, to: threadIdx.x}",
              "stage3:",
              "  - cache_write_runs: {block: rgms0, buffer: Y_data, loop: rrij_2, scope: local}"]
    else:
        s += ["  - split: {block: rgms0, loop: fo, factors: [%d, null]}" % q,
              "  - reorder: {block: rgms0, loops: [rrij_0, rrij_1, fo_1, rrij_2, fi, fo_0]}",
              "  - bind: {block: rgms0, loop: fo_1, to: threadIdx.x}",
              "  - unroll: {block: rgms0, loop: fo_0}",
              "stage3:",
              "  - cache_write_runs: {block: rgms0, buffer: Y_data, loop: rrij_2, scope: local}"]
    # the copies of the row's elements (write-backs, zeroing) unrolled:
    # the register cache indexed by literals (q = 1: one element, no
    # loop); with vectors, a write-back of v consecutive elements is one
    # vector atomic add (sm_90)
    wb = "vectorize" if v > 1 else "unroll"
    s += [] if v == 1 and q == 1 else [
        "  - %s: {block: Y_data_local_run, loop: ax0}" % wb,
        "  - unroll: {block: Y_data_local_zero, loop: ax0}",
        "  - %s: {block: Y_data_local, loop: ax0}" % wb]
    return "\n".join(s) + "\n"


def rgms_runs_schedules(feat):
    """The candidates of rgms_runs_schedule at fin = fout = feat: (name,
    text), k = 2, 4 or 8 edges a thread, with q = 1, 2 or 4 output
    features a lane (runs_fF_qQ_kK, feat / q a whole number of 4 to 32
    lanes), or vectors of v = 4 (runs_fF_v4_kK, feat / 4 at most 32
    lanes); 256 threads a thread block."""
    out = []
    for k in (2, 4, 8):
        for q in (1, 2, 4):
            if feat % q == 0 and 4 <= feat // q <= 32:
                out.append(("runs_f%d_q%d_k%d" % (feat, q, k),
                            rgms_runs_schedule(feat, q, k)))
        if feat % 4 == 0 and 2 <= feat // 4 <= 32:
            out.append(("runs_f%d_v4_k%d" % (feat, k),
                        rgms_runs_schedule(feat, 0, k, v=4)))
    return out


def rgms_tc_schedule(feat, f16):
    """Tensor cores (docs/schedules.md, "Tensor cores: RGMS"): the text of
    examples/rgms_tc16.yaml (f16, rgms_tc16.stir) or rgms_tc_tf32.yaml
    (tf32, rgms_agg.stir) with fin = fout = feat instead of 64 (feat a
    multiple of 16 and at most 256: a warp per 8 output features, a
    thread block per relation); None for other sizes."""
    if feat % 16 or feat > 256:
        return None
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    name = "rgms_tc16.yaml" if f16 else "rgms_tc_tf32.yaml"
    with open(os.path.join(here, "examples", name)) as f:
        text = f.read()
    return text.replace("value: 64}", "value: %d}" % feat)


def agg_runs_steps(feat, k):
    """The steps (stage II, stage III: two lists of lines) that schedule
    rgms_agg.stir's aggregation (block agg0, its edges fused with coo) at
    fin = feat: feat / 4 lanes an edge, 256 threads a thread block, k
    consecutive edges a thread, the run of a (relation, row) pair's edges
    summed in registers (cache_write_runs) and added into T by one float4
    atomic, X's features loaded 4 at a time."""
    lanes = feat // 4
    return (["  - set_atomic: {block: agg0}",
             "  - split: {block: agg0, loop: rrij, factors: [null, %d, %d]}" % (256 // lanes, k),
             "  - bind: {block: agg0, loop: rrij_0, to: blockIdx.x}",
             "  - bind: {block: agg0, loop: rrij_1, to: threadIdx.y}",
             "  - split: {block: agg0, loop: fi, factors: [null, 4]}",
             "  - reorder: {block: agg0, loops: [rrij_0, rrij_1, fi_0, rrij_2, fi_1]}",
             "  - bind: {block: agg0, loop: fi_0, to: threadIdx.x}"],
            ["  - cache_write_runs: {block: agg0, buffer: T_data, loop: rrij_2, scope: local}",
             "  - cache_read: {block: agg0, buffer: X_data, loop: fi_1, scope: local}",
             "  - vectorize: {block: X_data_local, loop: ax0}",
             "  - unroll: {block: agg0, loop: fi_1}",
             "  - vectorize: {block: T_data_local_run, loop: ax0}",
             "  - unroll: {block: T_data_local_zero, loop: ax0}",
             "  - vectorize: {block: T_data_local, loop: ax0}"])


def rgms_agg_runs_schedule(feat, q, k):
    """The aggregated order on CUDA cores with the aggregation of
    agg_runs_steps (the tensor-core candidates' tc_runs_*, here with
    rgms_schedule's apply: q output features a lane), the launches
    overlapping: how much of tc_runs_* the aggregation alone gives."""
    lines = [l for l in rgms_schedule(feat, q, 1).splitlines()
             if "block: agg0" not in l]
    lines = [l.replace("iters: [rr, i, j]}", "iters: [rr, i, j], coo: true}")
             for l in lines]
    agg2, agg3 = agg_runs_steps(feat, k)
    at = lines.index("  - horizontal_fuse: {blocks: [zero_t0, zero0]}")
    lines[at:at] = agg2
    if "stage3:" not in lines:
        lines.append("stage3:")
    lines += agg3 + ["overlap_launches: true"]
    return "\n".join(lines) + "\n"


def with_float4_zeroing(text, feat):
    """text (a schedule of rgms_agg.stir or rgms_edge.stir) with its
    zeroing of T and Y (blocks zero_t0 and zero0, where present) done by
    float4 stores: feat / 4 lanes a row, 256 / (feat / 4) rows of a
    thread block on threadIdx.y, each thread 4 rows in turn: 16 KB a
    thread block at feat = 64 where the steps of rgms_schedule write 2 KB
    by scalar stores (AM's zeroing of its 4.5 million pairs of T: 673,473
    thread blocks at 16% of the warps they could hold, 22% of tc_tsh's
    three launches, bench/RESULTS.md, "RGMS on tensor cores: the profile
    of tc_tsh").  feat / 4 must be at most 32 lanes."""
    lanes = feat // 4
    steps = []
    lines = text.splitlines()
    for blk, loop, fl in (("zero_t0", "rri", "fi"), ("zero0", "i", "fo")):
        if not any("block: %s," % blk in l for l in lines):
            continue
        steps += [
            "  - split: {block: %s, loop: %s, factors: [null, %d, 4]}" % (blk, loop, 256 // lanes),
            "  - bind: {block: %s, loop: %s_0, to: blockIdx.x}" % (blk, loop),
            "  - bind: {block: %s, loop: %s_1, to: threadIdx.y}" % (blk, loop),
            "  - split: {block: %s, loop: %s, factors: [null, 4]}" % (blk, fl),
            "  - reorder: {block: %s, loops: [%s_0, %s_1, %s_0, %s_2, %s_1]}"
            % (blk, loop, loop, fl, loop, fl),
            "  - bind: {block: %s, loop: %s_0, to: threadIdx.x}" % (blk, fl),
            "  - unroll: {block: %s, loop: %s_2}" % (blk, loop),
            "  - vectorize: {block: %s, loop: %s_1}" % (blk, fl)]
    zeroing = [i for i, l in enumerate(lines)
               if "block: zero_t0," in l or "block: zero0," in l]
    at = zeroing[0]
    kept = [l for i, l in enumerate(lines) if i not in zeroing]
    return "\n".join(kept[:at] + steps + kept[at:]) + "\n"


def rgms_tc_runs_schedule(feat, k, pieces, tiles=1, wz=1, wshared=False,
                          unrolled=False, padded=False, tstaged=False,
                          bounded=False):
    """Tensor cores after a cheaper aggregation: the text of
    examples/rgms_tc_runs.yaml (rgms_agg.stir, tf32) at fin = fout = feat
    (a multiple of 8; feat / 4 at most 32 lanes), k edges a thread in the
    aggregation and the relation's tiles of 16 (relation, row) pairs
    spread over `pieces` thread blocks in the apply.  The aggregation
    reads the edges' rows from a COO array (no search), sums a run of
    edges of one pair in registers (cache_write_runs), loads X and adds
    into T by float4; the apply is examples/rgms_tc_tf32.yaml's (mma
    m16n8k8, a warp per 8 output features) with `tiles` tiles of 8
    output features a warp (its accumulator that many fragments side by
    side, the mma nest repeated for each) and, with wz > 1, wz warps of a
    thread block on pieces of their own (threadIdx.z); the launches
    overlap.  With wshared (wz = 1), each warp's slice of W[r] is copied
    into shared memory once, before its loop over the piece's tiles, by
    its 32 lanes (examples/rgms_tc_wshared.yaml); with padded as well,
    each row of the slice (8 x tiles floats) is followed by 4 unused ones
    (cache_read's pad_every and pad), so that the 4 rows k = 2t a B
    fragment's lanes read at once start in 4 different banks
    (tests/tensorize/rgms_tc_wshared_pad.yaml).  With tstaged (wz = 1,
    not with wshared), the tile loop goes outside the warps' loop and each
    tile of T (16 rows of feat floats, the last tile's rows under its row
    guard) is copied into shared memory once for the thread block's warps,
    by all its threads, each row padded by 8 floats so that a lane group's
    A fragment loads start in different banks
    (tests/tensorize/rgms_tc_tstaged.yaml); with bounded as well, the
    pieces' tail guard is made the bound of the tile loop
    (guard_to_bound), so that a piece past its relation's last tile runs
    no iteration (tests/tensorize/rgms_tc_tstaged_bound.yaml).  With
    unrolled, the loop over the input features' steps of 8 (fi_0, around
    the mma nest) is unrolled as well: a tile's A and B fragments of
    every step can be loaded before the first mma (the apply waits on its
    loads: the profile in bench/RESULTS.md)."""
    s = ["kernel: rgms_agg", "stage1:",
         "  - specialize: {param: fin, value: %d}" % feat,
         "  - specialize: {param: fout, value: %d}" % feat,
         "  - sparse_fuse: {iter: zero_t, iters: [rr, i]}",
         "  - sparse_reorder: {iter: agg, order: [rr, i, j, fi]}",
         "  - sparse_fuse: {iter: agg, iters: [rr, i, j], coo: true}",
         "stage2:"]
    zl = min(feat, 32)
    for blk, loop, fl in (("zero_t0", "rri", "fi"), ("zero0", "i", "fo")):
        s += ["  - split: {block: %s, loop: %s, factors: [null, %d]}" % (blk, loop, 256 // zl),
              "  - bind: {block: %s, loop: %s_0, to: blockIdx.x}" % (blk, loop),
              "  - bind: {block: %s, loop: %s_1, to: threadIdx.y}" % (blk, loop)]
        if feat == zl:
            s.append("  - bind: {block: %s, loop: %s, to: threadIdx.x}" % (blk, fl))
        else:
            s += ["  - split: {block: %s, loop: %s, factors: [%d, null]}" % (blk, fl, feat // zl),
                  "  - reorder: {block: %s, loops: [%s_0, %s_1, %s_1, %s_0]}" % (blk, loop, loop, fl, fl),
                  "  - bind: {block: %s, loop: %s_1, to: threadIdx.x}" % (blk, fl),
                  "  - unroll: {block: %s, loop: %s_0}" % (blk, fl)]
    agg2, agg3 = agg_runs_steps(feat, k)
    # the output features: [warps, 8] or [warps, tiles, 8], the tile loop
    # fo_1 between the input features' loop and the mma nest
    tile_factor = "%d, " % tiles if tiles > 1 else ""
    nest = "fo_1, i_1, fo_2, fi_1" if tiles > 1 else "i_1, fo_1, fi_1"
    # the pieces of a relation's tiles: [pieces, null] (blockIdx.y), or
    # [pieces, wz, null] with wz warps of a thread block on pieces of
    # their own (threadIdx.z)
    pz = "%d, " % wz if wz > 1 else ""
    outer = "i_0_1, fo_0, i_0_2" if wz > 1 else \
        "i_0_1, fo_0" if tstaged else "fo_0, i_0_1"
    # fo_0 on the warps; with wshared bound after the copy per fo_0 of
    # W[r]'s slice is made, and the copy's loops (the input features' two,
    # then the output features' tiles and 8, or 8) fused and spread over
    # the lanes
    bind_warps = ["  - bind: {block: apply1, loop: fo_0, to: threadIdx.y}"]
    s += ["  - horizontal_fuse: {blocks: [zero_t0, zero0]}"] + agg2
    s += [
          "  - split: {block: apply1, loop: i, factors: [null, 16]}",
          "  - split: {block: apply1, loop: fo, factors: [null, %s8]}" % tile_factor,
          "  - split: {block: apply1, loop: fi, factors: [null, 8]}",
          "  - split: {block: apply1, loop: i_0, factors: [%d, %snull]}" % (pieces, pz),
          "  - reorder: {block: apply1, loops: [i_0_0, %s, fi_0, %s]}" % (outer, nest),
          "  - set_atomic: {block: apply1}",
          "  - bind: {block: apply0, loop: rr, to: blockIdx.x}"] + (
          [] if wshared or tstaged else bind_warps) + [
          "  - bind: {block: apply1, loop: i_0_0, to: blockIdx.y}"] + ([
          "  - bind: {block: apply1, loop: i_0_1, to: threadIdx.z}"] if wz > 1 else []) + [
          "stage3:"] + agg3
    if wshared:
        axes = ", ".join("ax%d" % d for d in range(4 if tiles > 1 else 3))
        fused = axes.replace(", ", "_")
        pad = ", pad_every: %d, pad: 4" % (8 * tiles) if padded else ""
        s.append("  - cache_read: {block: apply1, buffer: W_data, loop: i_0_1, "
                 "scope: shared, per: fo_0%s}" % pad)
        bind_warps += [
            "  - fuse: {block: W_data_shared, loops: [%s]}" % axes,
            "  - split: {block: W_data_shared, loop: %s, factors: [null, 32]}" % fused,
            "  - bind: {block: W_data_shared, loop: %s_1, to: threadIdx.x}" % fused]
    elif tstaged:
        # the tile's copy: its rows, then the input features' 2 loops,
        # fused and spread over the thread block's warps and lanes
        warps = feat // (8 * tiles)
        s.append("  - cache_read: {block: apply1, buffer: T_data, loop: fo_0, "
                 "scope: shared, pad_every: %d, pad: 8}" % feat)
        bind_warps += [
            "  - fuse: {block: T_data_shared, loops: [ax0, ax1, ax2]}",
            "  - split: {block: T_data_shared, loop: ax0_ax1_ax2, factors: "
            "[null, %d, 32]}" % warps,
            "  - bind: {block: T_data_shared, loop: ax0_ax1_ax2_1, to: threadIdx.y}",
            "  - bind: {block: T_data_shared, loop: ax0_ax1_ax2_2, to: threadIdx.x}"]
    else:
        bind_warps = []
    # the warp's accumulator: ax0 the 16 rows, ax1 the tiles, ax2 the 8
    # columns; the tile loop outermost in its zeroing and write-back, so
    # that each nest inside is one fragment (tests/tensorize/bsrmm_tc_tiles.yaml)
    s.append("  - cache_write: {block: apply1, buffer: Y_data, loop: fi_0, scope: local}")
    s += [] if tiles == 1 else [
          "  - reorder: {block: Y_data_local_init, loops: [ax1, ax0, ax2]}",
          "  - reorder: {block: Y_data_local, loops: [ax1, ax0, ax2]}",
          "  - unroll: {block: Y_data_local_init, loop: ax1}",
          "  - unroll: {block: Y_data_local, loop: ax1}",
          "  - unroll: {block: apply1, loop: fo_1}"]
    s += ["  - unroll: {block: apply1, loop: fi_0}"] if unrolled else []
    s += ["  - tensorize: {block: %s, loop: %s, intrinsic: mma_m16n8k8_tf32}" % bl
          for bl in (("Y_data_local_init", "ax0"), ("apply1", "i_1"),
                     ("Y_data_local", "ax0"))]
    s += bind_warps
    if bounded:
        s.append("  - guard_to_bound: {block: apply1, loop: i_0_1}")
    s.append("overlap_launches: true")
    return "\n".join(s) + "\n"


def rgms_tc_once_schedule(feat, pieces):
    """The tensor-core apply of tc_tsh_k4_pP_t2_u (rgms_tc_runs_schedule
    with tstaged and unrolled) on examples/rgms_agg_once.stir, whose T is zeroed by the
    aggregation's init: a thread a feature (threadIdx.x) and 256 / feat
    (relation, row) pairs a thread block (threadIdx.y), each pair's edges
    summed in a register that starts from the init and is stored into T
    once (cache_write_over_init at the edges' loop j): no zeroing launch
    of T and no atomics into it; Y's zeroing in the same launch
    (horizontal_fuse).  tests/tensorize/rgms_tc_once.yaml is the same at
    feat = 64 in 128 pieces."""
    rows = 256 // feat
    text = rgms_tc_runs_schedule(feat, 4, pieces, 2, tstaged=True,
                                 unrolled=True)
    # the aggregation and both zeroings of rgms_tc_runs_schedule dropped
    skip = ("zero_t", "zero0", "agg", "X_data_local", "T_data_local",
            "horizontal_fuse")
    lines = ["kernel: rgms_agg_once"] + [
        l for l in text.splitlines()[1:] if not any(w in l for w in skip)]
    at = lines.index("stage2:")
    lines[at:at + 1] = [
        "  - sparse_fuse: {iter: agg, iters: [rr, i]}", "stage2:",
        "  - split: {block: agg0, loop: rri, factors: [null, %d]}" % rows,
        "  - bind: {block: agg0, loop: rri_0, to: blockIdx.x}",
        "  - bind: {block: agg0, loop: rri_1, to: threadIdx.y}",
        "  - bind: {block: agg0, loop: fi, to: threadIdx.x}",
        "  - split: {block: zero0, loop: i, factors: [null, %d]}" % rows,
        "  - bind: {block: zero0, loop: i_0, to: blockIdx.x}",
        "  - bind: {block: zero0, loop: i_1, to: threadIdx.y}",
        "  - bind: {block: zero0, loop: fo, to: threadIdx.x}",
        "  - horizontal_fuse: {blocks: [agg0, zero0]}"]
    lines.insert(lines.index("stage3:") + 1, "  - cache_write_over_init: {block: agg1, "
                 "buffer: T_data, loop: j, scope: local}")
    return "\n".join(lines) + "\n"


def rgms_tc_edges_schedule(feat, pieces, tiles, staged):
    """Tensor cores with no T (examples/rgms_edge.stir, tf32): each
    relation's edges (i and j fused with coo: an edge's row from the COO
    array J.pos_I) in tiles of 16 edges, spread over `pieces` thread
    blocks; a tile's 16 X rows, each scaled by its edge's A as it is
    loaded (a row scale of A: docs/ir.md, "Tensorized loops"), times
    W[r] on mma m16n8k8, `tiles` tiles of 8 output features a warp (feat
    / (8 tiles) warps), the accumulator added atomically into the
    edges' rows of Y; the input features' loop unrolled.  With staged,
    the tile's 16 gathered X rows are copied into shared memory once for
    the thread block's warps (padded by 8 floats a row), as tc_tsh_*
    copies a tile of T.  tests/tensorize/rgms_tc_edges.yaml is
    tc_edges_p128_t2_s at 64."""
    warps = feat // (8 * tiles)
    # rgms_edge_head's, the edges fused within each relation
    s = [l.replace("iters: [rr, i, j]", "iters: [i, j]")
         for l in rgms_edge_head(feat, True)]
    tile_factor = "%d, " % tiles if tiles > 1 else ""
    nest = "fo_1, ij_1, fo_2, fi_1" if tiles > 1 else "ij_1, fo_1, fi_1"
    outer = "ij_0_1, fo_0" if staged else "fo_0, ij_0_1"
    bind_warps = ["  - bind: {block: rgms1, loop: fo_0, to: threadIdx.y}"]
    s += ["  - split: {block: rgms1, loop: ij, factors: [null, 16]}",
          "  - split: {block: rgms1, loop: fo, factors: [null, %s8]}" % tile_factor,
          "  - split: {block: rgms1, loop: fi, factors: [null, 8]}",
          "  - split: {block: rgms1, loop: ij_0, factors: [%d, null]}" % pieces,
          "  - reorder: {block: rgms1, loops: [ij_0_0, %s, fi_0, %s]}" % (outer, nest),
          "  - set_atomic: {block: rgms1}",
          "  - bind: {block: rgms0, loop: rr, to: blockIdx.x}",
          "  - bind: {block: rgms1, loop: ij_0_0, to: blockIdx.y}"] + (
          [] if staged else bind_warps) + ["stage3:"]
    if staged:
        s.append("  - cache_read: {block: rgms1, buffer: X_data, loop: fo_0, "
                 "scope: shared, pad_every: %d, pad: 8}" % feat)
    s.append("  - cache_write: {block: rgms1, buffer: Y_data, loop: fi_0, scope: local}")
    if tiles > 1:
        s += ["  - reorder: {block: Y_data_local_init, loops: [ax1, ax0, ax2]}",
              "  - reorder: {block: Y_data_local, loops: [ax1, ax0, ax2]}",
              "  - unroll: {block: Y_data_local_init, loop: ax1}",
              "  - unroll: {block: Y_data_local, loop: ax1}",
              "  - unroll: {block: rgms1, loop: fo_1}"]
    s.append("  - unroll: {block: rgms1, loop: fi_0}")
    s += ["  - tensorize: {block: %s, loop: %s, intrinsic: mma_m16n8k8_tf32}" % bl
          for bl in (("Y_data_local_init", "ax0"), ("rgms1", "ij_1"),
                     ("Y_data_local", "ax0"))]
    if staged:
        s += bind_warps + [
            "  - fuse: {block: X_data_shared, loops: [ax0, ax1, ax2]}",
            "  - split: {block: X_data_shared, loop: ax0_ax1_ax2, factors: "
            "[null, %d, 32]}" % warps,
            "  - bind: {block: X_data_shared, loop: ax0_ax1_ax2_1, to: threadIdx.y}",
            "  - bind: {block: X_data_shared, loop: ax0_ax1_ax2_2, to: threadIdx.x}"]
    s.append("overlap_launches: true")
    return "\n".join(s) + "\n"


# The candidates of the library's RGMS recipe (stir_rgms_tc_get_candidate,
# schedule/recipes/rgms.c), in its order: (edges a thread, pieces);
# tests/test_bench_rgms.sh checks the pieces against what it writes.
RGMS_TC_RECIPE = [(4, 32), (4, 64), (4, 128), (4, 256), (4, 512), (4, 1024)]


# The CUDA-core recipe's (stir_rgms_get_candidate): edges a thread, its
# candidates aggruns_fF_q4_kK_zf4.
RGMS_RECIPE = [4, 8]


def rgms_recipe_schedule(stirc, recipe, i, feat):
    """The schedule file (text) of candidate i of the library's RGMS recipe
    (rgms_tc on tensor cores, rgms on CUDA cores) at fin = fout = feat, as
    `stirc recipe` writes it."""
    prog = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "examples", "rgms_agg.stir")
    r = subprocess.run([stirc, "recipe", prog, "--recipe", recipe,
                        "--candidate", str(i), "--size", "feat=%d" % feat],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench_rgms: stirc recipe %s --candidate %d at %d: %s"
                 % (recipe, i, feat, r.stderr.strip()))
    return r.stdout


def rgms_tc_schedules(feat, stirc):
    """The tensor-core candidates at fin = fout = feat: (name, schedule
    text, program file name in examples/): tc16 and tf32 (the example
    schedules, rgms_tc_schedule), and tc_runs_kK_pP
    (rgms_tc_runs_schedule: k = 4 or 8 edges a thread, the apply's tiles
    in 32 or 128 pieces (P) of thread blocks, T = 1, 2, feat / 16 or
    feat / 8 tiles of 8 output features a warp, and then Z warps a thread
    block on pieces of their own where the output features leave fewer
    than 4: tc_runs_kK_pP_tT[_zZ]), tc_wsh*, tc_tsh_*, tc_once_*
    (rgms_tc_once_schedule, on rgms_agg_once.stir) and tc_edges_*
    (rgms_tc_edges_schedule, on rgms_edge.stir) where feat allows."""
    out = []
    for f16 in (True, False):
        text = rgms_tc_schedule(feat, f16)
        if text is not None:
            out.append(("tc16" if f16 else "tf32", text,
                        "rgms_tc16.stir" if f16 else "rgms_agg.stir"))
    if feat % 8 == 0 and feat // 4 <= 32:
        for k, p, t in [(4, p, t) for p in (32, 128)
                        for t in sorted({1, 2, max(1, feat // 16), feat // 8})] + \
                [(8, 128, feat // 8)]:
            # feat / (8 t) warps a thread block on the output features,
            # times z on pieces of their own: 4 warps or more
            z = max(1, 4 // (feat // (8 * t)))
            name = "tc_runs_k%d_p%d_t%d" % (k, p, t) + ("_z%d" % z if z > 1 else "")
            out.append((name, rgms_tc_runs_schedule(feat, k, p, t, z), "rgms_agg.stir"))
            # the same with the input features' loop unrolled
            if k == 4 and p == 128:
                out.append((name + "_u", rgms_tc_runs_schedule(feat, k, p, t, z,
                                                                unrolled=True),
                            "rgms_agg.stir"))
        # W[r]'s slices in shared memory: W[r] whole (F x F floats) in a
        # thread block, within the 48 KiB of static shared memory; slower
        # than tc_runs_* on an H100, and slower still in 32 or 64 pieces
        # (bench/RESULTS.md)
        if feat * feat * 4 <= 48 * 1024:
            for p, t in ((128, 2), (128, 1)):
                if t <= feat // 8:
                    out.append(("tc_wsh_k4_p%d_t%d" % (p, t),
                                rgms_tc_runs_schedule(feat, 4, p, t, 1, True),
                                "rgms_agg.stir"))
                    # the slice's rows padded (not measured on a GPU yet)
                    out.append(("tc_wshp_k4_p%d_t%d" % (p, t),
                                rgms_tc_runs_schedule(feat, 4, p, t, 1, True,
                                                      padded=True),
                                "rgms_agg.stir"))
        # a tile of T in shared memory for the thread block's warps; in
        # 32 pieces as well (fewer thread blocks without a tile: AIFB's
        # relations have at most 77 tiles), and with the input features'
        # loop unrolled (_u: the A fragments read from shared memory with
        # no row test, gpu_mma_a_whole, the same for each tile of 8
        # output features)
        if feat % 16 == 0:
            for p, t in [(p, t) for p in (128, 32)
                         for t in sorted({1, 2, feat // 16})]:
                name = "tc_tsh_k4_p%d_t%d" % (p, t)
                out.append((name, rgms_tc_runs_schedule(feat, 4, p, t,
                                                        tstaged=True),
                            "rgms_agg.stir"))
                out.append((name + "_u", rgms_tc_runs_schedule(
                    feat, 4, p, t, tstaged=True, unrolled=True),
                            "rgms_agg.stir"))
            # in 512 or 1024 pieces: AM's two largest relations hold about
            # 26,000 tiles each, 200 a thread block in turn at 128 pieces
            # (bench/rgms_counts.py), as the edge tiles had (below)
            for p, t in ((512, 2), (1024, 2), (512, 1)):
                out.append(("tc_tsh_k4_p%d_t%d_u" % (p, t), rgms_tc_runs_schedule(
                    feat, 4, p, t, tstaged=True, unrolled=True), "rgms_agg.stir"))
            # each tc_tsh_*_u with T and Y zeroed by float4 stores (_zf4)
            if feat <= 128:
                out += [(name + "_zf4", with_float4_zeroing(text, feat), prog)
                        for name, text, prog in list(out)
                        if name.startswith("tc_tsh_") and name.endswith("_u")]
                # and the pieces' tail guard made the tile loop's bound
                # (_gb): a thread block past its relation's last tile runs
                # no tile loop (AIFB in 32 pieces: 2,164 of its 3,328
                # thread blocks hold no tile; bench/RESULTS.md, "RGMS on
                # tensor cores: empty pieces ended"): the library's RGMS
                # recipe (schedule/recipes/rgms.c), each candidate written
                # by `stirc recipe`
                for i, (k, p) in enumerate(RGMS_TC_RECIPE):
                    out.append(("tc_tsh_k%d_p%d_t2_u_zf4_gb" % (k, p),
                                rgms_recipe_schedule(stirc, "rgms_tc", i, feat),
                                "rgms_agg.stir"))
        # the same apply after an aggregation that writes T once, with no
        # zeroing launch of it and no atomics (examples/rgms_agg_once.stir):
        # slower on an H100, a pair's edges being one thread's serial loop
        # (MUTAG has a pair of 6781 edges; bench/RESULTS.md)
        if feat <= 256:
            for p in (128, 32):
                out.append(("tc_once_p%d_t2_u" % p,
                            rgms_tc_once_schedule(feat, p),
                            "rgms_agg_once.stir"))
        # no T at all: tiles of 16 edges of a relation, their X rows
        # scaled by A as they are loaded, times W[r] (rgms_edge.stir);
        # _s with the tile's X rows staged in shared memory; staged in 512
        # or 1024 pieces too: the largest relations of BGS and AM hold
        # about 9% of their edges each, so in 128 pieces their thread
        # blocks run 32 (BGS) to 254 (AM) tiles one after another, 13 to
        # 24 times the mean (bench/rgms_counts.py; bench/RESULTS.md, "RGMS
        # on tensor cores: why the edge tiles are slow")
        if feat % 16 == 0 and feat <= 256:
            for p, t in [(p, t) for p in (128, 32)
                         for t in sorted({2, feat // 16})] + \
                    [(512, 2), (1024, 2)]:
                for staged in (False, True) if p <= 128 else (True,):
                    out.append(("tc_edges_p%d_t%d" % (p, t) + ("_s" if staged else ""),
                                rgms_tc_edges_schedule(feat, p, t, staged),
                                "rgms_edge.stir"))
    return out


def rgms_reference(n, r, a, x, w):
    """Y64 in float64: Y64[dst] += X[src] W[rel] over the edges (src, dst,
    rel) of a, one relation at a time (with torch on the GPU when there
    is one: the large graphs)."""
    import numpy as np
    try:
        import torch
        dev = "cuda" if torch.cuda.is_available() else None
    except ImportError:
        dev = None
    if dev:
        X, W = (torch.tensor(v, dtype=torch.float64, device=dev) for v in (x, w))
        E = torch.tensor(a, device=dev)
        Y = torch.zeros((n, w.shape[2]), dtype=torch.float64, device=dev)
        for rel in range(r):
            e = E[E[:, 2] == rel]
            if len(e):
                agg = torch.zeros((n, x.shape[1]), dtype=torch.float64,
                                  device=dev)
                agg.index_add_(0, e[:, 1], X[e[:, 0]])
                Y += agg @ W[rel]
        return Y.cpu().numpy()
    y64 = np.zeros((n, w.shape[2]))
    for rel in range(r):
        e = a[a[:, 2] == rel]
        if len(e):
            agg = np.zeros((n, x.shape[1]))
            np.add.at(agg, e[:, 1], x[e[:, 0]])
            y64 += agg @ w[rel]
    return y64


def rgms_tc_candidates(args, path, n, r, a, feat, t_cuda, reps):
    """The tensor-core RGMS at fin = fout = feat on graph path: for each
    candidate of rgms_tc_schedules whose name matches --tc-candidates
    (all when not given), the median time (stirc run --time, reps runs),
    the ratio to the CUDA-core kernel's t_cuda, and the precision: max
    |Y - Y64| / max |Y64| with Y64 the float64 product of the same A (1
    an edge, counted), X and W."""
    import fnmatch
    import numpy as np
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    tmp = tempfile.mkdtemp()
    pats = args["tc_candidates"].split(",") if args["tc_candidates"] else ["*"]
    for kind, text, prog in rgms_tc_schedules(feat, args["stirc"]):
        if not any(fnmatch.fnmatch(kind, p) for p in pats):
            continue
        files = {k: os.path.join(tmp, k + ".npy") for k in "WXY"}
        t, out = stirc_time(args, text, path, feat, reps, files,
                            program=os.path.join(here, "examples", prog))
        if t is None:
            print("f=%d stir tensor cores %s: failed: %s" % (feat, kind,
                  out.strip().splitlines()[-1][:160]), flush=True)
            continue
        w, x, y = (np.load(files[k]).astype(np.float64) for k in "WXY")
        y64 = rgms_reference(n, r, a, x, w)
        err = np.abs(y - y64).max() / max(np.abs(y64).max(), 1e-30)
        print("f=%d stir tensor cores %s: %.4f ms (%d runs), %.2fx the "
              "CUDA-core kernel (%.4f ms); max|Y - Y64| / max|Y64| %.2e"
              % (feat, kind, t, reps, t_cuda / t, t_cuda, err), flush=True)


def read_hetero(path):
    """The graph's sizes and edges (numpy arrays src, dst, rel)."""
    import numpy as np
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        head = f.readline().split()
        n, e, r = int(head[1]), int(head[2]), int(head[3])
        a = np.loadtxt(f, dtype=np.int64, comments="%").reshape(-1, 3)
    return n, r, a


def stirc_time(args, sched_text, path, feat, reps, outs=None, program=None):
    """Run stirc on one schedule of program (by default --program):
    (median ms, stirc's output)."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(sched_text)
        sf = f.name
    cmd = [args["stirc"], "run", program or args["program"], "--backend", "cuda",
           "--schedule", sf, "--hetero", "A=" + path,
           "--size", "fin=%d" % feat, "--size", "fout=%d" % feat,
           "--random", "1", "--time", "--reps", str(reps)]
    for k, v in (outs or {}).items():
        cmd += ["--out", "%s=%s" % (k, v)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    os.unlink(sf)
    text = p.stdout + p.stderr
    for line in text.splitlines():
        if line.startswith("time:") and p.returncode == 0:
            return float(line.split()[1]), text
    return None, text


def pyg_layer(path, n, r, a, w, x, y_stir, reps=30):
    """PyG's two layers on the same W, X: [(name, median ms, peak extra
    MiB, max |Y - Y_stir|)]."""
    import numpy as np, torch
    from torch_geometric.nn import RGCNConv, FastRGCNConv
    dev = "cuda"
    ei = torch.tensor(a[:, :2].T.copy(), device=dev)
    et = torch.tensor(a[:, 2], device=dev)
    W = torch.tensor(w, device=dev)          # [R, fin, fout], PyG's layout
    X = torch.tensor(x, device=dev)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    res = []
    for name, cls in (("RGCNConv", RGCNConv), ("FastRGCNConv", FastRGCNConv)):
        try:
            conv = cls(W.shape[1], W.shape[2], r, aggr="add",
                       root_weight=False, bias=False).to(dev)
            with torch.no_grad():
                conv.weight.copy_(W)
                for _ in range(5):
                    out = conv(X, ei, et)
                torch.cuda.synchronize()
                ts = []
                for _ in range(reps):
                    flush.zero_()
                    s = torch.cuda.Event(enable_timing=True)
                    t = torch.cuda.Event(enable_timing=True)
                    s.record(); out = conv(X, ei, et); t.record()
                    torch.cuda.synchronize(); ts.append(s.elapsed_time(t))
                del out
                torch.cuda.synchronize()
                base = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                out = conv(X, ei, et)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - base
                err = float(np.abs(out.cpu().numpy() - y_stir).max())
            res.append((name, float(np.median(ts)), peak / 2**20, err))
            del conv, out
            torch.cuda.empty_cache()
        except Exception as ex:   # out of memory on the large graphs
            res.append((name, None, None, str(ex).splitlines()[0][:80]))
            torch.cuda.empty_cache()
    return res


def cuda_core_candidates(feat, args):
    """The CUDA-core candidates at fin = fout = feat: (name, schedule
    text, program), the aggregated order's (--program) and the edge by
    edge ones (--edge-program, each also as NAME_o with overlapping
    launches), those whose names match --candidates (a
    comma-separated list of shell patterns) when it is given."""
    import fnmatch
    out = [(n, t, args["program"]) for n, t in rgms_schedules(feat, args["schedule"])]
    out += [(n, t, args["edge_program"]) for n, t in rgms_edge_schedules(feat)]
    out += [(n, t, args["edge_program"]) for n, t in rgms_runs_schedules(feat)]
    # the aggregation of the tensor-core tc_runs_* with a CUDA-core apply
    if feat % 4 == 0 and 4 <= feat // 4 <= 32:
        out += [("aggruns_f%d_q4_k%d" % (feat, k), rgms_agg_runs_schedule(feat, 4, k),
                 args["program"]) for k in (4, 8)]
    # each edge by edge candidate also with its two launches overlapping
    # (NAME_o: overlap_launches, docs/cuda.md): Y's zeroing and the edges'
    # launch start-up run at once, the edges waiting for the zeroing
    out += [(n + "_o", t + "overlap_launches: true\n", prog)
            for n, t, prog in out if prog == args["edge_program"]]
    # the fastest of them at 64 and 128 with T and Y zeroed by float4
    # stores (_zf4), as the tensor-core tc_tsh_*_u_zf4 are
    # (the aggregated order's, aggruns_*_zf4, are the library's CUDA-core
    # RGMS recipe, written by `stirc recipe`)
    if feat % 4 == 0 and feat <= 128:
        out += [(n + "_zf4", with_float4_zeroing(t, feat), prog) for n, t, prog in list(out)
                if n == "runs_f%d_v4_k4_o" % feat]
        if 4 <= feat // 4 <= 32:
            out += [("aggruns_f%d_q4_k%d_zf4" % (feat, k),
                     rgms_recipe_schedule(args["stirc"], "rgms", i, feat),
                     args["program"]) for i, k in enumerate(RGMS_RECIPE)]
    if args["candidates"]:
        pats = args["candidates"].split(",")
        out = [c for c in out if any(fnmatch.fnmatch(c[0], p) for p in pats)]
    return out


def main(argv):
    args = {"stirc": "build/tools/stirc", "program": "examples/rgms_agg.stir",
            "schedule": "examples/rgms_agg.yaml",
            "edge_program": "examples/rgms_edge.stir", "candidates": None,
            "reps": 100, "pyg": True, "features": FEATURES, "only": None,
            "tc": True, "tc_candidates": None}
    graphs = []
    i = 0
    while i < len(argv):
        o = argv[i]
        if o in ("--stirc", "--program", "--schedule", "--reps",
                 "--edge-program", "--candidates", "--tc-candidates",
                 "--features", "--schedules-only"):
            if i + 1 == len(argv):
                sys.exit("bench_rgms: %s needs a value" % o)
            v = argv[i + 1]
            i += 2
            if o == "--features":
                try:
                    args["features"] = [int(t) for t in v.split(",")]
                except ValueError:
                    sys.exit("bench_rgms: --features takes sizes like 16,32")
                if any(f < 1 for f in args["features"]):
                    sys.exit("bench_rgms: a feature size must be positive")
            elif o == "--reps":
                args["reps"] = int(v)
            elif o == "--schedules-only":
                args["only"] = v
            else:
                args[o[2:].replace("-", "_")] = v
        elif o == "--no-pyg":
            args["pyg"] = False
            i += 1
        elif o == "--no-tc":
            args["tc"] = False
            i += 1
        elif o in ("-h", "--help"):
            print(__doc__ or open(__file__).read().split("\nimport")[0])
            return 0
        elif o.startswith("-"):
            sys.exit("bench_rgms: unknown option %s (see the head of %s)"
                     % (o, __file__))
        else:
            graphs.append(o)
            i += 1
    if args["only"]:
        os.makedirs(args["only"], exist_ok=True)
        for feat in args["features"]:
            for name, text, _ in cuda_core_candidates(feat, args):
                with open(os.path.join(args["only"], name + ".yaml"), "w") as f:
                    f.write(text)
            # the tensor-core candidates, named tc_fF_NAME
            for name, text, _ in rgms_tc_schedules(feat, args["stirc"]) \
                    if args["tc"] else ():
                with open(os.path.join(args["only"], "tc_f%d_%s.yaml" % (feat, name)),
                          "w") as f:
                    f.write(text)
        return 0
    if not graphs:
        sys.exit("bench_rgms: no graph (GRAPH.hetero[.gz])")
    import numpy as np
    tmp = tempfile.mkdtemp()
    for path in graphs:
        n, r, a = read_hetero(path)
        flat_rows = len(np.unique(a[:, 2] * (n + 1) + a[:, 1]))
        print("%s: %d nodes, %d edges, %d relations, %d (relation, row) pairs"
              % (path, n, len(a), r, flat_rows), flush=True)
        for feat in args["features"]:
            best = None
            for name, text, prog in cuda_core_candidates(feat, args):
                t, out = stirc_time(args, text, path, feat, 30, program=prog)
                print("  f=%d %s: %s" % (feat, name, "%.4f ms" % t if t else
                      "failed: " + out.strip().splitlines()[-1][:120]), flush=True)
                if t is not None and (best is None or t < best[1]):
                    best = (name, t, text, prog)
            if best is None:
                continue
            files = {k: os.path.join(tmp, k + ".npy") for k in "WXY"}
            t, out = stirc_time(args, best[2], path, feat, args["reps"], files,
                                program=best[3])
            if t is None:
                print("  f=%d %s failed again: %s" % (feat, best[0], out))
                continue
            # the edge by edge program has no intermediate T; with COO
            # arrays it has the row and relation of every edge
            t_elems = 0 if best[3] == args["edge_program"] else flat_rows * feat
            coo = 2 * len(a) if "coo: true" in best[2] else 0
            ext = 4 * ((r + 1) + 2 * flat_rows + 1 + 2 * len(a) +
                       t_elems + coo + n * feat)
            line = ("f=%d stir %s: %.4f ms (re-measured, %d runs), peak extra "
                    "%.2f MiB" % (feat, best[0], t, args["reps"], ext / 2**20))
            host = [l for l in out.splitlines() if l.startswith("inputs:")]
            if host:   # stirc's read of the graph into the format
                line += "; host " + host[0][len("inputs: "):]
            print(line, flush=True)
            if args["tc"]:
                rgms_tc_candidates(args, path, n, r, a, feat, t, args["reps"])
            if not args["pyg"]:
                continue
            w, x, y = (np.load(files[k]) for k in "WXY")
            fastest = None
            for name, ms, mib, err in pyg_layer(path, n, r, a, w, x, y):
                if ms is None:
                    print("f=%d %s: failed: %s" % (feat, name, err), flush=True)
                    continue
                print("f=%d %s: %.4f ms, peak extra %.2f MiB, max|Y - Y_stir| "
                      "%.3g; stir is %.2fx faster, with %.4f of its memory"
                      % (feat, name, ms, mib, err, ms / t,
                         ext / 2**20 / mib if mib else float("nan")), flush=True)
                if fastest is None or ms < fastest:
                    fastest = ms
            if fastest:
                print("f=%d stir against the faster PyG layer: %.2fx"
                      % (feat, fastest / t), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
