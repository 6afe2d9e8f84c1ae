//! Runs the `geom` binary: query lines against answers computed here
//! independently, error lines, exit statuses, help and a small render.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn geom(arguments: &[&str], stdin: &str) -> Output {
    geom_bytes(arguments, stdin.as_bytes())
}

fn geom_bytes(arguments: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geom"))
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the geom binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin)
        .expect("stdin accepts the input");
    child.wait_with_output().expect("geom finishes")
}

fn answers(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .expect("output is UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("geom-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn vector(value: &Value) -> [f64; 3] {
    let items = value.as_array().expect("an array");
    assert_eq!(items.len(), 3);
    [0, 1, 2].map(|i| items[i].as_f64().expect("a number"))
}

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance * expected.abs().max(1.0)
}

const ORIGIN: [f64; 3] = [1.0, 2.0, 3.0];
const DIR: [f64; 3] = [0.5, -1.0, 2.0];
const CENTER: [f64; 3] = [4.0, -3.0, 12.0];
const RADIUS: f64 = 1.5;

/// The entry time of the ray at the sphere by the textbook quadratic,
/// `|o + t d − c|² = r²`, solved in f64.
fn sphere_entry_time() -> f64 {
    let f: Vec<f64> = (0..3).map(|i| ORIGIN[i] - CENTER[i]).collect();
    let a: f64 = DIR.iter().map(|d| d * d).sum();
    let b: f64 = 2.0 * (0..3).map(|i| f[i] * DIR[i]).sum::<f64>();
    let c: f64 = f.iter().map(|x| x * x).sum::<f64>() - RADIUS * RADIUS;
    (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

fn sphere() -> Value {
    json!({"type": "sphere", "center": CENTER, "radius": RADIUS})
}

#[test]
fn mixed_lines_get_one_answer_each_in_order() {
    let lines = [
        json!({"id": 1, "op": "ray_cast", "shape": sphere(), "ray": {"origin": ORIGIN, "dir": DIR}}).to_string(),
        "{\"id\": 2, \"op\": \"ray_cast\", \"shape\": ".to_string(), // truncated JSON
        json!({"id": "three", "op": "closest_point", "shape": sphere(), "point": [10.0, 5.0, 1.0]}).to_string(),
        json!({"id": {"n": 4}, "op": "contact", "a": sphere(), "b": {"type": "halfspace", "normal": [0, 0, 0], "offset": 1}}).to_string(),
        json!({"id": 5, "op": "ray_cast", "precision": "f32", "shape": sphere(),
               "ray": {"origin": ORIGIN, "dir": DIR}})
        .to_string(),
        json!({"id": 6, "op": "ray_cast", "shape": sphere(), "ray": {"origin": ORIGIN, "dir": [-0.5, 1.0, -2.0]}})
            .to_string(),
        json!({"id": 7, "op": "closest_point", "shape": {"type": "sphere", "center": [0, 0, 0], "radius": -1},
               "point": [0, 0, 0]})
        .to_string(),
        String::new(), // blank: skipped
        json!({"op": "ray_cast", "precision": "f128", "shape": sphere(), "ray": {"origin": ORIGIN, "dir": DIR}})
            .to_string(),
        json!({"id": 9, "op": "closest_point", "shape": {"type": "heightfield"}, "point": [0, 0, 0]}).to_string(),
    ];
    let output = geom(&["query"], &(lines.join("\n") + "\n"));
    assert_eq!(output.status.code(), Some(1), "a failing line makes the run fail");
    let answers = answers(&output);
    assert_eq!(answers.len(), lines.len() - 1, "one answer per non-blank line");
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    assert_eq!(
        ids,
        [
            json!(1),
            Value::Null,
            json!("three"),
            json!({"n": 4}),
            json!(5),
            json!(6),
            json!(7),
            Value::Null,
            json!(9)
        ]
    );

    // 1: the hit, against the textbook quadratic.
    let t = sphere_entry_time();
    assert_eq!(answers[0]["hit"], true);
    assert!(close(answers[0]["t"].as_f64().unwrap(), t, 4.0 * f64::EPSILON));
    let point: [f64; 3] = [0, 1, 2].map(|i| ORIGIN[i] + t * DIR[i]);
    let normal: [f64; 3] = [0, 1, 2].map(|i| (point[i] - CENTER[i]) / RADIUS);
    for i in 0..3 {
        assert!(close(vector(&answers[0]["point"])[i], point[i], 1e-14));
        assert!(close(vector(&answers[0]["normal"])[i], normal[i], 1e-14));
    }

    // 2: unparsable, with its line number.
    assert_eq!(answers[1]["line"], 2);
    assert!(answers[1]["error"].as_str().unwrap().starts_with("invalid JSON"));

    // 3: the closest point lies on the line to the centre.
    let query = [10.0, 5.0, 1.0];
    let offset: [f64; 3] = [0, 1, 2].map(|i| query[i] - CENTER[i]);
    let length = offset.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert_eq!(answers[2]["inside"], false);
    assert!(close(
        answers[2]["distance"].as_f64().unwrap(),
        length - RADIUS,
        1e-15
    ));
    for i in 0..3 {
        let expected = CENTER[i] + offset[i] * RADIUS / length;
        assert!(close(vector(&answers[2]["point"])[i], expected, 1e-15));
    }

    // 4: an invalid shape (a zero normal), named; the run goes on.
    assert!(
        answers[3]["error"]
            .as_str()
            .unwrap()
            .starts_with("b: half_space: normal"),
        "{}",
        answers[3]
    );
    assert_eq!(answers[3]["line"], 4);

    // 5: f32 agrees with the f64 answer to f32 precision and prints f32 digits.
    let t_f32 = answers[4]["t"].as_f64().unwrap();
    assert!(close(t_f32, t, 8.0 * f64::from(f32::EPSILON)), "{t_f32} vs {t}");
    let printed = String::from_utf8(output.stdout.clone()).unwrap();
    let line_5 = printed.lines().nth(4).unwrap();
    assert!(line_5.contains(&format!("\"t\":{},", t_f32 as f32)), "{line_5}");

    // 6: pointing away misses.
    assert_eq!(answers[5], json!({"id": 6, "hit": false}));

    // 7: the shape's own validation message.
    assert_eq!(
        answers[6]["error"],
        "sphere: radius = -1.0 is invalid (must be 0 or between 1/max_size and max_size = √max/4 of the precision (geom_core::max_size))"
    );

    // The blank line 8 is skipped, but still counted in line numbers.
    assert_eq!(answers[7]["line"], 9);
    assert!(
        answers[7]["error"]
            .as_str()
            .unwrap()
            .contains("unknown precision 'f128'")
    );
    assert_eq!(answers[8]["error"], "missing field 'shape.origin'");
}

#[test]
fn small_sphere_far_away_is_hit_in_f32() {
    // A 1 cm sphere 1e5 from the origin, seen from 10 m. The ray runs along
    // x, 1/128 off the centre: exact in both precisions (an f32 ulp at 1e5).
    let center = [1e5, 1e5, 1e5];
    let off_centre = 1.0 / 128.0;
    let lines: Vec<String> = ["f32", "f64"]
        .iter()
        .map(|precision| {
            json!({"id": precision, "op": "ray_cast", "precision": precision,
                   "shape": {"type": "sphere", "center": center, "radius": 0.01},
                   "ray": {"origin": [1e5 - 10.0, 1e5 + off_centre, 1e5], "dir": [1.0, 0.0, 0.0]}})
            .to_string()
        })
        .collect();
    let output = geom(&["query", "-"], &lines.join("\n"));
    assert_eq!(output.status.code(), Some(0));
    let answers = answers(&output);
    // t = 10 − √(r² − y²), with r as each precision reads 0.01.
    let entry = |radius: f64| 10.0 - (radius * radius - off_centre * off_centre).sqrt();
    let t_f64 = answers[1]["t"].as_f64().unwrap();
    assert!(close(t_f64, entry(0.01), 4.0 * f64::EPSILON), "{t_f64}");
    assert_eq!(answers[0]["hit"], true);
    let t_f32 = answers[0]["t"].as_f64().unwrap();
    let expected_f32 = entry(f64::from(0.01f32));
    assert!(
        (t_f32 - expected_f32).abs() <= 4.0 * f64::from(f32::EPSILON) * 10.0,
        "{t_f32}"
    );
}

#[test]
fn all_good_lines_exit_zero_and_files_are_read() {
    let dir = scratch_dir("query");
    let path = dir.join("queries.jsonl");
    let line = json!({"id": 1, "op": "closest_point", "shape": sphere(), "point": CENTER});
    std::fs::write(&path, format!("{line}\r\n\n{line}")).unwrap();
    let output = geom(&["query", path.to_str().unwrap()], "");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers = answers(&output);
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["inside"], true);
    assert_eq!(answers[0]["distance"], -RADIUS);
    std::fs::remove_dir_all(&dir).unwrap();

    let missing = geom(&["query", "/nonexistent/queries.jsonl"], "");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot open"));
}

#[test]
fn help_and_usage_errors() {
    for arguments in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &["help", "render"],
        &["query", "--help"],
        &["demo", "-h"],
    ] {
        let output = geom(arguments, "");
        assert_eq!(output.status.code(), Some(0), "{arguments:?}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("Usage: geom"),
            "{arguments:?}"
        );
    }
    for arguments in [
        &["bogus"][..],
        &[],
        &["query", "a", "b"],
        &["render", "--width", "wide"],
        &["demo", "--precision", "f32"],
    ] {
        let output = geom(arguments, "");
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert!(!output.stderr.is_empty(), "{arguments:?}");
    }
}

#[test]
fn render_writes_pngs() {
    let dir = scratch_dir("render");
    let out = dir.to_str().unwrap();
    let output = geom(
        &[
            "render",
            "--precision",
            "f32",
            "--out",
            out,
            "--width",
            "40",
            "--height",
            "30",
        ],
        "",
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for name in ["near_f32.png", "near_error.png", "far_f32.png", "far_error.png"] {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&bytes[1..4], b"PNG", "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A ray at a shape whose answer is worked out by hand.
struct HandComputedRay {
    shape: Value,
    origin: [f64; 3],
    dir: [f64; 3],
    t: f64,
    normal: [f64; 3],
}

fn case(shape: Value, origin: [f64; 3], dir: [f64; 3], t: f64, normal: [f64; 3]) -> HandComputedRay {
    HandComputedRay {
        shape,
        origin,
        dir,
        t,
        normal,
    }
}

/// One or two rays per primitive that geom has, answers worked out by hand.
fn hand_computed_rays() -> Vec<HandComputedRay> {
    vec![
        // Upright capsule of radius 1 from y = 0 to 4: the side at x = 1,
        // then the top cap's pole at y = 5 (dir of length 2 halves t).
        case(
            json!({"type": "capsule", "a": [0, 0, 0], "b": [0, 4, 0], "radius": 1}),
            [5.0, 2.0, 0.0],
            [-1.0, 0.0, 0.0],
            4.0,
            [1.0, 0.0, 0.0],
        ),
        case(
            json!({"type": "capsule", "a": [0, 0, 0], "b": [0, 4, 0], "radius": 1}),
            [0.0, 10.0, 0.0],
            [0.0, -2.0, 0.0],
            2.5,
            [0.0, 1.0, 0.0],
        ),
        // Cone with apex at y = 3 over the unit disk at y = 0: the base
        // from below; the side at half height, where the radius is 0.5 and
        // the outward normal leans up by the slope (3, 1) / √10.
        case(
            json!({"type": "cone", "apex": [0, 3, 0], "base": [0, 0, 0], "radius": 1}),
            [0.25, -5.0, 0.0],
            [0.0, 1.0, 0.0],
            5.0,
            [0.0, -1.0, 0.0],
        ),
        case(
            json!({"type": "cone", "apex": [0, 3, 0], "base": [0, 0, 0], "radius": 1}),
            [5.0, 1.5, 0.0],
            [-1.0, 0.0, 0.0],
            4.5,
            [3.0 / 10f64.sqrt(), 1.0 / 10f64.sqrt(), 0.0],
        ),
        // A 1×2×3 box turned 90° about z at x = 10: its local y faces now
        // face along world x, so the ray along x meets x = 10 − 2.
        case(
            json!({"type": "box", "center": [10, 0, 0], "half_extents": [1, 2, 3], "rotation": [0, 0, 1, 1]}),
            [0.0, 0.5, 0.25],
            [1.0, 0.0, 0.0],
            8.0,
            [-1.0, 0.0, 0.0],
        ),
        // `normal · x <= offset` with the normal as given: 2y <= 2 is y <= 1.
        case(
            json!({"type": "halfspace", "normal": [0, 2, 0], "offset": 2}),
            [1.0, 5.0, 1.0],
            [0.0, -2.0, 0.0],
            2.0,
            [0.0, 1.0, 0.0],
        ),
        // Cylinder along z from 0 to 2, radius 1: a ray along -x at z = 1
        // meets the side at x = 1.
        case(
            json!({"type": "cylinder", "a": [0, 0, 0], "b": [0, 0, 2], "radius": 1}),
            [5.0, 0.0, 1.0],
            [-2.0, 0.0, 0.0],
            2.0,
            [1.0, 0.0, 0.0],
        ),
        // Parallel to its axis inside the radius: the cap at z = 2.
        case(
            json!({"type": "cylinder", "a": [0, 0, 0], "b": [0, 0, 2], "radius": 1}),
            [0.5, 0.0, 5.0],
            [0.0, 0.0, -1.0],
            3.0,
            [0.0, 0.0, 1.0],
        ),
        // Ellipsoid radii (2, 1, 1) turned 90° about z at the origin: its
        // long axis lies along world y, so a ray down y meets y = 2.
        case(
            json!({"type": "ellipsoid", "center": [0, 0, 0], "radii": [2, 1, 1], "rotation": [0, 0, 1, 1]}),
            [0.0, 6.0, 0.0],
            [0.0, -1.0, 0.0],
            4.0,
            [0.0, 1.0, 0.0],
        ),
        // The triangle in z = 1 seen from below: the normal faces the ray.
        case(
            json!({"type": "triangle", "a": [0, 0, 1], "b": [2, 0, 1], "c": [0, 2, 1]}),
            [0.5, 0.5, -3.0],
            [0.0, 0.0, 2.0],
            2.0,
            [0.0, 0.0, -1.0],
        ),
        case(
            json!({"type": "halfspace", "normal": [1, 1, 0], "offset": 0}),
            [1.0, 1.0, 3.0],
            [-1.0, -1.0, 0.0],
            1.0,
            [0.5f64.sqrt(), 0.5f64.sqrt(), 0.0],
        ),
    ]
}

#[test]
fn each_primitive_answers_a_hand_computed_ray() {
    let cases = hand_computed_rays();
    let lines: Vec<String> = cases
        .iter()
        .enumerate()
        .map(
            |(
                id,
                HandComputedRay {
                    shape, origin, dir, ..
                },
            )| {
                json!({"id": id, "op": "ray_cast", "shape": shape, "ray": {"origin": origin, "dir": dir}})
                    .to_string()
            },
        )
        .collect();
    let output = geom(&["query"], &lines.join("\n"));
    let answers = answers(&output);
    assert_eq!(answers.len(), cases.len());
    for (
        HandComputedRay {
            shape,
            origin,
            dir,
            t,
            normal,
        },
        answer,
    ) in cases.iter().zip(&answers)
    {
        assert_eq!(answer["hit"], true, "{shape}: {answer}");
        assert!(
            close(answer["t"].as_f64().unwrap(), *t, 4.0 * f64::EPSILON),
            "{shape}: {answer}"
        );
        let point = vector(&answer["point"]);
        for i in 0..3 {
            assert!(
                close(point[i], origin[i] + t * dir[i], 1e-14),
                "{shape}: {answer}"
            );
            assert!(
                close(vector(&answer["normal"])[i], normal[i], 1e-14),
                "{shape}: {answer}"
            );
        }
    }
    assert_eq!(output.status.code(), Some(0));
}

/// 6 × 6 samples one unit apart from the origin, flat at y = 0 except a
/// bump of height 1 at sample (1, 1).
fn bumpy_ground() -> Value {
    let mut heights = vec![0.0; 36];
    heights[6 + 1] = 1.0;
    json!({"type": "heightfield", "origin": [0, 0, 0], "cell": [1, 1], "rows": 6, "cols": 6, "heights": heights})
}

#[test]
fn heightfield_answers_hand_computed_queries() {
    let sphere = json!({"type": "sphere", "center": [3.5, 0.3, 3.5], "radius": 0.5});
    let capsule = json!({"type": "capsule", "a": [3.2, 0.4, 3.5], "b": [3.8, 0.4, 3.5], "radius": 0.5});
    let lines = [
        // Down onto cell (0, 0) at x = 0.5, z = 0.25 (below its default
        // diagonal): the triangle (0,0,0), (1,1,1), (1,0,0) is the plane
        // y = z, met at y = 0.25: t = 4.75, normal (0, 1, −1)/√2.
        json!({"id": 1, "op": "ray_cast", "shape": bumpy_ground(),
               "ray": {"origin": [0.5, 5, 0.25], "dir": [0, -1, 0]}}),
        // Above the flat part: straight down, 0.75 away.
        json!({"id": 2, "op": "closest_point", "shape": bumpy_ground(), "point": [3.5, 0.75, 3.5]}),
        // Below the surface: inside, the point itself, signed distance −0.5.
        json!({"id": 3, "op": "closest_point", "shape": bumpy_ground(), "point": [3.5, -0.5, 3.5]}),
        // A sphere 0.2 deep into the flat part; normal from the ground up.
        json!({"id": 4, "op": "contact", "a": bumpy_ground(), "b": sphere}),
        // A capsule lying along x, 0.1 deep; normal from the capsule down.
        json!({"id": 5, "op": "contact", "a": capsule, "b": bumpy_ground()}),
    ];
    let input: Vec<String> = lines.iter().map(Value::to_string).collect();
    let output = geom(&["query"], &input.join("\n"));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let answers = answers(&output);

    assert_eq!(answers[0]["hit"], true);
    assert!(close(answers[0]["t"].as_f64().unwrap(), 4.75, 1e-15));
    let s = 0.5f64.sqrt();
    let normal = vector(&answers[0]["normal"]);
    for (got, expected) in normal.iter().zip([0.0, s, -s]) {
        assert!((got - expected).abs() < 1e-15, "{normal:?}");
    }

    assert_eq!(answers[1]["point"], json!([3.5, 0, 3.5]));
    assert_eq!(answers[1]["inside"], false);
    assert_eq!(answers[1]["distance"], 0.75);
    assert_eq!(answers[2]["point"], json!([3.5, -0.5, 3.5]));
    assert_eq!(answers[2]["inside"], true);
    assert_eq!(answers[2]["distance"], -0.5);

    let contacts = answers[3]["contacts"].as_array().unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!(vector(&contacts[0]["normal"]), [0.0, 1.0, 0.0]);
    assert_eq!(vector(&contacts[0]["point_a"]), [3.5, 0.0, 3.5]);
    assert!(close(contacts[0]["depth"].as_f64().unwrap(), 0.2, 1e-15));
    assert!(close(vector(&contacts[0]["point_b"])[1], -0.2, 1e-15));

    let contacts = answers[4]["contacts"].as_array().unwrap();
    assert!((1..=4).contains(&contacts.len()), "{contacts:?}");
    for contact in contacts {
        assert_eq!(vector(&contact["normal"]), [0.0, -1.0, 0.0]);
        assert!(close(contact["depth"].as_f64().unwrap(), 0.1, 1e-15));
        let (on_capsule, on_ground) = (vector(&contact["point_a"]), vector(&contact["point_b"]));
        assert!((3.2..=3.8).contains(&on_capsule[0]) && on_capsule[0] == on_ground[0]);
        assert!(close(on_capsule[1], -0.1, 1e-15) && on_ground[1] == 0.0);
    }
    // The two ends of the capsule are both kept (the best spread).
    let xs: Vec<f64> = contacts.iter().map(|c| vector(&c["point_b"])[0]).collect();
    assert!(xs.contains(&3.2) && xs.contains(&3.8), "{xs:?}");
}

#[test]
fn sweep_and_slide_lines_through_the_binary() {
    let wall = r#"{"type":"triangle","a":[2,-10,-10],"b":[2,10,-10],"c":[2,0,10]}"#;
    let input = format!(
        "{}\n{}\n{}\n{}\n",
        format_args!(
            r#"{{"id":"s","op":"sweep","shape":{{"type":"sphere","center":[0,0,0],"radius":1}},"motion":[10,0,0],"target":{wall}}}"#
        ),
        format_args!(
            r#"{{"id":"c","op":"slide","shape":{{"type":"capsule","a":[0,-0.5,0],"b":[0,0.5,0],"radius":1}},"motion":[4,0,3],"world":[{wall}]}}"#
        ),
        r#"{"id":"bad","op":"sweep","shape":{"type":"sphere","center":[0,0,0],"radius":1},"motion":[1,0,"x"],"target":{"type":"sphere","center":[0,0,0],"radius":1}}"#,
        r#"{"id":"bad2","op":"slide","shape":{"type":"cone","apex":[0,1,0],"base":[0,0,0],"radius":1},"motion":[1,0,0],"world":[]}"#,
    );
    let output = geom(&["query"], &input);
    assert_eq!(output.status.code(), Some(1));
    let lines = answers(&output);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["hit"], Value::Bool(true));
    assert!(close(lines[0]["toi"].as_f64().unwrap(), 0.1, 1e-15));
    assert_eq!(vector(&lines[0]["normal"]), [-1.0, 0.0, 0.0]);
    let position = vector(&lines[1]["position"]);
    assert!(
        close(position[0], 1.0 - 1e-3, 1e-12) && close(position[2], 3.0, 1e-12),
        "{position:?}"
    );
    assert_eq!(lines[1]["collisions"].as_u64(), Some(1));
    assert_eq!(
        (lines[2]["line"].as_u64(), lines[3]["line"].as_u64()),
        (Some(3), Some(4))
    );
    assert!(lines[2]["error"].as_str().unwrap().contains("motion"));
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("sphere, capsule or ellipsoid")
    );
}

/// Whatever a line holds, it gets exactly one answer line, in order, with
/// the error answers numbered by their physical line; the exit status is 1
/// because some lines failed, and 0 once they are left out.
#[test]
fn every_line_gets_one_answer_whatever_it_holds() {
    let good = format!(
        r#"{{"id":"good","op":"closest_point","shape":{},"point":[0,0,0]}}"#,
        sphere()
    );
    let huge_string = format!(
        r#"{{"id":"huge","op":"ray_cast","pad":"{}"}}"#,
        "x".repeat(1 << 20)
    );
    let huge_array = format!(
        r#"{{"id":"numbers","op":"closest_point","shape":{},"point":[{}0]}}"#,
        sphere(),
        "0,".repeat(300_000)
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!(
        r#"{{"id":"deep","op":{}1{}}}"#,
        r#"{"a":"#.repeat(10_000),
        "}".repeat(10_000)
    );
    let mut lines: Vec<(Vec<u8>, &str)> = vec![
        (good.clone().into_bytes(), ""),
        (b"{not json".to_vec(), "invalid JSON"),
        (b"{\"id\":1,\"op\":\"ray_cast\"".to_vec(), "invalid JSON"),
        (b"[1,2,3]".to_vec(), "expected a JSON object"),
        (b"42".to_vec(), "expected a JSON object"),
        (b"\"a string\"".to_vec(), "expected a JSON object"),
        (b"null".to_vec(), "expected a JSON object"),
        (br#"{"id":2,"op":"teleport"}"#.to_vec(), "unknown op"),
        (br#"{"id":3,"op":7}"#.to_vec(), "op: expected a string"),
        (br#"{"id":4,"op":"ray_cast","shape":"sphere"}"#.to_vec(), "shape"),
        (
            br#"{"id":5,"op":"ray_cast","shape":{"type":"sphere","center":[0,0,"x"],"radius":1},"ray":{"origin":[0,0,0],"dir":[1,0,0]}}"#.to_vec(),
            "center",
        ),
        (
            br#"{"id":6,"op":"closest_point","shape":{"type":"sphere","center":[0,0,0],"radius":true},"point":[0,0,0]}"#
                .to_vec(),
            "radius",
        ),
        (
            br#"{"id":7,"op":"closest_point","shape":{"type":"sphere","center":[0,0,0],"radius":1e999},"point":[0,0,0]}"#
                .to_vec(),
            "number out of range",
        ),
        (huge_string.into_bytes(), "unknown field"),
        (huge_array.into_bytes(), "point"),
        (deep.into_bytes(), "invalid JSON"),
        (deep_object.into_bytes(), "invalid JSON"),
        (b"{\"id\":8,\0\"op\":\"ray_cast\"}".to_vec(), "invalid JSON"),
        (b"{\"id\":\"\0\",\"op\":\"fly\"}".to_vec(), "control character"),
        (b"\xff\xfe{\"id\":9}".to_vec(), "not valid UTF-8"),
        (b"{\"id\":\"\xc3\x28\"}".to_vec(), "not valid UTF-8"),
        (b"\0\0\0".to_vec(), "invalid JSON"),
        (good.clone().into_bytes(), ""),
    ];
    // One line without its newline at the very end.
    lines.push((br#"{"id":"last","op":"fly"}"#.to_vec(), "unknown op"));
    let mut input = Vec::new();
    for (k, (line, _)) in lines.iter().enumerate() {
        input.extend_from_slice(line);
        if k + 1 < lines.len() {
            input.push(b'\n');
        }
    }
    assert!(input.len() > 1 << 20);
    let output = geom_bytes(&["query"], &input);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let replies = answers(&output);
    assert_eq!(replies.len(), lines.len());
    for (k, (answer, (_, expected))) in replies.iter().zip(&lines).enumerate() {
        let error = answer["error"].as_str();
        if expected.is_empty() {
            assert!(error.is_none(), "line {}: {answer}", k + 1);
            continue;
        }
        let error = error.unwrap_or_else(|| panic!("line {} should fail: {answer}", k + 1));
        assert_eq!(answer["line"], k + 1, "{answer}");
        assert!(
            error.contains(expected),
            "line {}: {error:?} should mention {expected:?}",
            k + 1
        );
    }
    assert_eq!(replies[0]["id"], "good");
    assert_eq!(replies[lines.len() - 1]["id"], "last");
    // Only the good lines: exit status 0.
    let output = geom_bytes(&["query"], format!("{good}\n\n{good}\n").as_bytes());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(answers(&output).len(), 2);
}
