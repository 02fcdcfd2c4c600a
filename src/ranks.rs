//! Rank probabilities (`ranks.csv`, the terminal's and report.html's rank table): how likely each
//! engine is to hold each place, from the joint fit's ratings and covariance. Pure.
//!
//! Method: Monte-Carlo over the fit's normal approximation, the ratings' sampling distribution
//! N(elo, Cov) with the pair-clustered sandwich covariance of [`crate::rating::fit`]. Each draw
//! ranks the engines; P(rank = k) is the share of draws that put the engine k-th, the expected
//! rank their mean. [`SAMPLES`] draws make every probability's standard error at most
//! 0.5/√SAMPLES = 0.25 percentage points, so ±0.5 pp at 95%. The generator is ChaCha8 seeded
//! from the scope's name ([`crate::seed`]), so the file is the same on every run and platform.
//! Ordo's LOS matrix gives the pairwise version; this answers "is team 7 really second?".
//!
//! Cov is singular (ratings are relative: mean zero, or one engine anchored), so it is
//! factored by a semidefinite Cholesky that skips pivots below 1e-12 of the largest diagonal.
//! Engines of several pools have no common scale: such a scope gets no rows.

use crate::rating::Fit;
use crate::seed;

/// Draws per scope: 40,000, so that a probability's 95% sampling error is below ±0.5 pp.
pub const SAMPLES: usize = 40_000;

/// The most engines of a scope given rank probabilities: each draw costs engines² steps, and
/// beyond this a place among so many says little.
pub const MAX_ENGINES: usize = 64;

/// The largest number of engines shown in the terminal's and report's compact table.
pub const MAX_SHOWN: usize = 12;

/// One engine's rank probabilities in one scope.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankRow {
    /// Scope, as in ratings.csv.
    pub scope: String,
    /// Engine name.
    pub engine: String,
    /// P(rank = k + 1) for k = 0 … engines − 1, each in 0..=1; they sum to 1.
    pub probability: Vec<f64>,
    /// Expected rank (1 = first).
    pub expected_rank: f64,
}

impl RankRow {
    /// Its ranks.csv record for a file of `places` place columns: `scope, engine, p1 … pN`
    /// (percent, 0.1; empty beyond the scope's engines), `expected_rank` (0.01).
    pub fn record(&self, places: usize) -> Vec<String> {
        let mut cells = vec![self.scope.clone(), self.engine.clone()];
        cells.extend((0..places).map(|k| {
            self.probability
                .get(k)
                .map_or_else(String::new, |p| format!("{:.1}", 100.0 * p))
        }));
        cells.push(format!("{:.2}", self.expected_rank));
        cells
    }
}

/// Standard normal draws by the Box–Muller transform (Box and Muller 1958), two per pair of
/// uniforms.
struct Normals {
    rng: seed::SeededRng,
    spare: Option<f64>,
}

impl Normals {
    fn next(&mut self) -> f64 {
        use rand::Rng;
        if let Some(z) = self.spare.take() {
            return z;
        }
        // 53-bit uniforms; u1 in (0, 1] so that its logarithm is finite.
        let unit = |x: u64| (x >> 11) as f64 / (1u64 << 53) as f64;
        let u1 = 1.0 - unit(self.rng.next_u64());
        let u2 = unit(self.rng.next_u64());
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = 2.0 * std::f64::consts::PI * u2;
        self.spare = Some(radius * angle.sin());
        radius * angle.cos()
    }
}

/// The lower-triangular factor L with L Lᵀ = `cov` for a positive semidefinite `cov`; columns
/// whose pivot is (numerically) zero are left zero.
#[allow(clippy::needless_range_loop)]
fn cholesky(cov: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = cov.len();
    let scale = (0..n).map(|i| cov[i][i]).fold(0.0, f64::max);
    let mut l = vec![vec![0.0; n]; n];
    for j in 0..n {
        let d = cov[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if d <= 1e-12 * scale {
            continue;
        }
        let pivot = d.sqrt();
        l[j][j] = pivot;
        for i in j + 1..n {
            let s = cov[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            l[i][j] = s / pivot;
        }
    }
    l
}

/// Rank probabilities of the engines `members` (indices into the fit) named `names`, in
/// `scope`; none when they are in several pools or fewer than two.
pub fn compute(scope: &str, names: &[&str], members: &[usize], fit: &Fit) -> Vec<RankRow> {
    let m = members.len();
    if m < 2 || members.iter().any(|&e| fit.pool[e] != fit.pool[members[0]]) {
        return Vec::new();
    }
    let cov: Vec<Vec<f64>> = members
        .iter()
        .map(|&i| members.iter().map(|&j| fit.cov[i][j]).collect())
        .collect();
    let l = cholesky(&cov);
    let mean: Vec<f64> = members.iter().map(|&i| fit.elo[i]).collect();
    let scope_seed = scope
        .bytes()
        .fold(0x27u64, |h, b| seed::mix(h ^ u64::from(b)));
    let mut normals = Normals {
        rng: seed::rng(scope_seed),
        spare: None,
    };
    let mut counts = vec![vec![0u64; m]; m];
    let mut z = vec![0.0; m];
    let mut x = vec![0.0; m];
    let mut order: Vec<usize> = (0..m).collect();
    for _ in 0..SAMPLES {
        for v in z.iter_mut() {
            *v = normals.next();
        }
        for i in 0..m {
            x[i] = mean[i] + (0..=i).map(|k| l[i][k] * z[k]).sum::<f64>();
        }
        // Ties (equal draws, e.g. an anchored engine and a copy) go to the lower index.
        order.sort_by(|&a, &b| x[b].total_cmp(&x[a]).then(a.cmp(&b)));
        for (rank, &e) in order.iter().enumerate() {
            counts[e][rank] += 1;
        }
    }
    (0..m)
        .map(|e| {
            let probability: Vec<f64> = counts[e]
                .iter()
                .map(|&c| c as f64 / SAMPLES as f64)
                .collect();
            let expected_rank = probability
                .iter()
                .enumerate()
                .map(|(k, p)| (k + 1) as f64 * p)
                .sum();
            RankRow {
                scope: scope.to_owned(),
                engine: names[e].to_owned(),
                probability,
                expected_rank,
            }
        })
        .collect()
}

/// The compact table for the terminal (scope `all`, at most [`MAX_SHOWN`] engines, in the
/// order given): one line per engine with P(rank = k) in percent; empty when there is none.
pub fn table(rows: &[RankRow], scope: &str) -> String {
    let rows: Vec<&RankRow> = rows.iter().filter(|r| r.scope == scope).collect();
    if rows.len() < 2 || rows.len() > MAX_SHOWN {
        return String::new();
    }
    let width = rows
        .iter()
        .map(|r| r.engine.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!("rank probabilities (%):\n{:width$}", "engine");
    for k in 1..=rows.len() {
        out.push_str(&format!(" {:>5}", format!("#{k}")));
    }
    out.push_str("  expected\n");
    for r in rows {
        out.push_str(&format!("{:width$}", r.engine));
        for p in &r.probability {
            out.push_str(&format!(" {:>5.1}", 100.0 * p));
        }
        out.push_str(&format!("  {:>8.2}\n", r.expected_rank));
    }
    out
}

/// The file name in the output directory.
pub const FILE: &str = "ranks.csv";

/// The header of ranks.csv for `places` places: `scope, engine, p1 … pN, expected_rank`.
pub fn header(places: usize) -> Vec<String> {
    let mut h = vec!["scope".to_owned(), "engine".to_owned()];
    h.extend((1..=places).map(|k| format!("p{k}")));
    h.push("expected_rank".to_owned());
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::{FitGame, FitOptions, fit};

    fn games(table: &[(usize, usize, usize, usize, usize)]) -> Vec<FitGame> {
        crate::rating::fit_games(table)
    }

    #[test]
    fn rows_sum_to_one_and_a_dominant_engine_is_first() {
        // Engine 0 crushes everyone; 1 and 2 have identical results against everyone.
        let g = games(&[(0, 1, 38, 1, 1), (0, 2, 38, 1, 1), (1, 2, 10, 20, 10)]);
        let f = fit(3, &g, &FitOptions::default());
        let rows = compute("all", &["a", "b", "c"], &[0, 1, 2], &f);
        for r in &rows {
            assert!(
                (r.probability.iter().sum::<f64>() - 1.0).abs() < 1e-9,
                "{r:?}"
            );
        }
        for k in 0..3 {
            let column: f64 = rows.iter().map(|r| r.probability[k]).sum();
            assert!((column - 1.0).abs() < 1e-9);
        }
        assert!(rows[0].probability[0] > 0.99, "{:?}", rows[0]);
        // Identical results: equal probabilities within the sampling error (4 standard errors
        // of a difference of two shares of 40,000 draws: 4·√(2·0.25/40000) ≈ 1.4 pp).
        for k in 0..3 {
            let diff = (rows[1].probability[k] - rows[2].probability[k]).abs();
            assert!(diff < 0.014, "{:?} {:?}", rows[1], rows[2]);
        }
        // Reproducible from the seed.
        assert_eq!(rows, compute("all", &["a", "b", "c"], &[0, 1, 2], &f));
        let text = table(&rows, "all");
        assert!(text.contains("#3") && text.lines().count() == 5, "{text}");
    }

    #[test]
    fn the_normals_have_mean_zero_and_variance_one() {
        let mut n = Normals {
            rng: seed::rng(1),
            spare: None,
        };
        let draws: Vec<f64> = (0..100_000).map(|_| n.next()).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!(
            mean.abs() < 0.01 && (var - 1.0).abs() < 0.02,
            "{mean} {var}"
        );
    }
}
