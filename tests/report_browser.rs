//! The report page rendered by a real browser: headless Chromium loads the file, takes a
//! screenshot, and the PNG must show a page (not a blank one) with the jank colours of the
//! timeline. Skips, saying so, when Chromium is not installed.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use frameprobe_tools::synth::{generate, SynthConfig};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

/// Runs Chromium with a deadline; returns its stderr on failure.
fn screenshot(browser: &Path, page: &Path, png: &Path, profile: &Path) -> Result<(), String> {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", browser.display()))?;
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("chromium did not finish within 180 s".into());
            }
        }
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    if png.exists() {
        Ok(())
    } else {
        Err(format!("no screenshot written; chromium said:\n{err}"))
    }
}

/// RGB pixels of a PNG (any colour type the `png` crate expands to 8-bit RGB/RGBA/grey).
fn decode(png_path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let mut dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let px: Vec<[u8; 3]> = match info.color_type {
        png::ColorType::Rgba => bytes.chunks(4).map(|c| [c[0], c[1], c[2]]).collect(),
        png::ColorType::Rgb => bytes.chunks(3).map(|c| [c[0], c[1], c[2]]).collect(),
        png::ColorType::GrayscaleAlpha => bytes.chunks(2).map(|c| [c[0], c[0], c[0]]).collect(),
        png::ColorType::Grayscale => bytes.iter().map(|&g| [g, g, g]).collect(),
        png::ColorType::Indexed => unreachable!("EXPAND turns palettes into RGB"),
    };
    (info.width, info.height, px)
}

fn hex(c: &str) -> [u8; 3] {
    let v = u32::from_str_radix(c.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn near(a: [u8; 3], b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (a[i] as i32 - b[i] as i32).abs() <= tol)
}

#[test]
fn chromium_renders_the_report_with_its_jank_colours() {
    let Some(browser) = common::chromium() else {
        common::skip(
            "chromium_renders_the_report_with_its_jank_colours",
            "Chromium is not installed (apt-get install -y chromium; .ci/run installs it)",
        );
        return;
    };
    let dir =
        std::env::temp_dir().join(format!("frameprobe-report-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("scroll.perfetto-trace");
    std::fs::write(
        &trace,
        generate(&SynthConfig {
            seed: 21,
            frames: 240,
            jank_rate: 0.2,
            ..Default::default()
        })
        .bytes,
    )
    .unwrap();
    let page = dir.join("report.html");
    let out = common::run(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png_path = dir.join("shot.png");
    let profile = dir.join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    if let Err(e) = screenshot(&browser, &page, &png_path, &profile) {
        panic!("{e}");
    }
    let (w, h, px) = decode(&png_path);
    assert_eq!((w, h), (WIDTH, HEIGHT), "screenshot size");
    // The page background is white; a rendered page has plenty that is not.
    let bg = [255, 255, 255];
    assert!(
        near(px[(5 * w + 5) as usize], bg, 2),
        "background at the top left"
    );
    let not_bg = px.iter().filter(|p| !near(**p, bg, 6)).count();
    let frac = not_bg as f64 / px.len() as f64;
    println!(
        "screenshot {}: {:.1}% of pixels are not background",
        png_path.display(),
        frac * 100.0
    );
    assert!(
        frac > 0.08,
        "page looks blank: {:.2}% non-background",
        frac * 100.0
    );
    // The timeline's bars in their jank colours: Self Jank red, No Jank green, Buffer
    // Stuffing blue (the synthetic app's late frames stuff the next buffers). The legends'
    // boxes (11 x 11 px each) cannot reach these counts alone; the bars must be drawn.
    for (name, colour, min) in [
        ("Self Jank", "#e53935", 4000),
        ("No Jank", "#66bb6a", 8000),
        ("Buffer Stuffing", "#42a5f5", 1000),
    ] {
        let c = hex(colour);
        let n = px.iter().filter(|p| near(**p, c, 10)).count();
        println!("{name} ({colour}): {n} pixels");
        assert!(
            n >= min,
            "{name} colour {colour}: {n} pixels, expected at least {min}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
