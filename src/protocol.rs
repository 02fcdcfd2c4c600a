//! The UGI line protocol, as profiled in `docs/protocol.md`: parsing and printing of every
//! command the runner sends ([`Command`]) and every reply an engine gives ([`Reply`]).
//!
//! Pure text: no processes, no games. Moves and positions stay strings here; the rules library
//! reads them. Tokens are separated by runs of spaces or tabs and a trailing `\r` is ignored, so
//! `\r\n` line ends are accepted. Unknown lines parse as `Unknown` rather than failing, because
//! both sides must ignore what they do not know.

use std::fmt;

/// The option through which an engine declares, and the runner selects, the game.
pub const VARIANT_OPTION: &str = "UGI_Variant";
/// The option through which the runner gives a randomised engine its per-game seed.
pub const SEED_OPTION: &str = "Seed";

/// A line the runner cannot accept from an engine (or an engine from the runner).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed `{keyword}` line `{line}`: {reason}")]
pub struct ProtocolError {
    /// The line's first token.
    pub keyword: String,
    /// The line, cut to 200 characters.
    pub line: String,
    /// What is wrong.
    pub reason: String,
}

impl ProtocolError {
    fn new(line: &str, reason: impl Into<String>) -> Self {
        ProtocolError {
            keyword: line
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned(),
            line: line.chars().take(200).collect(),
            reason: reason.into(),
        }
    }
}

/// The search limit of a `go` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// Both clocks, in ms, by player (p1 = first player), whatever the side to move.
    Clock {
        /// First player's time left (ms).
        p1time: u64,
        /// Second player's time left (ms).
        p2time: u64,
        /// First player's increment per move (ms).
        p1inc: u64,
        /// Second player's increment per move (ms).
        p2inc: u64,
    },
    /// Exactly this long for the move (ms).
    MoveTime(u64),
    /// Search this many plies.
    Depth(u32),
    /// Search this many nodes.
    Nodes(u64),
    /// Search until `stop`.
    Infinite,
}

/// A runner-to-engine line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `ugi`: identify and declare options, then `ugiok`.
    Ugi,
    /// `isready`: answer `readyok` once every earlier command is done.
    IsReady,
    /// `setoption name <name> value <value>`.
    SetOption {
        /// Option name (may contain spaces).
        name: String,
        /// Option value (may contain spaces; empty when `value` is absent).
        value: String,
    },
    /// `uginewgame`: the next position belongs to a new game.
    NewGame,
    /// `position fen <fen> [moves <m1> …]`: the game's start position and every move since.
    Position {
        /// Position text in the game's format (may contain spaces).
        fen: String,
        /// Moves since `fen`, in the game's move format.
        moves: Vec<String>,
    },
    /// `go …`: search and answer `bestmove`.
    Go(Go),
    /// `stop`: answer `bestmove` now.
    Stop,
    /// `quit`: exit.
    Quit,
    /// Any other line, kept as received.
    Unknown(String),
}

/// The score of an `info` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like evaluation, from the side to move's view.
    Cp(i64),
    /// Forced win (positive) or loss (negative) in this many moves.
    Mate(i64),
}

/// An `info` line: search progress, all fields optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Depth searched (plies).
    pub depth: Option<u32>,
    /// Selective depth: the deepest ply any line reached (plies).
    pub seldepth: Option<u32>,
    /// Evaluation.
    pub score: Option<Score>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Time searched (ms).
    pub time: Option<u64>,
    /// Principal variation (move texts).
    pub pv: Vec<String>,
    /// Free text after `info string`.
    pub string: Option<String>,
}

/// An option an engine declares after `ugi`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionDecl {
    /// Option name.
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// Default value.
    pub default: Option<String>,
    /// Minimum (spin).
    pub min: Option<i64>,
    /// Maximum (spin).
    pub max: Option<i64>,
    /// Allowed values (combo).
    pub vars: Vec<String>,
}

impl OptionDecl {
    /// The `Seed` declaration of an engine that takes the runner's per-game seed: a spin from
    /// 0 to 2⁶³−1, default 0.
    pub fn seed() -> OptionDecl {
        OptionDecl {
            name: SEED_OPTION.into(),
            kind: "spin".into(),
            default: Some("0".into()),
            min: Some(0),
            max: Some(i64::MAX),
            ..OptionDecl::default()
        }
    }
}

/// An engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMove {
    /// A move in the game's format.
    Move(String),
    /// The engine gives up.
    Resign,
}

/// An engine-to-runner line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `id name …` or `id author …`.
    Id {
        /// `name` or `author`.
        field: String,
        /// The rest of the line.
        value: String,
    },
    /// `option name … type …`.
    Option(OptionDecl),
    /// `ugiok`.
    UgiOk,
    /// `readyok`.
    ReadyOk,
    /// `info …`.
    Info(Info),
    /// `bestmove …`.
    BestMove(BestMove),
    /// Any other line, kept as received.
    Unknown(String),
}

fn tokens(line: &str) -> Vec<&str> {
    line.trim_end_matches(['\r', '\n'])
        .split_whitespace()
        .collect()
}

fn number<T: std::str::FromStr>(
    line: &str,
    what: &str,
    token: Option<&&str>,
) -> Result<T, ProtocolError> {
    let token = token.ok_or_else(|| ProtocolError::new(line, format!("`{what}` needs a value")))?;
    token
        .parse()
        .map_err(|_| ProtocolError::new(line, format!("`{what}` value `{token}` is not a number")))
}

/// The tokens between `start` and the first of `stops` (or the end), joined by one space.
fn phrase(words: &[&str], start: usize, stops: &[&str]) -> (String, usize) {
    let end = words[start..]
        .iter()
        .position(|w| stops.contains(w))
        .map_or(words.len(), |i| start + i);
    (words[start..end].join(" "), end)
}

impl Command {
    /// Reads one line.
    ///
    /// # Errors
    /// [`ProtocolError`] for a known command with malformed arguments (`go movetime x`,
    /// `position` with neither `fen` nor moves); unknown commands are [`Command::Unknown`].
    pub fn parse(line: &str) -> Result<Command, ProtocolError> {
        let words = tokens(line);
        let Some(&first) = words.first() else {
            return Ok(Command::Unknown(String::new()));
        };
        Ok(match first {
            "ugi" => Command::Ugi,
            "isready" => Command::IsReady,
            "uginewgame" => Command::NewGame,
            "stop" => Command::Stop,
            "quit" => Command::Quit,
            "setoption" => {
                if words.get(1) != Some(&"name") {
                    return Err(ProtocolError::new(
                        line,
                        "expected `setoption name <N> value <V>`",
                    ));
                }
                let (name, at) = phrase(&words, 2, &["value"]);
                let value = if at < words.len() {
                    words[at + 1..].join(" ")
                } else {
                    String::new()
                };
                Command::SetOption { name, value }
            }
            "position" => {
                if words.get(1) != Some(&"fen") {
                    return Err(ProtocolError::new(
                        line,
                        "expected `position fen <fen> [moves …]`",
                    ));
                }
                let (fen, at) = phrase(&words, 2, &["moves"]);
                if fen.is_empty() {
                    return Err(ProtocolError::new(
                        line,
                        "the position text after `fen` is empty",
                    ));
                }
                let moves = words
                    .get(at + 1..)
                    .unwrap_or_default()
                    .iter()
                    .map(|m| (*m).to_owned())
                    .collect();
                Command::Position { fen, moves }
            }
            "go" => Command::Go(Self::parse_go(line, &words)?),
            _ => Command::Unknown(line.trim_end_matches(['\r', '\n']).to_owned()),
        })
    }

    fn parse_go(line: &str, words: &[&str]) -> Result<Go, ProtocolError> {
        let mut clock = [None::<u64>; 4];
        let mut go = None;
        let mut i = 1;
        while i < words.len() {
            let value = words.get(i + 1);
            match words[i] {
                "p1time" | "wtime" => clock[0] = Some(number(line, words[i], value)?),
                "p2time" | "btime" => clock[1] = Some(number(line, words[i], value)?),
                "p1inc" | "winc" => clock[2] = Some(number(line, words[i], value)?),
                "p2inc" | "binc" => clock[3] = Some(number(line, words[i], value)?),
                "movetime" => go = Some(Go::MoveTime(number(line, "movetime", value)?)),
                "depth" => go = Some(Go::Depth(number(line, "depth", value)?)),
                "nodes" => go = Some(Go::Nodes(number(line, "nodes", value)?)),
                "infinite" => {
                    go = Some(Go::Infinite);
                    i -= 1;
                }
                _ => {
                    i -= 1;
                }
            }
            i += 2;
        }
        if let [Some(p1time), Some(p2time), p1inc, p2inc] = clock {
            return Ok(Go::Clock {
                p1time,
                p2time,
                p1inc: p1inc.unwrap_or(0),
                p2inc: p2inc.unwrap_or(0),
            });
        }
        Ok(go.unwrap_or(Go::Infinite))
    }
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Go::Clock {
                p1time,
                p2time,
                p1inc,
                p2inc,
            } => {
                write!(
                    f,
                    "go p1time {p1time} p2time {p2time} p1inc {p1inc} p2inc {p2inc}"
                )
            }
            Go::MoveTime(ms) => write!(f, "go movetime {ms}"),
            Go::Depth(plies) => write!(f, "go depth {plies}"),
            Go::Nodes(nodes) => write!(f, "go nodes {nodes}"),
            Go::Infinite => f.write_str("go infinite"),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Ugi => f.write_str("ugi"),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value } => write!(f, "setoption name {name} value {value}"),
            Command::NewGame => f.write_str("uginewgame"),
            Command::Position { fen, moves } => {
                write!(f, "position fen {fen}")?;
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.join(" "))?;
                }
                Ok(())
            }
            Command::Go(go) => go.fmt(f),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Unknown(line) => f.write_str(line),
        }
    }
}

impl Reply {
    /// Reads one line.
    ///
    /// # Errors
    /// [`ProtocolError`] for a known reply with malformed arguments (`bestmove` with no move,
    /// `info depth x`, `option` without `name`); unknown lines are [`Reply::Unknown`].
    pub fn parse(line: &str) -> Result<Reply, ProtocolError> {
        let words = tokens(line);
        let Some(&first) = words.first() else {
            return Ok(Reply::Unknown(String::new()));
        };
        Ok(match first {
            "ugiok" => Reply::UgiOk,
            "readyok" => Reply::ReadyOk,
            "id" => match words.get(1) {
                Some(&field) => Reply::Id {
                    field: field.to_owned(),
                    value: words[2..].join(" "),
                },
                None => return Err(ProtocolError::new(line, "`id` needs a field")),
            },
            "bestmove" => match words.get(1) {
                Some(&"resign") => Reply::BestMove(BestMove::Resign),
                Some(&mv) => Reply::BestMove(BestMove::Move(mv.to_owned())),
                None => return Err(ProtocolError::new(line, "`bestmove` carries no move")),
            },
            "info" => Reply::Info(Self::parse_info(line, &words)?),
            "option" => Reply::Option(Self::parse_option(line, &words)?),
            _ => Reply::Unknown(line.trim_end_matches(['\r', '\n']).to_owned()),
        })
    }

    fn parse_info(line: &str, words: &[&str]) -> Result<Info, ProtocolError> {
        let mut info = Info::default();
        let mut i = 1;
        while i < words.len() {
            let value = words.get(i + 1);
            match words[i] {
                "depth" => info.depth = Some(number(line, "depth", value)?),
                "seldepth" => info.seldepth = Some(number(line, "seldepth", value)?),
                "nodes" => info.nodes = Some(number(line, "nodes", value)?),
                "nps" => info.nps = Some(number(line, "nps", value)?),
                "time" => info.time = Some(number(line, "time", value)?),
                "score" => {
                    let kind = value.copied().unwrap_or_default();
                    let amount = number(line, "score", words.get(i + 2))?;
                    info.score = Some(match kind {
                        "cp" => Score::Cp(amount),
                        "mate" => Score::Mate(amount),
                        _ => {
                            return Err(ProtocolError::new(
                                line,
                                format!("score kind `{kind}` is not cp or mate"),
                            ));
                        }
                    });
                    i += 1;
                }
                "string" => {
                    info.string = Some(words[i + 1..].join(" "));
                    break;
                }
                "pv" => {
                    // The pv runs to the end of the line or the next known keyword.
                    let (pv, end) = phrase(
                        words,
                        i + 1,
                        &[
                            "depth", "seldepth", "nodes", "nps", "time", "score", "string",
                        ],
                    );
                    info.pv = pv
                        .split(' ')
                        .filter(|m| !m.is_empty())
                        .map(str::to_owned)
                        .collect();
                    i = end;
                    continue;
                }
                // Unknown fields (hashfull, multipv, …) are skipped with their value.
                _ => {}
            }
            i += 2;
        }
        Ok(info)
    }

    fn parse_option(line: &str, words: &[&str]) -> Result<OptionDecl, ProtocolError> {
        const KEYS: &[&str] = &["name", "type", "default", "min", "max", "var"];
        if words.get(1) != Some(&"name") {
            return Err(ProtocolError::new(
                line,
                "expected `option name <N> type <T> …`",
            ));
        }
        let mut decl = OptionDecl::default();
        let mut i = 1;
        while i < words.len() {
            let key = words[i];
            let (value, end) = phrase(words, i + 1, KEYS);
            match key {
                "name" => decl.name = value,
                "type" => decl.kind = value,
                "default" => decl.default = Some(value),
                "min" => decl.min = value.parse().ok(),
                "max" => decl.max = value.parse().ok(),
                "var" => decl.vars.push(value),
                _ => {}
            }
            i = end.max(i + 1);
        }
        if decl.name.is_empty() {
            return Err(ProtocolError::new(line, "the option has no name"));
        }
        Ok(decl)
    }
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type {}", self.name, self.kind)?;
        if let Some(default) = &self.default {
            write!(f, " default {default}")?;
        }
        if let Some(min) = self.min {
            write!(f, " min {min}")?;
        }
        if let Some(max) = self.max {
            write!(f, " max {max}")?;
        }
        for var in &self.vars {
            write!(f, " var {var}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(depth) = self.depth {
            write!(f, " depth {depth}")?;
        }
        if let Some(seldepth) = self.seldepth {
            write!(f, " seldepth {seldepth}")?;
        }
        match self.score {
            Some(Score::Cp(cp)) => write!(f, " score cp {cp}")?,
            Some(Score::Mate(n)) => write!(f, " score mate {n}")?,
            None => {}
        }
        if let Some(nodes) = self.nodes {
            write!(f, " nodes {nodes}")?;
        }
        if let Some(nps) = self.nps {
            write!(f, " nps {nps}")?;
        }
        if let Some(time) = self.time {
            write!(f, " time {time}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        if let Some(text) = &self.string {
            write!(f, " string {text}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Id { field, value } => write!(f, "id {field} {value}"),
            Reply::Option(decl) => decl.fmt(f),
            Reply::UgiOk => f.write_str("ugiok"),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::Info(info) => info.fmt(f),
            Reply::BestMove(BestMove::Move(mv)) => write!(f, "bestmove {mv}"),
            Reply::BestMove(BestMove::Resign) => f.write_str("bestmove resign"),
            Reply::Unknown(line) => f.write_str(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip() {
        for line in [
            "ugi",
            "isready",
            "uginewgame",
            "stop",
            "quit",
            "setoption name UGI_Variant value seven_colors",
            "setoption name Eval Weight value 1 2 3",
            "position fen AB2/CDE/1FA 1 plane",
            "position fen 4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture moves 3 4",
            "go p1time 1000 p2time 900 p1inc 10 p2inc 0",
            "go movetime 50",
            "go depth 6",
            "go nodes 10000",
        ] {
            let parsed = Command::parse(line).unwrap();
            assert_eq!(parsed.to_string(), line);
        }
    }

    #[test]
    fn fen_with_spaces_runs_to_moves() {
        let cmd = Command::parse("position   fen ..2/1.. 2   moves 1-2-3\r\n").unwrap();
        assert_eq!(
            cmd,
            Command::Position {
                fen: "..2/1.. 2".into(),
                moves: vec!["1-2-3".into()]
            }
        );
    }

    #[test]
    fn go_accepts_uci_clock_names_and_missing_increments() {
        assert_eq!(
            Command::parse("go wtime 5 btime 6").unwrap(),
            Command::Go(Go::Clock {
                p1time: 5,
                p2time: 6,
                p1inc: 0,
                p2inc: 0
            })
        );
        assert!(Command::parse("go movetime soon").is_err());
        assert_eq!(Command::parse("go").unwrap(), Command::Go(Go::Infinite));
    }

    #[test]
    fn unknown_and_empty_lines_are_kept() {
        assert_eq!(Command::parse("").unwrap(), Command::Unknown(String::new()));
        assert_eq!(
            Command::parse("debug on").unwrap(),
            Command::Unknown("debug on".into())
        );
        assert_eq!(
            Reply::parse("hello there\r").unwrap(),
            Reply::Unknown("hello there".into())
        );
    }

    #[test]
    fn replies_parse() {
        assert_eq!(
            Reply::parse("bestmove 93-33-30\r\n").unwrap(),
            Reply::BestMove(BestMove::Move("93-33-30".into()))
        );
        assert_eq!(
            Reply::parse("bestmove resign").unwrap(),
            Reply::BestMove(BestMove::Resign)
        );
        assert!(Reply::parse("bestmove").is_err());
        assert_eq!(
            Reply::parse("id name Greedy Bot").unwrap(),
            Reply::Id {
                field: "name".into(),
                value: "Greedy Bot".into()
            }
        );
        let info = Reply::parse(
            "info depth 3 seldepth 5 score cp -12 nodes 400 nps 8000 time 50 pv A B C",
        )
        .unwrap();
        let Reply::Info(info) = info else { panic!() };
        assert_eq!(info.depth, Some(3));
        assert_eq!(info.seldepth, Some(5));
        assert_eq!(info.score, Some(Score::Cp(-12)));
        assert_eq!(info.pv, vec!["A", "B", "C"]);
        assert_eq!(info.time, Some(50));
        let Reply::Info(info) = Reply::parse("info string hello  world").unwrap() else {
            panic!()
        };
        assert_eq!(info.string.as_deref(), Some("hello world"));
        assert!(Reply::parse("info depth deep").is_err());
    }

    #[test]
    fn option_declarations_parse() {
        let line = "option name UGI_Variant type combo default awale var seven_colors var awale";
        let Reply::Option(decl) = Reply::parse(line).unwrap() else {
            panic!()
        };
        assert_eq!(decl.name, VARIANT_OPTION);
        assert_eq!(decl.vars, vec!["seven_colors", "awale"]);
        assert_eq!(decl.to_string(), line);
        let Reply::Option(decl) =
            Reply::parse("option name Seed type spin default 0 min 0 max 100").unwrap()
        else {
            panic!()
        };
        assert_eq!((decl.min, decl.max), (Some(0), Some(100)));
        assert!(Reply::parse("option type spin").is_err());
    }
}
