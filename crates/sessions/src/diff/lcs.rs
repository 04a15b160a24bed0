//! Longest common subsequence of two integer sequences, exact, choosing the algorithm by shape.
//!
//! Elements that occur in only one sequence can never be matched, so they are dropped first (two
//! unrelated sessions then cost nothing). What remains goes to one of two exact algorithms:
//! - few matching pairs (messages mostly distinct, the usual case): LCS as the longest increasing
//!   subsequence of the match list (Hunt–Szymanski), O(r log r) for r pairs, whatever the order;
//! - many matching pairs (a few contents repeated throughout): Myers, O((N+M)·D), linear space.
use std::collections::HashMap;

use super::myers;

/// Index pairs `(i, j)` with `a[i] == b[j]`, strictly increasing in both, of maximal length.
pub fn lcs(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    let mut count: HashMap<u32, (usize, usize)> = HashMap::new();
    for x in a {
        count.entry(*x).or_default().0 += 1;
    }
    for x in b {
        count.entry(*x).or_default().1 += 1;
    }
    let shared = |x: &u32| count[x].0 > 0 && count[x].1 > 0;
    let (ka, ia): (Vec<u32>, Vec<usize>) = (0..a.len())
        .filter(|i| shared(&a[*i]))
        .map(|i| (a[i], i))
        .unzip();
    let (kb, ib): (Vec<u32>, Vec<usize>) = (0..b.len())
        .filter(|j| shared(&b[*j]))
        .map(|j| (b[j], j))
        .unzip();
    let pairs: usize = count.values().map(|(x, y)| x * y).sum();
    let found = if pairs <= SPARSE_PAIRS_PER_ELEMENT * (ka.len() + kb.len()) {
        sparse(&ka, &kb)
    } else {
        myers::lcs(&ka, &kb)
    };
    found.into_iter().map(|(i, j)| (ia[i], ib[j])).collect()
}

/// Above this many matching pairs per element, the match list would cost more than Myers.
const SPARSE_PAIRS_PER_ELEMENT: usize = 8;

/// LCS as the longest strictly increasing run of `j` over the match pairs taken in `i` order
/// (each `i`'s matches in decreasing `j`, so one `i` is never used twice). Patience sorting with
/// back links: O(r log r) time, O(r) space.
fn sparse(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    let mut positions: HashMap<u32, Vec<usize>> = HashMap::new();
    for (j, x) in b.iter().enumerate() {
        positions.entry(*x).or_default().push(j);
    }
    const NONE: usize = usize::MAX;
    let mut nodes: Vec<(usize, usize, usize)> = Vec::new(); // (i, j, previous node)
    let mut tails: Vec<usize> = Vec::new(); // tails[k]: node ending the best run of length k + 1
    for (i, x) in a.iter().enumerate() {
        let Some(js) = positions.get(x) else { continue };
        for &j in js.iter().rev() {
            let k = tails.partition_point(|&t| nodes[t].1 < j);
            let prev = if k == 0 { NONE } else { tails[k - 1] };
            nodes.push((i, j, prev));
            if k == tails.len() {
                tails.push(nodes.len() - 1);
            } else {
                tails[k] = nodes.len() - 1;
            }
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied().unwrap_or(NONE);
    while at != NONE {
        out.push((nodes[at].0, nodes[at].1));
        at = nodes[at].2;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: the quadratic dynamic programme, for lengths only.
    fn lcs_len(a: &[u32], b: &[u32]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diag = 0;
            for (j, y) in b.iter().enumerate() {
                let up = row[j + 1];
                row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
                diag = up;
            }
        }
        row[b.len()]
    }

    fn check(a: &[u32], b: &[u32]) {
        let pairs = lcs(a, b);
        assert_eq!(pairs.len(), lcs_len(a, b), "a={a:?} b={b:?}");
        for w in pairs.windows(2) {
            assert!(
                w[0].0 < w[1].0 && w[0].1 < w[1].1,
                "not increasing: {pairs:?}"
            );
        }
        for (i, j) in pairs {
            assert_eq!(a[i], b[j]);
        }
    }

    #[test]
    fn edge_cases() {
        check(&[], &[]);
        check(&[1], &[]);
        check(&[], &[1, 2]);
        check(&[1, 2, 3], &[1, 2, 3]);
        check(&[1, 2, 3], &[4, 5, 6]);
        check(&[1, 2], &[2, 1]);
        check(&[1, 2, 3, 4, 5], &[5, 4, 3, 2, 1]);
        assert_eq!(lcs(&[7, 1, 2, 9], &[1, 2, 8]), vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn matches_the_quadratic_reference_on_random_inputs() {
        // xorshift: deterministic, no dependency
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for round in 0..2000 {
            let alphabet = 1 + (round % 6) as u64;
            let n = (next() % 25) as usize;
            let m = (next() % 25) as usize;
            let a: Vec<u32> = (0..n).map(|_| (next() % alphabet) as u32).collect();
            let b: Vec<u32> = (0..m).map(|_| (next() % alphabet) as u32).collect();
            check(&a, &b);
        }
    }
}
