//! The `hybrid` reference engine; see the crate documentation.

fn main() -> std::io::Result<()> {
    arena::ugi::run(arena_engines::players::Ladder::Hybrid(85))
}
