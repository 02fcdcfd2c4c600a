//! Move generation and application speed of each game, on random playouts from the start.
//!
//! Throughput is reported in plies: each ply generates every legal move and applies one.

use arena::games::{Amazons, Awale, BoardSpec, Game, SevenColors};
use arena::seed;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Plays a whole random game with full move generation at every ply; returns the plies.
fn playout<G: Game>(start: &G, play_seed: u64) -> u64 {
    let mut pos = start.clone();
    let mut rng = seed::rng(play_seed);
    let mut moves = Vec::new();
    let mut plies = 0;
    while plies < 10_000 {
        pos.legal_moves_into(&mut moves);
        let Some(&mv) = seed::choose(&mut rng, &moves) else {
            break;
        };
        pos.play_unchecked(mv);
        plies += 1;
    }
    plies
}

fn typed<G: Game>(yaml: &str, f: impl Fn(arena::games::AnyPosition) -> Option<G>) -> G {
    let spec: BoardSpec = serde_yaml::from_str(yaml).unwrap();
    f(spec.start_position(1).unwrap()).unwrap()
}

fn bench_game<G: Game>(c: &mut Criterion, group: &str, boards: &[(&str, G)]) {
    let mut group = c.benchmark_group(group);
    for (name, start) in boards {
        let plies = playout(start, 0);
        group.throughput(Throughput::Elements(plies));
        group.bench_with_input(BenchmarkId::from_parameter(name), start, |b, start| {
            b.iter(|| playout(start, 0));
        });
    }
    group.finish();
}

fn rules(c: &mut Criterion) {
    use arena::games::AnyPosition as P;
    let seven = |yaml| {
        typed(yaml, |p| {
            if let P::SevenColors(p) = p {
                Some(p)
            } else {
                None
            }
        })
    };
    let amazons = |yaml| typed(yaml, |p| if let P::Amazons(p) = p { Some(p) } else { None });
    let awale = |yaml| typed(yaml, |p| if let P::Awale(p) = p { Some(p) } else { None });
    let seven_boards: Vec<(&str, SevenColors)> = vec![
        ("random-30", seven("{game: seven_colors, size: 30}")),
        ("random-100", seven("{game: seven_colors, size: 100}")),
        (
            "torus-30",
            seven("{game: seven_colors, size: 30, topology: torus}"),
        ),
    ];
    bench_game(c, "seven_colors_plies", &seven_boards);
    let amazon_boards: Vec<(&str, Amazons)> = vec![
        (
            "square-10-q4",
            amazons("{game: amazons, width: 10, queens: 4}"),
        ),
        (
            "donut-9",
            amazons("{game: amazons, shape: donut, width: 9}"),
        ),
        ("square-20", amazons("{game: amazons, width: 20}")),
    ];
    bench_game(c, "amazons_plies", &amazon_boards);
    let awale_boards: Vec<(&str, Awale)> = vec![
        ("pits-6", awale("{game: awale, pits: 6}")),
        ("pits-10", awale("{game: awale, pits: 10}")),
    ];
    bench_game(c, "awale_plies", &awale_boards);
}

criterion_group!(benches, rules);
criterion_main!(benches);
