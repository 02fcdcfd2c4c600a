//! `arena check-engine`'s body: the engines to check from the arguments (a command or a
//! config's engines), the boards, and the exit code.

use super::*;

/// The engines to check and the output directory, from the arguments.
fn targets(args: &CheckEngineArgs) -> Result<(Vec<Target>, Option<PathBuf>, Duration), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    if let Some(path) = &args.config {
        let config = config::read(path).map_err(|e| e.to_string())?;
        let overrides = config::Overrides {
            output: args.output.clone(),
            ..config::Overrides::default()
        };
        let plan = config
            .plan(path, &cwd, &overrides)
            .map_err(|e| e.to_string())?;
        let mut targets: Vec<Target> = plan
            .engines
            .iter()
            .map(|e| Target {
                name: e.spec.name.clone(),
                launch: Launch {
                    program: e.program.clone(),
                    args: e.spec.args.clone(),
                    stderr_log: None,
                    limits: e.spec.limits.unwrap_or_default(),
                    sandbox: crate::sandbox::of(&e.spec),
                },
                options: e
                    .spec
                    .options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect(),
                games: e.spec.games.clone(),
                from_start: e.spec.library.is_some(),
                fresh_per_game: e.spec.library.is_some() && e.restarts_per_game(true),
                time_control: Some(e.time_control),
            })
            .collect();
        if let Some(wanted) = &args.engine {
            let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
            targets.retain(|t| &t.name == wanted);
            if targets.is_empty() {
                return Err(format!(
                    "{}: no engine called `{wanted}` (it has {})",
                    path.display(),
                    names.join(", ")
                ));
            }
        } else if !args.all {
            return Err("with --config, give --engine NAME or --all".into());
        }
        let handshake =
            Duration::from_millis(args.handshake_ms.unwrap_or(plan.handshake_timeout_ms));
        let output = args
            .all
            .then(|| plan.output.clone())
            .or(args.output.clone());
        return Ok((targets, output, handshake));
    }
    // clap's `requires` does not see through `-- CMD`: say it here.
    if args.all || args.engine.is_some() {
        return Err("--all and --engine name engines of a config: give --config FILE".into());
    }
    let Some((command, rest)) = args.command.split_first() else {
        return Err(
            "give the engine: arena check-engine -- CMD [ARGS…], or --config FILE --engine NAME | --all"
                .into(),
        );
    };
    let program = engine::resolve_program(command, &cwd).map_err(|e| format!("engine: {e}"))?;
    // `python3 engine.py` is named after its script.
    let file_name = |text: &String| {
        Path::new(text)
            .file_name()
            .map_or_else(|| text.clone(), |n| n.to_string_lossy().into_owned())
    };
    let name = match rest.first() {
        Some(script) if Path::new(script).is_file() => {
            format!("{} {}", file_name(command), file_name(script))
        }
        _ => file_name(command),
    };
    let target = Target {
        name,
        launch: Launch {
            program,
            args: rest.to_vec(),
            stderr_log: None,
            limits: engine::Limits::default(),
            sandbox: None,
        },
        options: Vec::new(),
        games: None,
        from_start: false,
        fresh_per_game: false,
        time_control: None,
    };
    Ok((
        vec![target],
        args.output.clone(),
        Duration::from_millis(args.handshake_ms.unwrap_or(DEFAULT_HANDSHAKE_MS)),
    ))
}

/// The boards of `--boards` (`config`: those of `--config`; default with `--config`: its boards),
/// or `None` for the built-in ones (`builtin`, default without `--config`).
fn chosen_boards(args: &CheckEngineArgs) -> Result<Option<Vec<BoardSpec>>, String> {
    if args.boards.iter().any(|b| b == "builtin") {
        if args.boards.len() > 1 {
            return Err("--boards builtin stands alone".into());
        }
        return Ok(None);
    }
    if args.boards.is_empty() {
        // With a config, the boards it plays; else every built-in board type.
        return match &args.config {
            Some(path) => Ok(Some(config::read(path).map_err(|e| e.to_string())?.boards)),
            None => Ok(None),
        };
    }
    let mut chosen = Vec::new();
    for text in &args.boards {
        if text == "config" {
            let Some(path) = &args.config else {
                return Err("--boards config needs --config FILE".into());
            };
            let config = config::read(path).map_err(|e| e.to_string())?;
            chosen.extend(config.boards.iter().cloned());
        } else {
            chosen.push(parse_board(text)?);
        }
    }
    Ok(Some(chosen))
}

/// Keeps of each target's games (all games when it names none) those `keep` accepts.
fn restrict_games(targets: &mut [Target], keep: impl Fn(GameKind) -> bool) {
    for target in targets {
        let allowed = target
            .games
            .take()
            .unwrap_or_else(|| GameKind::ALL.to_vec());
        target.games = Some(allowed.into_iter().filter(|&g| keep(g)).collect());
    }
}

/// `arena check-engine`: exit 0 when no check failed, 1 when one did, 2 for bad usage.
pub fn command(args: &CheckEngineArgs) -> ExitCode {
    // An interrupt ends the engines under test and whatever they started.
    crate::reaper::exit_on_signals(None);
    let (mut targets, output, handshake) = match targets(args) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    if !args.games.is_empty() {
        restrict_games(&mut targets, |g| args.games.contains(&g));
    }
    let chosen = match chosen_boards(args) {
        Ok(chosen) => chosen,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    if let Some(chosen) = &chosen {
        restrict_games(&mut targets, |g| chosen.iter().any(|b| b.kind() == g));
    }
    let settings = Settings {
        quick: args.quick,
        margin: Duration::from_millis(args.margin),
        handshake,
        boards: chosen,
    };
    let mut reports = Vec::new();
    for target in &targets {
        let mut report = check(target, settings.clone());
        if args.directions {
            report.checks.push(directions::check(target, &settings));
        }
        if !args.json {
            print!("{}", render(&report));
        }
        reports.push(report);
    }
    if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(FAILED);
            }
        }
    } else if reports.len() > 1 {
        print!("\n{}", summary(&reports));
    }
    if let Some(dir) = output {
        match write_csv(&dir, &reports) {
            Ok(path) if !args.json => println!("wrote {}", path.display()),
            Ok(_) => {}
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(FAILED);
            }
        }
    }
    ExitCode::from(if reports.iter().any(EngineReport::failed) {
        FAILED
    } else {
        DONE
    })
}
