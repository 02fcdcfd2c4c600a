//! Prints a board's start position text and one uniformly random game from it, for
//! `scripts/engine_position_cpu.py` (issue 17). Usage:
//! `random_game '<board spec yaml>' [seed]`; prints the start text on the first line and the
//! move texts, space-separated, on the second (at most 2,000 plies).

use arena::games::BoardSpec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let spec: BoardSpec =
        serde_yaml::from_str(&args.next().ok_or("usage: random_game SPEC [SEED]")?)?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let start = spec.start_position(seed)?;
    let mut rng = arena::seed::rng(seed.wrapping_add(1));
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while moves.len() < 2000 {
        let Some(mv) = pos.random_move_text(&mut rng) else {
            break;
        };
        pos.play_text(&mv)?;
        moves.push(mv);
    }
    println!("{}", start.fen());
    println!("{}", moves.join(" "));
    Ok(())
}
