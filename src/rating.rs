//! Rating maths: a joint Bradley–Terry fit of every engine with pair-clustered (sandwich)
//! covariance, and the two-player trinomial and pentanomial estimates of fastchess and fishtest.
//! No I/O; `docs/ratings.md` gives the derivations and sources.
//!
//! Units: Elo on the logistic scale P = 1/(1+10^(−Δ/400)); internally natural units
//! θ = Elo·ln10/400. Intervals are symmetric (±z·σ) for the joint fit and from the transformed
//! score endpoints for the two-player estimates, as fishtest does.
//!
//! ```
//! use arena::rating::{self, FitGame};
//!
//! // Engine 0 beats engine 1 in one leg of a game pair, they draw the other.
//! let games = [
//!     FitGame { a: 0, b: 1, points_a: 1.0, cluster: 0 },
//!     FitGame { a: 1, b: 0, points_a: 0.5, cluster: 0 },
//!     FitGame { a: 1, b: 0, points_a: 0.5, cluster: 1 },
//!     FitGame { a: 0, b: 1, points_a: 0.0, cluster: 1 },
//! ];
//! let fit = rating::fit(2, &games, &rating::FitOptions::default());
//! assert!(fit.elo[0].abs() < 1e-9 && fit.elo[1].abs() < 1e-9);
//! ```

use std::collections::BTreeMap;

use statrs::distribution::{ContinuousCDF, Normal};

/// The largest |Elo| of an anchor (`--anchor`, a config's `anchor`): far beyond any rating list,
/// small enough that every rating and interval written from it stays finite.
pub const MAX_ANCHOR: f64 = 1e6;

/// Elo per natural-log unit of strength: 400/ln 10.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

fn normal() -> Normal {
    Normal::new(0.0, 1.0).expect("the standard normal is valid")
}

/// The two-sided critical value for confidence `level` (0.95 → 1.959964).
pub fn z_for(level: f64) -> f64 {
    normal().inverse_cdf(0.5 + level / 2.0)
}

/// Φ, the standard normal CDF.
pub fn phi(x: f64) -> f64 {
    normal().cdf(x)
}

/// Elo difference of an expected score `s` in (0, 1); `None` at 0 or 1 (infinite).
pub fn elo_of_score(s: f64) -> Option<f64> {
    (s > 0.0 && s < 1.0).then(|| -400.0 * (1.0 / s - 1.0).log10())
}

/// Expected score of a player `elo` points stronger.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A two-player estimate of A's strength over B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Games (trinomial) or game pairs (pentanomial).
    pub samples: u64,
    /// A's mean score per game, 0..=1.
    pub score: f64,
    /// Elo difference; `None` for a 0% or 100% score.
    pub elo: Option<f64>,
    /// Lower end of the interval (Elo); `None` when unbounded.
    pub lower: Option<f64>,
    /// Upper end of the interval (Elo); `None` when unbounded.
    pub upper: Option<f64>,
    /// Likelihood of superiority: P(A stronger than B), 0..=1.
    pub los: f64,
    /// Normalized Elo (score excess over its standard deviation, on the Elo scale); `None`
    /// when every sample scored the same but not ½ (no spread to normalise by).
    pub nelo: Option<f64>,
    /// Half-width of the nElo interval.
    pub nelo_err: f64,
}

impl Estimate {
    /// Half the interval's width, as fastchess prints it (`elo ± this`).
    pub fn half_width(&self) -> Option<f64> {
        Some((self.upper? - self.lower?) / 2.0)
    }
}

/// Builds an estimate from per-sample scores `values` (each in 0..=1) with multiplicities
/// `counts`; `games_per_sample` is 1 (trinomial) or 2 (pentanomial, for nElo).
fn estimate(values: &[f64], counts: &[u64], games_per_sample: f64, level: f64) -> Option<Estimate> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let score = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| v * c as f64)
        .sum::<f64>()
        / nf;
    let var = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| c as f64 * (v - score).powi(2))
        .sum::<f64>()
        / nf;
    let sigma_mean = (var.max(variance_floor(values, n)) / nf).sqrt();
    let z = z_for(level);
    // One sample says nothing of its own spread: a single (distinct) game pair won 2–0 is no
    // evidence of a difference, whatever the floor (which would call it significant).
    let unknown_spread = n < 2;
    let los = if unknown_spread {
        0.5
    } else if sigma_mean > 0.0 {
        phi((score - 0.5) / sigma_mean)
    } else if score > 0.5 {
        1.0
    } else if score < 0.5 {
        0.0
    } else {
        0.5
    };
    let per_game_sigma = var.sqrt() * games_per_sample.sqrt();
    let nelo_scale = 2.0 * ELO_PER_NAT;
    let nelo = if per_game_sigma > 0.0 {
        Some((score - 0.5) / per_game_sigma * nelo_scale)
    } else {
        (score == 0.5).then_some(0.0)
    };
    let nelo_err = z / (nf * games_per_sample).sqrt() * nelo_scale;
    Some(Estimate {
        samples: n,
        score,
        elo: elo_of_score(score),
        lower: elo_of_score(score - z * sigma_mean).filter(|_| !unknown_spread),
        upper: elo_of_score(score + z * sigma_mean).filter(|_| !unknown_spread),
        los,
        nelo,
        nelo_err,
    })
}

/// The smallest per-sample variance an interval is built on, after `n` samples: what one
/// virtual sample spread evenly over the outcome `values` (a Laplace-style pseudo-count prior)
/// adds, `v₀/(n+1)` with `v₀` the variance of the uniform distribution on `values` (1/6 for
/// W/D/L, 1/8 for the five pentanomial outcomes). It binds only when the observed samples
/// barely spread, e.g. every game pair split 1–1, where the sample variance is 0 and the
/// interval would otherwise have zero width; for ordinary samples the sample variance is far
/// larger and the fastchess/fishtest figures are unchanged. See docs/ratings.md.
fn variance_floor(values: &[f64], n: u64) -> f64 {
    let k = values.len() as f64;
    let mean = values.iter().sum::<f64>() / k;
    let v0 = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / k;
    v0 / (n as f64 + 1.0)
}

/// The trinomial estimate from A's wins, draws and losses (fastchess `EloWDL`); `None` for no
/// games.
pub fn trinomial(wins: u64, draws: u64, losses: u64, level: f64) -> Option<Estimate> {
    estimate(&[1.0, 0.5, 0.0], &[wins, draws, losses], 1.0, level)
}

/// The pentanomial estimate from the counts of game pairs in which A scored 0, ½, 1, 1½ and 2
/// points (fishtest `get_elo` on the pentanomial); `None` for no pairs.
pub fn pentanomial(pairs: [u64; 5], level: f64) -> Option<Estimate> {
    estimate(&[0.0, 0.25, 0.5, 0.75, 1.0], &pairs, 2.0, level)
}

/// One game for the joint fit: engines `a` and `b` (indices), `a`'s points (0, ½ or 1) and the
/// game pair it belongs to (games with the same `cluster` are treated as correlated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitGame {
    /// First engine's index.
    pub a: usize,
    /// Second engine's index.
    pub b: usize,
    /// Points scored by `a`: 0, 0.5 or 1.
    pub points_a: f64,
    /// Game pair id; games of one pair share it.
    pub cluster: u64,
}

/// Settings of the joint fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// Engine index whose rating is fixed, and the value (Elo); `None`: mean 0 per pool.
    pub anchor: Option<(usize, f64)>,
    /// Confidence level of the intervals, e.g. 0.95.
    pub level: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            anchor: None,
            level: 0.95,
        }
    }
}

/// Flags attached to an engine's rating.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// It won every point or none: its rating leans on the prior.
    pub perfect_score: bool,
    /// Its pool needed the prior (some engine or group won or lost everything).
    pub prior: bool,
    /// Its interval rests on the small-sample variance floor (its results barely spread, e.g.
    /// every game pair split 1–1): the floor widens it by more than 10%.
    pub floor: bool,
    /// 1-based pool number when engines form several disconnected pools, else `None`.
    pub pool: Option<usize>,
    /// It played no game.
    pub unrated: bool,
}

impl Flags {
    /// Space-separated flag words for a CSV cell (empty when none).
    pub fn words(&self) -> String {
        let mut words = Vec::new();
        if self.unrated {
            words.push("unrated".to_owned());
        }
        if self.perfect_score {
            words.push("perfect_score".to_owned());
        }
        if self.prior {
            words.push("prior".to_owned());
        }
        // After a perfect score the open side already says the data bound nothing.
        if self.floor && !self.perfect_score {
            words.push("floor".to_owned());
        }
        if let Some(pool) = self.pool {
            words.push(format!("pool{pool}"));
        }
        words.join(" ")
    }
}

/// The result of [`fit`]: ratings, their covariance and flags, indexed like the engines.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Ratings (Elo).
    pub elo: Vec<f64>,
    /// Covariance of the ratings (Elo²), pair-clustered sandwich estimate.
    pub cov: Vec<Vec<f64>>,
    /// Interval half-width at the requested level (Elo): z·√cov\[i]\[i].
    pub err: Vec<f64>,
    /// Per-engine flags.
    pub flags: Vec<Flags>,
    /// Pool of each engine (0-based), pools ordered by their smallest engine index.
    pub pool: Vec<usize>,
    /// Whether the Newton solver fell back to minorization–maximization.
    pub used_mm: bool,
    /// Whether the small-sample variance floor raised any engine pair's variance (even where
    /// it widens no interval enough for the `floor` flag).
    pub floor_applied: bool,
}

impl Fit {
    /// Likelihood that engine `a` is stronger than `b`: Φ(Δ/√(C_aa + C_bb − 2C_ab)); `None`
    /// when they are in different pools.
    pub fn los(&self, a: usize, b: usize) -> Option<f64> {
        if self.pool[a] != self.pool[b] {
            return None;
        }
        let var = self.cov[a][a] + self.cov[b][b] - 2.0 * self.cov[a][b];
        let diff = self.elo[a] - self.elo[b];
        Some(if var > 1e-12 {
            phi(diff / var.sqrt())
        } else if diff > 0.0 {
            1.0
        } else if diff < 0.0 {
            0.0
        } else {
            0.5
        })
    }
}

/// Solves `m x = rhs` by Gaussian elimination with partial pivoting; `None` if singular.
// Index loops read as the textbook algorithm; rows are borrowed two at a time.
#[allow(clippy::needless_range_loop)]
fn solve(mut m: Vec<Vec<f64>>, mut rhs: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let factor = m[row][col] / m[col][col];
                if factor != 0.0 {
                    for k in col..n {
                        m[row][k] -= factor * m[col][k];
                    }
                    for k in 0..rhs[row].len() {
                        rhs[row][k] -= factor * rhs[col][k];
                    }
                }
            }
        }
    }
    for row in 0..n {
        let d = m[row][row];
        for v in &mut rhs[row] {
            *v /= d;
        }
    }
    Some(rhs)
}

fn matmul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (n, k, m) = (a.len(), b.len(), b.first().map_or(0, Vec::len));
    let mut out = vec![vec![0.0; m]; n];
    for i in 0..n {
        for l in 0..k {
            let x = a[i][l];
            if x != 0.0 {
                for j in 0..m {
                    out[i][j] += x * b[l][j];
                }
            }
        }
    }
    out
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Aggregated results of one pool: `games[i][j]` and `points[i][j]` of local engine i vs j.
struct Pool {
    members: Vec<usize>,
    games: Vec<Vec<f64>>,
    points: Vec<Vec<f64>>,
}

impl Pool {
    /// Newton's method on the log-likelihood; `None` if it does not converge.
    fn newton(&self) -> Option<Vec<f64>> {
        let m = self.members.len();
        let mut theta = vec![0.0; m];
        for _ in 0..200 {
            let (grad, info) = self.gradient_and_information(&theta);
            // (L + 11ᵀ/m) is invertible for a connected pool and gives the mean-zero step.
            let mut system = info;
            for row in &mut system {
                for v in row.iter_mut() {
                    *v += 1.0 / m as f64;
                }
            }
            let step = solve(system, grad.iter().map(|&g| vec![g]).collect())?;
            let largest = step.iter().map(|s| s[0].abs()).fold(0.0, f64::max);
            // Damped so an early overshoot cannot run away.
            let scale = if largest > 2.0 { 2.0 / largest } else { 1.0 };
            for (t, s) in theta.iter_mut().zip(&step) {
                *t += scale * s[0];
            }
            if largest < 1e-12 {
                return theta.iter().all(|t| t.is_finite()).then_some(theta);
            }
        }
        None
    }

    /// Hunter's MM algorithm (2004), the fallback: slower but always monotone.
    fn mm(&self) -> Vec<f64> {
        let m = self.members.len();
        let mut gamma = vec![1.0; m];
        for _ in 0..100_000 {
            let mut next = vec![0.0; m];
            let mut change: f64 = 0.0;
            for i in 0..m {
                let wins: f64 = self.points[i].iter().sum();
                let denominator: f64 = (0..m)
                    .filter(|&j| j != i)
                    .map(|j| self.games[i][j] / (gamma[i] + gamma[j]))
                    .sum();
                next[i] = if denominator > 0.0 {
                    wins / denominator
                } else {
                    gamma[i]
                };
            }
            let mean_log = next.iter().map(|g: &f64| g.ln()).sum::<f64>() / m as f64;
            for (g, n) in gamma.iter_mut().zip(&next) {
                let normalized = (n.ln() - mean_log).exp();
                change = change.max((normalized.ln() - g.ln()).abs());
                *g = normalized;
            }
            if change < 1e-12 {
                break;
            }
        }
        gamma.iter().map(|g| g.ln()).collect()
    }

    fn gradient_and_information(&self, theta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let m = theta.len();
        let mut grad = vec![0.0; m];
        let mut info = vec![vec![0.0; m]; m];
        for i in 0..m {
            for j in 0..m {
                let n = self.games[i][j];
                if i == j || n == 0.0 {
                    continue;
                }
                let p = sigmoid(theta[i] - theta[j]);
                grad[i] += self.points[i][j] - n * p;
                let w = n * p * (1.0 - p);
                info[i][i] += w;
                info[i][j] -= w;
            }
        }
        (grad, info)
    }

    #[allow(clippy::needless_range_loop)]
    /// Ford's condition for a finite maximum: every engine beats (scores against) its way to
    /// every other, i.e. the "scored against" digraph is strongly connected.
    fn has_finite_mle(&self) -> bool {
        let m = self.members.len();
        let reach = |forward: bool| {
            let mut seen = vec![false; m];
            let mut stack = vec![0];
            seen[0] = true;
            while let Some(i) = stack.pop() {
                for j in 0..m {
                    let scored = if forward {
                        self.points[i][j]
                    } else {
                        self.points[j][i]
                    };
                    if !seen[j] && scored > 0.0 {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            seen.into_iter().all(|s| s)
        };
        reach(true) && reach(false)
    }
}

/// The joint fit's counterpart of [`variance_floor`]: for each engine pair that met in `n` game
/// pairs, the summed squared score residuals of its clusters (the 2×2 block of the meat, in
/// points²) are raised to at least Σ v₀(k)/(n+1), where v₀ is the uniform-prior variance of a
/// cluster's points (1/6 for one game, 1/2 for a game pair). Without it, five game pairs that
/// each split 1–1 give a sandwich of exactly zero and an interval of ±0.
///
///
/// Returns whether it raised any block.
fn add_meat_floor(meat: &mut [Vec<f64>], games: &[FitGame]) -> bool {
    // Per engine pair (a < b): the games of each of its clusters.
    let mut pairs: BTreeMap<(usize, usize), BTreeMap<u64, u32>> = BTreeMap::new();
    for g in games {
        *pairs
            .entry((g.a.min(g.b), g.a.max(g.b)))
            .or_default()
            .entry(g.cluster)
            .or_default() += 1;
    }
    let mut raised = false;
    for (&(a, b), clusters) in &pairs {
        let n = clusters.len() as f64;
        let floor: f64 = clusters
            .values()
            .map(|&k| match k {
                1 => 1.0 / 6.0,
                k => f64::from(k) * f64::from(k) / 8.0,
            })
            .sum::<f64>()
            / (n + 1.0);
        // The pair's own block is s·[[1, −1], [−1, 1]]; games with other engines add to the
        // diagonal only through other blocks, so the off-diagonal entry measures s exactly.
        let observed = -meat[a][b];
        if observed < floor {
            let extra = floor - observed.max(0.0);
            meat[a][a] += extra;
            meat[b][b] += extra;
            meat[a][b] -= extra;
            meat[b][a] -= extra;
            raised = true;
        }
    }
    raised
}

/// Pools: the connected components of the "played each other" graph. Returns, per engine,
/// whether it played and its pool (`usize::MAX` if none), and each pool's members in order.
fn split_pools(engines: usize, games: &[FitGame]) -> (Vec<bool>, Vec<usize>, Vec<Vec<usize>>) {
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..engines).collect();
    let mut played = vec![false; engines];
    for g in games {
        played[g.a] = true;
        played[g.b] = true;
        let (ra, rb) = (find(&mut parent, g.a), find(&mut parent, g.b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut pool_of = vec![usize::MAX; engines];
    let mut pools: Vec<Vec<usize>> = Vec::new();
    for e in (0..engines).filter(|&e| played[e]) {
        let root = find(&mut parent, e);
        if pool_of[root] == usize::MAX {
            pool_of[root] = pools.len();
            pools.push(Vec::new());
        }
        let p = pool_of[root];
        pool_of[e] = p;
        pools[p].push(e);
    }
    (played, pool_of, pools)
}

/// The pseudo-inverse of a connected pool's information matrix (the weighted Laplacian):
/// I⁺ = (L + 11ᵀ/m)⁻¹ − 11ᵀ/m.
fn pseudo_inverse(info: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let m = info.len();
    let mut shifted = info;
    for row in &mut shifted {
        for v in row.iter_mut() {
            *v += 1.0 / m as f64;
        }
    }
    let identity: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    let mut pinv = solve(shifted, identity).unwrap_or_else(|| vec![vec![0.0; m]; m]);
    for row in &mut pinv {
        for v in row.iter_mut() {
            *v -= 1.0 / m as f64;
        }
    }
    pinv
}

/// The sandwich's meat J = Σ_clusters U_c U_cᵀ, U_c the summed score residuals of a game pair.
/// A game pair touches two engines, so each cluster's score vector is kept sparse.
fn clustered_meat(m: usize, games: &[FitGame], theta: &[f64]) -> Vec<Vec<f64>> {
    let mut sorted: Vec<&FitGame> = games.iter().collect();
    sorted.sort_by_key(|g| g.cluster);
    let mut meat = vec![vec![0.0; m]; m];
    let mut u: Vec<(usize, f64)> = Vec::with_capacity(4);
    let mut flush = |u: &mut Vec<(usize, f64)>| {
        for &(i, ui) in u.iter() {
            for &(j, uj) in u.iter() {
                meat[i][j] += ui * uj;
            }
        }
        u.clear();
    };
    let mut current = None;
    for g in sorted {
        if current != Some(g.cluster) {
            flush(&mut u);
            current = Some(g.cluster);
        }
        let residual = g.points_a - sigmoid(theta[g.a] - theta[g.b]);
        for (k, r) in [(g.a, residual), (g.b, -residual)] {
            match u.iter_mut().find(|(i, _)| *i == k) {
                Some(entry) => entry.1 += r,
                None => u.push((k, r)),
            }
        }
    }
    flush(&mut u);
    meat
}

/// One pool's fit: strengths θ (natural units, mean 0), their covariance, whether the prior
/// was needed, which engines rest on the variance floor, and whether MM was used.
struct PoolFit {
    theta: Vec<f64>,
    cov: Vec<Vec<f64>>,
    prior: bool,
    floored: Vec<bool>,
    floor_applied: bool,
    used_mm: bool,
}

fn fit_pool(m: usize, games: &[FitGame]) -> PoolFit {
    let mut pool = Pool {
        members: (0..m).collect(),
        games: vec![vec![0.0; m]; m],
        points: vec![vec![0.0; m]; m],
    };
    for g in games {
        pool.games[g.a][g.b] += 1.0;
        pool.games[g.b][g.a] += 1.0;
        pool.points[g.a][g.b] += g.points_a;
        pool.points[g.b][g.a] += 1.0 - g.points_a;
    }
    let prior = m > 1 && !pool.has_finite_mle();
    if prior {
        for a in 0..m {
            for b in 0..m {
                if a != b && pool.games[a][b] > 0.0 {
                    pool.games[a][b] += 1.0;
                    pool.points[a][b] += 0.5;
                }
            }
        }
    }
    let mut used_mm = false;
    let theta = if m == 1 {
        vec![0.0]
    } else {
        pool.newton().unwrap_or_else(|| {
            used_mm = true;
            pool.mm()
        })
    };
    // Sandwich covariance in natural units: I⁺ J I⁺.
    let (_, info) = pool.gradient_and_information(&theta);
    let pinv = pseudo_inverse(info);
    let raw = clustered_meat(m, games, &theta);
    let mut meat = raw.clone();
    let floor_applied = add_meat_floor(&mut meat, games);
    let cov = matmul(&matmul(&pinv, &meat), &pinv);
    // Flagged where the floor really matters: it widens the engine's interval by over 10%
    // (its variance by over 21%), not merely touches one of its pairs.
    let without = matmul(&matmul(&pinv, &raw), &pinv);
    let floored = (0..m)
        .map(|i| cov[i][i] > 1.21 * without[i][i].max(0.0))
        .collect();
    PoolFit {
        theta,
        cov,
        prior,
        floored,
        floor_applied,
        used_mm,
    }
}

/// Fits every engine jointly by Bradley–Terry maximum likelihood on half-point scores, with the
/// pair-clustered sandwich covariance Cov = I⁺ J I⁺.
///
/// Engines that never met, directly or through others, are fitted as separate pools (each with
/// mean 0, or the anchor's value in the anchor's pool) and flagged. A pool where some engine or
/// group scored everything or nothing has no finite maximum; then one virtual draw is added to
/// every pair that met (the prior) and the pool is flagged. Intervals never have zero width:
/// see `add_meat_floor`.
pub fn fit(engines: usize, games: &[FitGame], options: &FitOptions) -> Fit {
    let z = z_for(options.level);
    let (played, pool_of, pools) = split_pools(engines, games);
    let mut elo = vec![0.0; engines];
    let mut cov = vec![vec![0.0; engines]; engines];
    let mut flags = vec![Flags::default(); engines];
    let mut used_mm = false;
    let mut floor_applied = false;
    let several = pools.len() > 1;
    let mut scored = vec![(0.0f64, 0.0f64); engines];
    for g in games {
        scored[g.a].0 += g.points_a;
        scored[g.a].1 += 1.0;
        scored[g.b].0 += 1.0 - g.points_a;
        scored[g.b].1 += 1.0;
    }
    for e in 0..engines {
        flags[e].unrated = !played[e];
        flags[e].perfect_score = played[e] && (scored[e].0 == 0.0 || scored[e].0 == scored[e].1);
    }
    for (p, members) in pools.iter().enumerate() {
        let local = |e: usize| members.binary_search(&e).expect("member of its pool");
        // One pool of every engine (the usual case) numbers them as the caller does: its games
        // are the caller's, not copied (32 bytes a game, 500,000 imported games).
        let local_games: std::borrow::Cow<'_, [FitGame]> = if members.len() == engines {
            std::borrow::Cow::Borrowed(games)
        } else {
            games
                .iter()
                .filter(|g| pool_of[g.a] == p)
                .map(|g| FitGame {
                    a: local(g.a),
                    b: local(g.b),
                    points_a: g.points_a,
                    cluster: g.cluster,
                })
                .collect()
        };
        let fitted = fit_pool(members.len(), &local_games);
        drop(local_games);
        used_mm |= fitted.used_mm;
        floor_applied |= fitted.floor_applied;
        // Anchor: shift the pool so the anchor sits at its value; variances become relative
        // to the anchor.
        let anchor = options
            .anchor
            .filter(|&(e, _)| pool_of.get(e) == Some(&p))
            .map(|(e, v)| (local(e), v));
        let (theta, c) = (&fitted.theta, &fitted.cov);
        let offset = anchor.map_or(0.0, |(a, value)| value - theta[a] * ELO_PER_NAT);
        for (i, &ei) in members.iter().enumerate() {
            elo[ei] = theta[i] * ELO_PER_NAT + offset;
            for (j, &ej) in members.iter().enumerate() {
                let v = match anchor {
                    Some((a, _)) => c[i][j] - c[i][a] - c[a][j] + c[a][a],
                    None => c[i][j],
                };
                cov[ei][ej] = v * ELO_PER_NAT * ELO_PER_NAT;
            }
            flags[ei].prior = fitted.prior;
            flags[ei].floor = fitted.floored[i];
            flags[ei].pool = several.then_some(p + 1);
        }
    }
    let err = (0..engines)
        .map(|i| z * cov[i][i].max(0.0).sqrt())
        .collect();
    Fit {
        elo,
        cov,
        err,
        flags,
        pool: pool_of,
        used_mm,
        floor_applied,
    }
}

/// Test games from a table of (a, b, A's wins, draws, A's losses), each game its own cluster.
#[cfg(test)]
pub(crate) fn fit_games(table: &[(usize, usize, usize, usize, usize)]) -> Vec<FitGame> {
    let mut games = Vec::new();
    for &(a, b, w, d, l) in table {
        for points in std::iter::repeat_n(1.0, w)
            .chain(std::iter::repeat_n(0.5, d))
            .chain(std::iter::repeat_n(0.0, l))
        {
            let cluster = games.len() as u64;
            games.push(FitGame {
                a,
                b,
                points_a: points,
                cluster,
            });
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn trinomial_matches_fastchess_and_fishtest() {
        let e = trinomial(40, 40, 20, 0.95).unwrap();
        assert!(close(e.elo.unwrap(), 70.44, 0.01), "{e:?}");
        assert!(close(e.half_width().unwrap(), 53.55, 0.01), "{e:?}");
        assert!(close(e.los, 0.9962, 0.0001), "{e:?}");
        assert!(close(e.nelo.unwrap(), 92.86, 0.01), "{e:?}");
        assert!(close(e.nelo_err, 68.10, 0.01), "{e:?}");

        let e = trinomial(136, 111, 96, 0.95).unwrap();
        assert!(close(e.elo.unwrap(), 40.70, 0.01), "{e:?}");
        assert!(close(e.half_width().unwrap(), 30.43, 0.01), "{e:?}");
        assert!(close(e.nelo.unwrap(), 49.77, 0.01), "{e:?}");
        assert!(close(e.nelo_err, 36.77, 0.01), "{e:?}");
        assert!(close(e.los, 0.9960, 0.0001), "{e:?}");
    }

    #[test]
    fn pentanomial_matches_fishtest() {
        let e = pentanomial([34, 54, 63, 64, 75], 0.95).unwrap();
        assert!(close(e.elo.unwrap(), 55.58, 0.01), "{e:?}");
        assert!(close(e.half_width().unwrap(), 27.65, 0.01), "{e:?}");
        assert!(close(e.nelo.unwrap(), 57.94, 0.01), "{e:?}");
        assert!(close(e.nelo_err, 28.28, 0.01), "{e:?}");
    }

    #[test]
    fn degenerate_two_player_scores() {
        let e = trinomial(10, 0, 0, 0.95).unwrap();
        assert_eq!(e.elo, None);
        assert_eq!(e.los, 1.0);
        assert_eq!(e.nelo, None, "no spread to normalise by");
        let e = trinomial(0, 10, 0, 0.95).unwrap();
        assert_eq!(e.elo, Some(0.0));
        assert_eq!(e.nelo, Some(0.0));
        assert_eq!(e.los, 0.5);
        // 99%: finite Elo, open upper end.
        let e = pentanomial([0, 0, 1, 0, 49], 0.95).unwrap();
        assert!(e.elo.is_some() && e.lower.is_some() && e.upper.is_none());
        assert!(trinomial(0, 0, 0, 0.95).is_none());
    }

    #[test]
    fn samples_without_spread_still_get_an_interval() {
        // Every game pair split 1-1 (4 pairs, 8 games): the sample variance is 0.
        let e = pentanomial([0, 0, 4, 0, 0], 0.95).unwrap();
        let width = e.upper.unwrap() - e.lower.unwrap();
        // Floor 0.125/5 per pair: sigma = sqrt(0.025/4), score 0.5 +/- 0.155 -> +/-111.3 Elo.
        assert!(close(e.half_width().unwrap(), 111.3, 0.1), "{e:?}");
        assert!(width > 0.0 && close(e.los, 0.5, 1e-12));
        // 8-0-8 as single games.
        let e = trinomial(0, 16, 0, 0.95).unwrap();
        assert!(e.half_width().unwrap() > 30.0, "{e:?}");
        // The floor does not bind for ordinary samples (the vectors above are untouched) and
        // shrinks as samples accumulate.
        let big = pentanomial([0, 0, 400, 0, 0], 0.95).unwrap();
        assert!(big.half_width().unwrap() < e.half_width().unwrap() / 5.0);
    }

    #[test]
    fn joint_fit_never_reports_a_zero_width_interval() {
        // Five game pairs in which the first player always wins: every pair splits 1-1 and
        // each cluster's residuals cancel, so the plain sandwich is exactly 0.
        let mut games = Vec::new();
        for cluster in 0..5 {
            games.push(FitGame {
                a: 0,
                b: 1,
                points_a: 1.0,
                cluster,
            });
            games.push(FitGame {
                a: 1,
                b: 0,
                points_a: 1.0,
                cluster,
            });
        }
        let fit = fit(2, &games, &FitOptions::default());
        // Mean-zero ratings: each engine carries half of the difference's interval.
        assert!(fit.err[0] > 30.0 && fit.err[1] > 30.0, "{:?}", fit.err);
        assert!(fit.flags[0].floor && fit.flags[1].floor);
        assert_eq!(fit.flags[0].words(), "floor");
        // Its width agrees with the two-player pentanomial floor: 87.9 against 89.9 (delta
        // method against the endpoint transform, which differ more on 5 pairs than on 280).
        let penta = pentanomial([0, 0, 5, 0, 0], 0.95).unwrap();
        let err_diff = z_for(0.95) * (fit.cov[0][0] + fit.cov[1][1] - 2.0 * fit.cov[0][1]).sqrt();
        assert!(
            close(err_diff, penta.half_width().unwrap(), 2.5),
            "{err_diff} {penta:?}"
        );
    }

    /// Games realising a pentanomial count vector between engines 0 and 1, legs colour-swapped.
    fn pairs_from_pentanomial(counts: [u64; 5]) -> Vec<FitGame> {
        let legs = [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (1.0, 0.5), (1.0, 1.0)];
        let mut games = Vec::new();
        let mut cluster = 0;
        for (k, &count) in counts.iter().enumerate() {
            for _ in 0..count {
                let (x, y) = legs[k];
                games.push(FitGame {
                    a: 0,
                    b: 1,
                    points_a: x,
                    cluster,
                });
                games.push(FitGame {
                    a: 1,
                    b: 0,
                    points_a: 1.0 - y,
                    cluster,
                });
                cluster += 1;
            }
        }
        games
    }

    #[test]
    fn joint_fit_of_two_engines_matches_the_pentanomial_estimate() {
        let counts = [34, 54, 63, 64, 75];
        let fit = fit(2, &pairs_from_pentanomial(counts), &FitOptions::default());
        let penta = pentanomial(counts, 0.95).unwrap();
        let diff = fit.elo[0] - fit.elo[1];
        assert!(close(diff, penta.elo.unwrap(), 1e-6), "{diff}");
        // Delta method (joint fit) against the endpoint transform: within 1 Elo.
        let err_diff = z_for(0.95) * (fit.cov[0][0] + fit.cov[1][1] - 2.0 * fit.cov[0][1]).sqrt();
        assert!(
            close(err_diff, penta.half_width().unwrap(), 1.0),
            "{err_diff}"
        );
        assert!(close(fit.elo[0] + fit.elo[1], 0.0, 1e-9));
        assert!(close(fit.los(0, 1).unwrap(), penta.los, 0.01));
    }

    #[test]
    fn joint_fit_of_two_engines_matches_the_trinomial_elo() {
        // Unpaired games (each its own cluster): the fit's Elo is the trinomial one.
        let mut games = Vec::new();
        for (k, (count, points)) in [(136, 1.0), (111, 0.5), (96, 0.0)].into_iter().enumerate() {
            for i in 0..count {
                games.push(FitGame {
                    a: 0,
                    b: 1,
                    points_a: points,
                    cluster: (k * 1000 + i) as u64,
                });
            }
        }
        let fit = fit(2, &games, &FitOptions::default());
        let tri = trinomial(136, 111, 96, 0.95).unwrap();
        assert!(close(fit.elo[0] - fit.elo[1], tri.elo.unwrap(), 1e-6));
        let err = z_for(0.95) * (fit.cov[0][0] + fit.cov[1][1] - 2.0 * fit.cov[0][1]).sqrt();
        assert!(close(err, tri.half_width().unwrap(), 1.0), "{err}");
    }

    /// A four-engine round robin of our own, with draws and uneven results.
    fn round_robin() -> Vec<FitGame> {
        // (a, b, wins_a, draws, losses_a)
        fit_games(&[
            (0, 1, 12, 6, 2),
            (0, 2, 9, 5, 6),
            (0, 3, 15, 3, 2),
            (1, 2, 6, 8, 6),
            (1, 3, 10, 4, 6),
            (2, 3, 11, 5, 4),
        ])
    }

    #[test]
    fn joint_fit_equals_a_textbook_bradley_terry_fit() {
        // Reference: choix 0.4.1 `ilsr_pairwise_dense` on the half-point matrix of
        // `round_robin()` (alpha=0, tol=1e-12), converted with 400/ln 10.
        let expected = [123.7548, -27.9345, 18.1609, -113.9812];
        let fit = fit(4, &round_robin(), &FitOptions::default());
        for (got, want) in fit.elo.iter().zip(expected) {
            assert!(close(*got, want, 0.01), "{:?}", fit.elo);
        }
        assert!(!fit.used_mm);
        // MM, an independent algorithm, agrees.
        let mut pool = Pool {
            members: vec![0, 1, 2, 3],
            games: vec![vec![0.0; 4]; 4],
            points: vec![vec![0.0; 4]; 4],
        };
        for g in round_robin() {
            pool.games[g.a][g.b] += 1.0;
            pool.games[g.b][g.a] += 1.0;
            pool.points[g.a][g.b] += g.points_a;
            pool.points[g.b][g.a] += 1.0 - g.points_a;
        }
        for (mm, newton) in pool.mm().iter().zip(&fit.elo) {
            assert!(close(mm * ELO_PER_NAT, *newton, 0.01));
        }
    }

    #[test]
    fn anchor_shifts_ratings_and_pins_the_anchor() {
        let free = fit(4, &round_robin(), &FitOptions::default());
        let anchored = fit(
            4,
            &round_robin(),
            &FitOptions {
                anchor: Some((3, 1500.0)),
                level: 0.95,
            },
        );
        assert!(close(anchored.elo[3], 1500.0, 1e-9));
        assert!(close(
            anchored.elo[0] - anchored.elo[3],
            free.elo[0] - free.elo[3],
            1e-9
        ));
        assert!(close(anchored.err[3], 0.0, 1e-9));
        // The anchor's interval moved into everyone else's.
        assert!(anchored.err[0] > free.err[0]);
    }

    #[test]
    fn disconnected_pools_are_flagged_and_fitted_apart() {
        let games = vec![
            FitGame {
                a: 0,
                b: 1,
                points_a: 1.0,
                cluster: 0,
            },
            FitGame {
                a: 1,
                b: 0,
                points_a: 0.5,
                cluster: 0,
            },
            FitGame {
                a: 2,
                b: 3,
                points_a: 0.0,
                cluster: 1,
            },
            FitGame {
                a: 3,
                b: 2,
                points_a: 0.5,
                cluster: 1,
            },
        ];
        let fit = fit(5, &games, &FitOptions::default());
        assert_eq!(fit.flags[0].pool, Some(1));
        assert_eq!(fit.flags[2].pool, Some(2));
        assert!(fit.flags[4].unrated);
        assert!(close(fit.elo[0] + fit.elo[1], 0.0, 1e-9));
        assert!(close(fit.elo[2] + fit.elo[3], 0.0, 1e-9));
        assert_eq!(fit.los(0, 2), None);
    }

    #[test]
    fn perfect_scores_get_a_finite_rating_and_a_flag() {
        let games: Vec<FitGame> = (0..10)
            .map(|i| FitGame {
                a: i % 2,
                b: 1 - i % 2,
                points_a: if i % 2 == 0 { 1.0 } else { 0.0 },
                cluster: i as u64 / 2,
            })
            .collect();
        let fit = fit(2, &games, &FitOptions::default());
        // 10-0 plus one virtual draw: a 10.5/11 score.
        let expected = elo_of_score(10.5 / 11.0).unwrap();
        assert!(
            close(fit.elo[0] - fit.elo[1], expected, 1e-6),
            "{:?}",
            fit.elo
        );
        assert!(fit.flags[0].perfect_score && fit.flags[0].prior);
        assert_eq!(fit.flags[0].words(), "perfect_score prior");
    }
}
