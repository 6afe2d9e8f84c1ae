//! The help is the manual: every example line it prints is run here, and
//! the query help's answers must be what the binary answers. Also: every
//! pair of shapes the help promises is answered, and a closed pipe ends a
//! run quietly.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn geom_in(dir: &Path, arguments: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geom"))
        .args(arguments)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the geom binary starts");
    // Written from another thread while the output is read: a long input
    // whose answers fill the output pipe would otherwise block both ends.
    let mut input = child.stdin.take().expect("stdin is piped");
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let output = child.wait_with_output().expect("geom finishes");
    writer
        .join()
        .expect("the writer thread")
        .expect("stdin accepts the input");
    output
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("geom-help-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// The help of `geom <command>` (`--help`, the long form).
fn help(command: Option<&str>) -> String {
    let arguments: Vec<&str> = command.into_iter().chain(["--help"]).collect();
    let output = geom_in(&std::env::temp_dir(), &arguments, "");
    assert_eq!(output.status.code(), Some(0), "{arguments:?}");
    text(&output.stdout)
}

/// The lines of `help` after a line starting with `Example`, up to the
/// next blank line.
fn example_lines(help: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.starts_with("Example") {
            inside = true;
        } else if line.trim().is_empty() {
            inside = false;
        } else if inside {
            lines.push(line.trim_start().to_string());
        }
    }
    lines
}

/// The command-line examples of a help text: `geom …` lines, without the
/// comment after two spaces, as argument lists.
fn command_examples(help: &str) -> Vec<Vec<String>> {
    example_lines(help)
        .iter()
        .filter_map(|line| line.strip_prefix("geom "))
        .map(|line| {
            let command = line.split("  ").next().unwrap_or("");
            command.split_whitespace().map(str::to_string).collect()
        })
        .collect()
}

/// The query help's examples: (input line, documented answer).
fn query_examples(help: &str) -> Vec<(String, String)> {
    let lines = example_lines(help);
    let mut pairs = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.starts_with('{') {
            let answer = lines
                .get(index + 1)
                .and_then(|next| next.strip_prefix("=> "))
                .unwrap_or_else(|| panic!("no answer after {line}"));
            pairs.push((line.clone(), answer.to_string()));
        }
    }
    pairs
}

#[test]
fn the_query_help_answers_are_the_binarys() {
    let help = help(Some("query"));
    let examples = query_examples(&help);
    // Every op is shown at least once.
    for op in [
        "ray_cast",
        "closest_point",
        "distance",
        "closest_points",
        "contact",
        "sweep",
        "slide",
    ] {
        assert!(
            examples
                .iter()
                .any(|(input, _)| input.contains(&format!("\"op\":\"{op}\""))),
            "no example of {op}"
        );
    }
    let input: String = examples.iter().map(|(line, _)| format!("{line}\n")).collect();
    let output = geom_in(&std::env::temp_dir(), &["query"], &input);
    // One example is an error line: status 1.
    assert_eq!(output.status.code(), Some(1));
    let answers = text(&output.stdout);
    let answers: Vec<&str> = answers.lines().collect();
    assert_eq!(answers.len(), examples.len());
    for ((input, documented), answer) in examples.iter().zip(&answers) {
        assert_eq!(documented, answer, "{input}");
    }
    // The short help's example, `echo '…' | geom query`, answers too.
    let short = geom_in(&std::env::temp_dir(), &["query", "-h"], "");
    let short_help = text(&short.stdout);
    let echoed: Vec<&str> = short_help
        .lines()
        .filter_map(|line| line.trim().strip_prefix("echo '"))
        .filter_map(|line| line.split_once("' | geom query").map(|(json, _)| json))
        .collect();
    assert_eq!(echoed.len(), 1, "{short_help}");
    let output = geom_in(&std::env::temp_dir(), &["query"], &format!("{}\n", echoed[0]));
    assert_eq!(output.status.code(), Some(0));
    let answer: Value = serde_json::from_str(text(&output.stdout).trim()).unwrap();
    assert_eq!(answer["t"], json!(4));
}

/// Every `geom …` example of every help, run in a scratch folder (its
/// `out/…` folders land there); what each says it writes is there.
#[test]
fn every_command_example_runs() {
    let dir = scratch_dir("examples");
    // `geom query queries.jsonl` reads a file of the query help's examples
    // that answer without error.
    let query_help = help(Some("query"));
    let good: String = query_examples(&query_help)
        .iter()
        .filter(|(_, answer)| !answer.contains("\"error\""))
        .map(|(line, _)| format!("{line}\n"))
        .collect();
    std::fs::write(dir.join("queries.jsonl"), good).unwrap();
    let mut examples = Vec::new();
    for command in [
        None,
        Some("query"),
        Some("render"),
        Some("demo"),
        Some("precision"),
    ] {
        examples.extend(command_examples(&help(command)));
    }
    let shown: Vec<String> = examples.iter().map(|e| e.join(" ")).collect();
    for expected in [
        "demo",
        "render",
        "precision",
        "query queries.jsonl",
        "query --help",
    ] {
        assert!(
            shown.iter().any(|e| e.starts_with(expected)),
            "{expected}: {shown:?}"
        );
    }
    for example in &mut examples {
        // The survey's default 5000 cases a row take 100 s in the test
        // profile: a run without a count gets 100 (the default itself is
        // checked in cli.rs).
        if example[0] == "precision" && !example.iter().any(|a| a == "-n" || a == "--cases") {
            example.extend(["-n".to_string(), "100".to_string()]);
        }
    }
    // All at once: each is its own process writing to its own folder, and
    // most are single-threaded (on two cores this halves the wait).
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let runs: Vec<_> = examples
            .iter()
            .map(|example| {
                let dir = &dir;
                scope.spawn(move || {
                    let arguments: Vec<&str> = example.iter().map(String::as_str).collect();
                    geom_in(dir, &arguments, "")
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("the example's thread"))
            .collect()
    });
    for (example, output) in examples.iter().zip(outputs) {
        let arguments: Vec<&str> = example.iter().map(String::as_str).collect();
        assert_eq!(
            output.status.code(),
            Some(0),
            "geom {}: {}",
            example.join(" "),
            text(&output.stderr)
        );
        let stdout = text(&output.stdout);
        assert!(!stdout.is_empty(), "geom {}", example.join(" "));
        // The value given to an option, e.g. `-o DIR`.
        let value_of = |names: [&str; 2]| {
            example
                .iter()
                .position(|a| names.contains(&a.as_str()))
                .map(|i| example[i + 1].clone())
        };
        let folder = |names: [&str; 2], default: &str| {
            dir.join(value_of(names).unwrap_or_else(|| default.to_string()))
        };
        match arguments[0] {
            "render" => {
                let out = folder(["-o", "--out"], "out/render");
                let precision = value_of(["-p", "--precision"]).unwrap_or_else(|| "f64".to_string());
                for view in ["near", "far"] {
                    for suffix in [precision.as_str(), "error"] {
                        let path = out.join(format!("{view}_{suffix}.png"));
                        assert!(path.is_file(), "{}", path.display());
                    }
                }
            }
            "demo" => {
                let out = folder(["-o", "--out"], "out/demo");
                for name in [
                    "near_f64.png",
                    "near_f32.png",
                    "near_error.png",
                    "far_f64.png",
                    "far_f32.png",
                    "far_error.png",
                    "walk.png",
                    "terrain.png",
                ] {
                    assert!(out.join(name).is_file(), "{name}");
                }
            }
            "precision" => {
                if arguments.contains(&"--json") {
                    let report: Value = serde_json::from_str(stdout.trim()).expect("--json prints JSON");
                    assert!(report.is_object());
                }
                if value_of(["-p", "--plots"]).is_some() {
                    assert!(
                        folder(["-p", "--plots"], "")
                            .join("error_vs_distance.png")
                            .is_file()
                    );
                }
            }
            "query" if arguments.len() == 2 && !arguments[1].starts_with('-') => {
                assert_eq!(stdout.lines().count(), 9);
            }
            _ => {}
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One shape of each kind the help lists, each holding the origin (so
/// that any two of them touch).
fn one_of_each() -> Vec<Value> {
    vec![
        json!({"type": "sphere", "center": [0.2, 0.1, 0], "radius": 0.8}),
        json!({"type": "capsule", "a": [-1, 0.3, 0], "b": [1, 0.2, 0.1], "radius": 0.4}),
        json!({"type": "cylinder", "a": [0, -0.5, 0], "b": [0, 0.8, 0.1], "radius": 0.5}),
        json!({"type": "cone", "apex": [0, 1, 0], "base": [0.1, -0.5, 0], "radius": 0.7}),
        json!({"type": "ellipsoid", "center": [0, 0.2, 0], "radii": [1, 0.5, 0.7], "rotation": [0, 0.2, 0, 1]}),
        json!({"type": "box", "center": [0.1, 0, 0], "half_extents": [0.6, 0.4, 0.5], "rotation": [0.1, 0, 0, 1]}),
        json!({"type": "halfspace", "normal": [0, 1, 0], "offset": 0.1}),
        json!({"type": "triangle", "a": [-1, 0, -1], "b": [1, 0, -1], "c": [0, 0, 1]}),
        json!({"type": "segment", "a": [-1, -0.1, 0.1], "b": [1, 0.1, -0.1]}),
        json!({"type": "heightfield", "origin": [-3, 0, -3], "cell": [1, 1], "rows": 7, "cols": 7,
               "heights": (0..49).map(|k| 0.05 * f64::from(k % 3)).collect::<Vec<_>>()}),
        json!({"type": "trimesh", "vertices": [[-1, 0.05, -1], [1, 0, -1], [1, -0.05, 1], [-1, 0, 1]],
               "indices": [[0, 3, 1], [1, 3, 2]]}),
        json!({"type": "hull", "points": [[-0.5, -0.4, -0.5], [0.6, -0.4, -0.4], [0, -0.3, 0.6], [0.1, 0.7, 0]]}),
        json!({"type": "compound", "children": [
            {"type": "sphere", "center": [-0.3, 0, 0], "radius": 0.5},
            {"type": "box", "center": [0.5, 0, 0], "half_extents": [0.3, 0.3, 0.3]}]}),
    ]
}

/// The help says every pair of shapes is answered in either order, except
/// two heightfields and two half-spaces: contact, distance and
/// closest_points for all of them, overlapping and moved apart, with the
/// same distance both ways; the two exceptions are refused by name.
#[test]
fn every_pair_the_help_promises_is_answered() {
    let help = help(Some("query"));
    assert!(help.contains(
        "answer every pair of shapes, in either order, except two\nheightfields and two half-spaces (unbounded: they overlap without a depth\nunless parallel); contact also refuses a trimesh against a trimesh or a\nheightfield"
    ));
    let excepted = |a: &str, b: &str| a == b && (a == "heightfield" || a == "halfspace");
    // Two triangle surfaces: distance and closest points, no contact.
    let surfaces = |a: &str, b: &str| {
        matches!(
            (a, b),
            ("trimesh", "trimesh") | ("trimesh", "heightfield") | ("heightfield", "trimesh")
        )
    };
    let shapes = one_of_each();
    let kinds: Vec<&str> = shapes.iter().map(|s| s["type"].as_str().unwrap()).collect();
    for kind in [
        "sphere",
        "capsule",
        "cylinder",
        "cone",
        "ellipsoid",
        "box",
        "halfspace",
        "triangle",
        "segment",
        "heightfield",
        "trimesh",
        "hull",
        "compound",
    ] {
        assert!(
            help.contains(&format!("{{\"type\":\"{kind}\"")),
            "{kind} not in the help"
        );
        assert!(kinds.contains(&kind), "{kind}");
    }
    // A copy of each shape 5 above the first set (a half-space cannot be
    // moved apart: its copy is the plane y <= -4.9, below everything).
    let lifted: Vec<Value> = shapes.iter().map(|s| lifted(s, 5.0)).collect();
    let mut lines = Vec::new();
    let mut pairs = Vec::new();
    for (i, a) in shapes.iter().enumerate() {
        for (j, b) in lifted.iter().enumerate() {
            if excepted(kinds[i], kinds[j]) {
                let refused = geom_in(
                    &std::env::temp_dir(),
                    &["query"],
                    &format!("{}\n", json!({"op": "distance", "a": a, "b": b})),
                );
                assert!(
                    text(&refused.stdout)
                        .contains(&format!("not supported for {} and {}", kinds[i], kinds[j])),
                    "{}",
                    text(&refused.stdout)
                );
                continue;
            }
            for (first, second) in [(a, b), (b, a)] {
                for op in ["contact", "distance", "closest_points"] {
                    lines.push(json!({"op": op, "a": first, "b": second, "margin": 0.5}));
                    if op != "contact" {
                        lines
                            .last_mut()
                            .unwrap()
                            .as_object_mut()
                            .unwrap()
                            .remove("margin");
                    }
                }
            }
            pairs.push((kinds[i], kinds[j]));
        }
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let output = geom_in(&std::env::temp_dir(), &["query"], &input);
    let stdout = text(&output.stdout);
    let answers: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), lines.len());
    for (line, answer) in lines.iter().zip(&answers) {
        let (kind_a, kind_b) = (
            line["a"]["type"].as_str().unwrap(),
            line["b"]["type"].as_str().unwrap(),
        );
        if line["op"] == json!("contact") && surfaces(kind_a, kind_b) {
            assert!(
                answer["error"]
                    .as_str()
                    .is_some_and(|e| e.contains(&format!("not supported for {kind_a} and {kind_b}"))),
                "{line} -> {answer}"
            );
            continue;
        }
        assert!(answer.get("error").is_none(), "{line} -> {answer}");
    }
    // Per pair: forward contact, distance, closest points, then reverse.
    for (k, (kind_a, kind_b)) in pairs.iter().enumerate() {
        let forward = &answers[6 * k..6 * k + 3];
        let reverse = &answers[6 * k + 3..6 * k + 6];
        let (d_forward, d_reverse) = (
            forward[1]["distance"].as_f64().unwrap(),
            reverse[1]["distance"].as_f64().unwrap(),
        );
        assert!(
            (d_forward - d_reverse).abs() <= 1e-9 * d_forward.max(1.0),
            "{kind_a}-{kind_b}: {d_forward} vs {d_reverse}"
        );
        // Closest points agree with the distance.
        if forward[2]["status"] == json!("within") {
            let reported = forward[2]["distance"].as_f64().unwrap();
            assert!(
                (reported - d_forward).abs() <= 1e-9 * d_forward.max(1.0),
                "{kind_a}-{kind_b}"
            );
        }
    }
    // Overlapping pairs (the first set against itself) touch: distance 0.
    let mut lines = Vec::new();
    for (i, a) in shapes.iter().enumerate() {
        for (j, b) in shapes.iter().enumerate() {
            if !excepted(kinds[i], kinds[j]) {
                lines.push(json!({"op": "distance", "a": a, "b": b}));
            }
        }
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let output = geom_in(&std::env::temp_dir(), &["query"], &input);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    for (line, answer) in lines.iter().zip(text(&output.stdout).lines()) {
        let answer: Value = serde_json::from_str(answer).unwrap();
        assert_eq!(answer["distance"], json!(0), "{line}");
    }
}

/// `shape` moved up by `dy` (a half-space's offset moves down, so that the
/// moved plane lies below the rest).
fn lifted(shape: &Value, dy: f64) -> Value {
    let mut moved = shape.clone();
    let object = moved.as_object_mut().unwrap();
    if object["type"] == json!("halfspace") {
        object.insert("offset".into(), json!(0.1 - dy));
        return moved;
    }
    for key in ["center", "a", "b", "c", "apex", "base", "origin"] {
        if let Some(point) = object.get_mut(key) {
            let y = point[1].as_f64().unwrap();
            point[1] = json!(y + dy);
        }
    }
    for key in ["vertices", "points"] {
        if let Some(Value::Array(points)) = object.get_mut(key) {
            for point in points {
                let y = point[1].as_f64().unwrap();
                point[1] = json!(y + dy);
            }
        }
    }
    if let Some(Value::Array(children)) = object.get_mut("children") {
        for child in children.iter_mut() {
            *child = lifted(child, dy);
        }
    }
    moved
}

/// `geom query … | head -1`: the reader closes the pipe after one line;
/// the run ends quietly with status 0. The same for the demo's report.
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = scratch_dir("pipe");
    let line = r#"{"op":"ray_cast","shape":{"type":"sphere","center":[0,0,5],"radius":1},"ray":{"origin":[0,0,0],"dir":[0,0,1]}}"#;
    let input: String = std::iter::repeat_n(format!("{line}\n"), 200_000).collect();
    std::fs::write(dir.join("many.jsonl"), input).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_geom"))
        .args(["query", "many.jsonl"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(first.contains("\"t\":4"), "{first}");
    drop(reader);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");

    let mut child = Command::new(env!("CARGO_BIN_EXE_geom"))
        .args(["demo", "-W", "8", "-H", "6", "-o", "small"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");
    std::fs::remove_dir_all(&dir).unwrap();
}
