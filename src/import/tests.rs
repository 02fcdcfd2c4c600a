//! Unit tests of the importer through [`super::parse`], [`super::detect`] and
//! [`super::parse_anchor`].

use super::*;

fn csv(text: &str) -> Result<Import, ImportError> {
    parse(text, "t.csv", InputFormat::Csv, PairMode::Auto)
}

fn pgn(text: &str) -> Result<Import, ImportError> {
    parse(text, "t.pgn", InputFormat::Pgn, PairMode::Auto)
}

fn line_of(e: ImportError) -> (Option<u64>, String) {
    (e.line, e.message)
}

#[test]
fn minimal_csv_with_short_results_and_text_ids() {
    let i =
        csv("white,black,result,game_id,note\na,b,1,g1,x\nb,a,=,g2,y\na,c,0,g3,\nc,a,0.5,g4,\n")
            .unwrap();
    let results: Vec<&str> = i.games.iter().map(|g| g.record.result.as_str()).collect();
    assert_eq!(results, ["1-0", "1/2-1/2", "0-1", "1/2-1/2"]);
    // Text ids: positions.
    let ids: Vec<u64> = i.games.iter().map(|g| g.record.game_id).collect();
    assert_eq!(ids, [0, 1, 2, 3]);
    assert_eq!(i.pairing, Pairing::Consecutive);
    let pairs: Vec<u64> = i.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 0, 1, 1]);
    assert!(!i.games[0].termination_known);
}

#[test]
fn semicolons_bom_and_crlf() {
    let i = csv("\u{feff}First;Second;Result\r\na;b;1-0\r\n").unwrap();
    assert_eq!(i.games[0].record.first, "a");
    assert_eq!(i.pairing, Pairing::None);
}

#[test]
fn csv_errors_name_the_line() {
    assert_eq!(
        line_of(csv("first,second,result\na,b,1-0\na,b,banana\n").unwrap_err()),
        (
            Some(3),
            "unknown result `banana` (expected 1-0, 0-1, 1/2-1/2, 1, 0, 0.5, = or *)".into()
        )
    );
    assert_eq!(
        line_of(csv("first,second,result\na,a,1-0\n").unwrap_err()),
        (Some(2), "engine `a` plays itself".into())
    );
    let (line, message) = line_of(csv("white,blak,result\na,b,1-0\n").unwrap_err());
    assert_eq!(line, Some(1));
    assert!(
        message.starts_with("no `second` or `black` column"),
        "{message}"
    );
    assert_eq!(
        line_of(csv("game_id,first,second,result\n4,a,b,1\n4,b,a,0\n").unwrap_err()),
        (Some(3), "game id 4 is used twice (also on line 2)".into())
    );
    assert_eq!(
        line_of(csv("first,second,result\n").unwrap_err()),
        (None, "nothing to rate: no rows found".into())
    );
    assert_eq!(
        line_of(csv("first,second,result\na,b,*\n").unwrap_err()),
        (
            None,
            "nothing to rate: all 1 rows are unfinished (`*`)".into()
        )
    );
    // The error message names the file and line.
    let e = csv("first,second,result\na,,1\n").unwrap_err();
    assert_eq!(e.to_string(), "t.csv:2: a game needs two named players");
}

#[test]
fn a_cut_off_last_row_is_dropped_with_a_note() {
    let i = csv("first,second,result\na,b,1-0\nb,a,0-").unwrap();
    assert_eq!(i.games.len(), 1);
    assert!(i.notes[0].contains("line 3"), "{:?}", i.notes);
    // Without a line end but complete: kept (hand-written files often end so).
    assert_eq!(csv("first,second,result\na,b,1-0").unwrap().games.len(), 1);
}

#[test]
fn pgn_with_moves_comments_variations_and_unfinished_games() {
    let text = r#"[Event "e"]
[Site "?"]
[Round "1"]
[White "x \"the\" engine"]
[Black "y"]
[Result "1-0"]

1. e4 {a comment
[with a bracket]} e5 (1... c5 {x} (1... d5)) 2. Nf3 ; rest of line 0-1
% escape line
1-0

[White "y"]
[Black "x \"the\" engine"]
[Result "*"]

1. d4 *

[White "y"]
[Black "x \"the\" engine"]
[Result "1/2-1/2"]
"#;
    let i = pgn(text).unwrap();
    assert_eq!(i.games.len(), 2);
    assert_eq!(i.games[0].record.first, "x \"the\" engine");
    assert_eq!(i.games[0].record.board, "");
    assert_eq!(i.games[0].event.as_deref(), Some("e"));
    assert_eq!(i.games[0].round_text, "1");
    assert_eq!(i.games[1].record.result, "1/2-1/2");
    assert_eq!(i.games[1].record.game_id, 2);
    assert_eq!(i.notes[0], "1 unfinished game (`*`) skipped");
    // Positions 0 and 1 would pair, but 1 is unfinished: nothing is paired.
    assert_eq!(i.pairing, Pairing::None);
}

#[test]
fn tag_only_games_without_markers_are_split_on_repeated_tags() {
    let i = pgn("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n").unwrap();
    assert_eq!(i.games.len(), 2);
    assert_eq!(i.pairing, Pairing::Consecutive);
}

#[test]
fn pgn_errors_name_the_line() {
    let cases = [
        (
            "[White \"a\"]\n[Black \"b\"]\n[Result \"banana\"]\n",
            3,
            "unknown result `banana`",
        ),
        (
            "[White \"a\"]\n[Black \"a\"]\n[Result \"1-0\"]\n",
            1,
            "engine `a` plays itself",
        ),
        (
            "\n[White \"a\"]\n[Result \"1-0\"]\n",
            2,
            "the game starting here has no Black tag",
        ),
        (
            "[White \"a]\n",
            1,
            "tag White: the value has no closing quote",
        ),
        (
            "[White a]\n",
            1,
            "tag White: expected a value in double quotes",
        ),
        (
            "[White \"a\"]\n[Black \"b\"]\n\n1. e4 {never closed\n",
            4,
            "a `{` comment is never closed",
        ),
        (
            "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 0-1\n",
            5,
            "the game's Result tag says 1-0 but its move text ends with 0-1",
        ),
        (
            "[White \"a\"]\n[Black \"b\"]\n\n1. e4\n",
            1,
            "the game has no Result tag",
        ),
        (
            "[White \"a\"]\n[Black \"b\"]\n1. e4 ) 1-0\n",
            3,
            "unexpected `)`",
        ),
    ];
    for (text, line, message) in cases {
        let e = pgn(text).unwrap_err();
        assert_eq!(e.line, Some(line), "{text}: {e}");
        assert!(e.message.starts_with(message), "{text}: {e}");
    }
    assert_eq!(
        pgn("").unwrap_err().message,
        "nothing to rate: the file is empty"
    );
    assert_eq!(
        pgn("% only an escape line\n").unwrap_err().message,
        "nothing to rate: no games found"
    );
}

#[test]
fn pair_modes() {
    // Round-robin order out of file order: pairs share a round and players.
    let text = "Round,first,second,result\n1,a,b,1\n1,c,d,1\n1,d,c,0\n1,b,a,0\n2,a,b,=\n";
    let i = csv(text).unwrap();
    assert_eq!(i.pairing, Pairing::Round);
    let pairs: Vec<u64> = i.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 1, 1, 0, 2]);
    let none = parse(text, "t.csv", InputFormat::Csv, PairMode::None).unwrap();
    let pairs: Vec<u64> = none.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 1, 2, 3, 4]);
    // Forced consecutive: positions (0, 1) and (2, 3) do not swap players.
    let c = parse(text, "t.csv", InputFormat::Csv, PairMode::Consecutive).unwrap();
    let pairs: Vec<u64> = c.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 1, 2, 3, 4]);
    // Only (0, 1) swaps; auto does not take consecutive pairs when some do not swap.
    let text = "first,second,result\na,b,1\nb,a,1\na,c,0\na,c,1\nc,a,=\n";
    let c = parse(text, "t.csv", InputFormat::Csv, PairMode::Consecutive).unwrap();
    let pairs: Vec<u64> = c.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 0, 1, 2, 3]);
    assert!(
        c.notes
            .last()
            .unwrap()
            .ends_with("1 pair, 3 games unpaired")
    );
    assert_eq!(csv(text).unwrap().pairing, Pairing::None);
    // A given pair column wins in auto mode; text keys are numbered.
    let g = csv("first,second,result,pair\na,b,1,p\nb,a,1,q\na,b,1,p\n").unwrap();
    assert_eq!(g.pairing, Pairing::Given);
    let pairs: Vec<u64> = g.games.iter().map(|g| g.record.pair).collect();
    assert_eq!(pairs, [0, 1, 0]);
    assert_eq!("round".parse::<PairMode>(), Ok(PairMode::Round));
    assert!("pairs".parse::<PairMode>().is_err());
}

#[test]
fn numeric_game_columns_and_unique_sites() {
    let i = csv("game,white,black,result\n7,a,b,1\n8,b,a,0\n").unwrap();
    let ids: Vec<(u64, &str)> = i
        .games
        .iter()
        .map(|g| (g.record.game_id, g.record.game.as_str()))
        .collect();
    assert_eq!(ids, [(7, ""), (8, "")]);
    let named = csv("game,white,black,result\nawale,a,b,1\n").unwrap();
    assert_eq!(named.games[0].record.game, "awale");
    let game = |site: &str, white: &str, black: &str| {
        format!(
            "[Site \"{site}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1-0\n\n"
        )
    };
    let boards = pgn(&(game("b1", "a", "b") + &game("b1", "b", "a"))).unwrap();
    assert_eq!(boards.games[1].record.board, "b1");
    let urls = pgn(&(game("https://x/1", "a", "b") + &game("https://x/2", "b", "a"))).unwrap();
    assert_eq!(urls.games[1].record.board, "");
    assert!(urls.notes[0].starts_with("Site tags are not boards"));
}

#[test]
fn anchors_must_be_finite() {
    assert_eq!(parse_anchor("a=1500"), Ok(("a".into(), 1500.0)));
    assert_eq!(parse_anchor("a"), Ok(("a".into(), 0.0)));
    for bad in ["a=NaN", "a=inf", "a=-inf", "a=x", "=5"] {
        assert!(
            parse_anchor(bad)
                .unwrap_err()
                .starts_with(&format!("--anchor {bad}: "))
        );
    }
}

#[test]
fn detection_by_extension_then_content() {
    assert_eq!(detect(Path::new("x.PGN"), "a,b"), InputFormat::Pgn);
    assert_eq!(detect(Path::new("x.csv"), "[a"), InputFormat::Csv);
    assert_eq!(detect(Path::new("x.txt"), "\n [Event"), InputFormat::Pgn);
    assert_eq!(detect(Path::new("x"), "first,second"), InputFormat::Csv);
}
