//! The `random` reference engine; see the crate documentation.

fn main() -> std::io::Result<()> {
    arena::ugi::run(arena_engines::simple::Random)
}
