//! Longest common subsequence in linear space: Myers' O((N+M)·D) algorithm with the "middle
//! snake" divide and conquer (Myers 1986, section 4b). Common prefixes and suffixes are matched
//! directly at every level. Cheap when the sequences are similar (small D).

/// Index pairs `(i, j)` with `a[i] == b[j]`, strictly increasing in both, of maximal length.
pub fn lcs(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    solve(a, b, 0, 0, &mut out);
    out
}

/// Append the matches of `a` against `b` (offsets `ox`, `oy` into the full sequences) to `out`.
fn solve(
    mut a: &[u32],
    mut b: &[u32],
    mut ox: usize,
    mut oy: usize,
    out: &mut Vec<(usize, usize)>,
) {
    let pre = common_prefix(a, b);
    out.extend((0..pre).map(|i| (ox + i, oy + i)));
    (a, b, ox, oy) = (&a[pre..], &b[pre..], ox + pre, oy + pre);
    let suf = common_suffix(a, b);
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    if !a.is_empty() && !b.is_empty() {
        // Both ends now differ, so at least two edits remain and each half below is smaller.
        let (x, y, u, v) = middle_snake(a, b);
        solve(&a[..x], &b[..y], ox, oy, out);
        out.extend((0..u - x).map(|i| (ox + x + i, oy + y + i)));
        solve(&a[u..], &b[v..], ox + u, oy + v, out);
    }
    let (n, m) = (a.len(), b.len());
    out.extend((0..suf).map(|i| (ox + n + i, oy + m + i)));
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u32], b: &[u32]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The middle snake of an optimal edit path: `(x, y)` to `(u, v)`, a run of matches such that an
/// optimal path goes from (0,0) to (x,y), along the snake, then to (n,m).
fn middle_snake(a: &[u32], b: &[u32]) -> (usize, usize, usize, usize) {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let delta = n - m;
    let odd = delta & 1 != 0;
    let max = (n + m + 1) / 2;
    let off = max + 1;
    let size = (2 * max + 3) as usize;
    // vf[k]: furthest x on forward diagonal k = x - y. vb[c]: furthest reverse x on reverse
    // diagonal c, where reverse coordinates count from the end; forward diagonal k = delta - c.
    let mut vf = vec![0isize; size];
    let mut vb = vec![0isize; size];
    for d in 0..=max {
        let mut k = -d;
        while k <= d {
            let i = (k + off) as usize;
            let mut x = if k == -d || (k != d && vf[i - 1] < vf[i + 1]) {
                vf[i + 1]
            } else {
                vf[i - 1] + 1
            };
            let (x0, y0) = (x, x - k);
            let mut y = y0;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            vf[i] = x;
            let c = delta - k;
            if odd && c > -d && c < d && x + vb[(c + off) as usize] >= n {
                return (x0 as usize, y0 as usize, x as usize, y as usize);
            }
            k += 2;
        }
        let mut c = -d;
        while c <= d {
            let i = (c + off) as usize;
            let mut x = if c == -d || (c != d && vb[i - 1] < vb[i + 1]) {
                vb[i + 1]
            } else {
                vb[i - 1] + 1
            };
            let (x0, y0) = (x, x - c);
            let mut y = y0;
            while x < n && y < m && a[(n - 1 - x) as usize] == b[(m - 1 - y) as usize] {
                x += 1;
                y += 1;
            }
            vb[i] = x;
            let k = delta - c;
            if !odd && k >= -d && k <= d && x + vf[(k + off) as usize] >= n {
                return (
                    (n - x) as usize,
                    (m - y) as usize,
                    (n - x0) as usize,
                    (m - y0) as usize,
                );
            }
            c += 2;
        }
    }
    unreachable!("an edit path of length at most n + m always exists")
}
