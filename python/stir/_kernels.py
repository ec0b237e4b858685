"""The stir programs behind stir.spmm and stir.sddmm (the same kernels as
examples/csrmm.stir, examples/sddmm.stir and examples/sddmm_rows.stir:
the same text, so that their tuning-record keys are the same), and the
gather of new values into a prepared format (GATHER_SOURCE, _fast.py)."""

SPMM_SOURCE = """\
// CSR SpMM: C = A B
kernel csrmm(m: i32, n: i32, feat: i32, nnz: i32) {
  axis I = dense_fixed(m);
  axis J = sparse_variable(I, n, nnz);
  axis Jd = dense_fixed(n);
  axis K = dense_fixed(feat);
  tensor A: f32[I, J];
  tensor B: f32[Jd, K];
  tensor C: f32[I, K];
  iter csrmm (i, j, k) in [I, J, K] "SRS" {
    init { C[i, k] = 0.0; }
    C[i, k] += A[i, j] * B[j, k];
  }
}
"""

SDDMM_SOURCE = """\
// SDDMM, one loop over the non-zeros: S = (X Y^T) masked by J's structure
kernel sddmm(m: i32, n: i32, feat: i32, nnz: i32) {
  axis I = dense_fixed(m);
  axis J = sparse_variable(I, n, nnz);
  axis Jd = dense_fixed(n);
  axis K = dense_fixed(feat);
  tensor X: f32[I, K];
  tensor Y: f32[Jd, K];
  tensor S: f32[I, J];
  iter sddmm (i, j, k) in [fuse(I, J), K] "SSR" {
    init { S[i, j] = 0.0; }
    S[i, j] += X[i, k] * Y[j, k];
  }
}
"""

SDDMM_ROWS_SOURCE = """\
// SDDMM row by row: S = (X Y^T) masked by J's structure, the same as
// sddmm.stir but iterating the rows and then each row's non-zeros (no
// fuse), so that no non-zero has to search for its row
kernel sddmm_rows(m: i32, n: i32, feat: i32, nnz: i32) {
  axis I = dense_fixed(m);
  axis J = sparse_variable(I, n, nnz);
  axis Jd = dense_fixed(n);
  axis K = dense_fixed(feat);
  tensor X: f32[I, K];
  tensor Y: f32[Jd, K];
  tensor S: f32[I, J];
  iter sddmm (i, j, k) in [I, J, K] "SSR" {
    init { S[i, j] = 0.0; }
    S[i, j] += X[i, k] * Y[j, k];
  }
}
"""

GATHER_SOURCE = """\
// New values into the value slots of a prepared format: F[q] = V[P[q]],
// 0 where P[q] is -1 (a padding slot: no stored coordinate, read as 0)
kernel gather(s: i32, nnz: i32) {
  axis Q = dense_fixed(s);
  axis N = dense_fixed(nnz);
  tensor P: i32[Q] in [-1, nnz);
  tensor V: f32[N];
  tensor F: f32[Q];
  iter gather (q) in [Q] "S" {
    F[q] = V[P[q]];
  }
}
"""
