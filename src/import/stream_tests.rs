//! Unit tests of the two passes over a file: the streamed reading agrees with the text
//! reader, a file changed between the passes is refused, `results.pgn` comes out in id order.

use std::fs;

use super::*;

/// A file in a fresh directory (kept while the directory lives).
fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// What `read` and `parse` say of a file: its games or its error.
fn outcome(result: Result<Import, ImportError>) -> Result<Import, (Option<u64>, String)> {
    result.map_err(|e| (e.line, e.message))
}

#[test]
fn streamed_files_read_as_their_text() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8]); 8] = [
        // BOM, a non-UTF-8 byte in a tag, comments, a variation, an unfinished game.
        (
            "a.pgn",
            b"\xef\xbb\xbf[White \"a\xff\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. 3 {x} (2 4) 5 1-0\n\n\
              [White \"b\"]\n[Black \"a\xff\"]\n[Result \"*\"]\n\n*\n\
              [White \"b\"]\n[Black \"a\xff\"]\n\n1. 2 0-1\n",
        ),
        ("blank.pgn", b"\xef\xbb\xbf \n\t\n"),
        ("bad.pgn", b"[White \"a\"]\n[Black \"b\"]\n[Result \"2-0\"]\n"),
        // BOM, semicolons, CRLF, a non-UTF-8 byte, ids out of order.
        (
            "a.csv",
            b"\xef\xbb\xbfgame_id;First;Second;Result\r\n3;a\xff;b;1-0\r\n1;b;a\xff;0\r\n",
        ),
        ("blank.csv", b"\n  \n"),
        // An unclosed quote on the last row; a last row cut off mid-write.
        ("quote.csv", b"first,second,result\na,b,1-0\n\"a,b,1-0\n"),
        ("cut.csv", b"first,second,result\na,b,1-0\nb,a,"),
        ("dup.csv", b"game_id,first,second,result\n7,a,b,1\n5,b,a,0\n5,a,b,1\n7,b,a,0\n"),
    ];
    for (name, bytes) in cases {
        let path = file(&dir, name, bytes);
        let text = String::from_utf8_lossy(bytes);
        let format = detect(&path, &text);
        let shown = path.display().to_string();
        let want = outcome(parse(&text, &shown, format, PairMode::Auto));
        assert_eq!(outcome(read(&path, PairMode::Auto)), want, "{name}");
    }
}

#[test]
fn the_first_id_used_twice_in_file_order_is_named() {
    let e = csv_error("game_id,first,second,result\n7,a,b,1\n5,b,a,0\n5,a,b,1\n7,b,a,0\n");
    assert_eq!(
        e,
        (Some(4), "game id 5 is used twice (also on line 3)".into())
    );
}

fn csv_error(text: &str) -> (Option<u64>, String) {
    let e = parse(text, "t.csv", InputFormat::Csv, PairMode::Auto).unwrap_err();
    (e.line, e.message)
}

#[test]
fn a_file_changed_between_the_passes_is_refused_and_games_added_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let game =
        |w: &str, b: &str| format!("[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"1-0\"]\n\n1-0\n\n");
    let two = format!("{}{}", game("a", "b"), game("b", "a"));
    let path = file(&dir, "g.pgn", two.as_bytes());
    let observed = observe(&path, PairMode::Auto).unwrap();
    // Appended (a run still writing): the games observed, no more.
    fs::write(&path, format!("{two}{}[White \"c", game("a", "c"))).unwrap();
    let mut seen = 0;
    replay(&path, &observed, |_| {
        seen += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, 2);
    // Other games, another result, or fewer: refused.
    let flipped = game("b", "a").replace("1-0", "0-1");
    for changed in [
        format!("{}{}", game("a", "b"), game("c", "a")),
        format!("{}{flipped}", game("a", "b")),
        game("a", "b"),
    ] {
        fs::write(&path, changed).unwrap();
        let e = replay(&path, &observed, |_| Ok(())).unwrap_err();
        assert!(e.message.contains("changed while it was read"), "{e}");
    }
}

#[test]
fn results_pgn_is_in_id_order_whatever_the_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(
        &dir,
        "g.csv",
        b"game_id,first,second,result,pair,moves\n3,a,b,1-0,1,x\n0,a,b,1-0,0,x\n2,b,a,0-1,1,y\n1,b,a,1-0,0,z\n",
    );
    let observed = observe(&path, PairMode::Auto).unwrap();
    let out = dir.path().join("results.pgn");
    write_pgn(&path, &observed, &out, "e").unwrap();
    let text = fs::read_to_string(&out).unwrap();
    let rounds: Vec<&str> = text.lines().filter(|l| l.starts_with("[Round")).collect();
    assert_eq!(
        rounds,
        [
            "[Round \"0.0\"]",
            "[Round \"0.1\"]",
            "[Round \"0.2\"]",
            "[Round \"0.3\"]"
        ]
    );
    // Game 3 repeats game 0 (same players, moves and result): both carry the group.
    assert_eq!(text.matches("[RepeatGroup \"0\"]").count(), 2, "{text}");
    // The same text as the writer of a whole list.
    let all = read(&path, PairMode::Auto).unwrap();
    let mut games = all.games;
    games.sort_by_key(|g| g.record.game_id);
    let list: Vec<crate::report::files::PgnGame<'_>> = games
        .iter()
        .map(|g| crate::report::files::PgnGame {
            record: &g.record,
            event: g.event.as_deref().unwrap_or("e"),
            round: &g.round_text,
            termination: g.termination_known,
        })
        .collect();
    let whole = dir.path().join("whole.pgn");
    crate::report::files::write_pgn(&whole, &list).unwrap();
    assert_eq!(fs::read_to_string(whole).unwrap(), text);
}

#[test]
fn short_texts_are_kept_whole_and_long_ones_numbered() {
    let mut long = crate::standings::observed::Interner::default();
    let short = scan::Key::new("12.250000", &mut long);
    let longer = scan::Key::new("2026.11.25.1", &mut long);
    assert_eq!(long.len(), 1);
    assert_eq!(short.text(&long), "12.250000");
    assert_eq!(longer.text(&long), "2026.11.25.1");
    assert_eq!(scan::Key::new("2026.11.25.1", &mut long), longer);
    assert_ne!(scan::Key::new("12.25000", &mut long), short);
}
