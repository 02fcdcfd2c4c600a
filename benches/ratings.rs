//! Rating computation at scale: 100 engines, a full round robin, 1,000,000 games.

use arena::rating::{FitGame, FitOptions, fit};
use arena::seed;
use criterion::{Criterion, criterion_group, criterion_main};

fn games(engines: usize, total: usize) -> Vec<FitGame> {
    let mut rng = seed::rng(1);
    let strength: Vec<f64> = (0..engines).map(|e| e as f64 * 8.0).collect();
    let pairs_per_match = total / (engines * (engines - 1));
    let mut games = Vec::with_capacity(total);
    let mut cluster = 0;
    for a in 0..engines {
        for b in a + 1..engines {
            for _ in 0..pairs_per_match {
                for (x, y) in [(a, b), (b, a)] {
                    let p = arena::rating::score_of_elo(strength[x] - strength[y]);
                    let roll = seed::below(&mut rng, 1000) as f64 / 1000.0;
                    let points = if (roll - p).abs() < 0.1 {
                        0.5
                    } else if roll < p {
                        1.0
                    } else {
                        0.0
                    };
                    games.push(FitGame {
                        a: x,
                        b: y,
                        points_a: points,
                        cluster,
                    });
                }
                cluster += 1;
            }
        }
    }
    games
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ratings");
    group.sample_size(10);
    let million = games(100, 1_000_000);
    assert!(million.len() >= 990_000);
    group.bench_function("fit_100_engines_1m_games", |b| {
        b.iter(|| fit(100, &million, &FitOptions::default()))
    });
    let small = games(10, 10_000);
    group.bench_function("fit_10_engines_10k_games", |b| {
        b.iter(|| fit(10, &small, &FitOptions::default()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
