//! `doctor` as text: the trace, its device, the frame data sources (with what a missing one
//! costs and the config that adds it), other data, the processes with frames, the trust grade.

use std::fmt::Write;

use crate::analysis::doctor::DoctorReport;
use crate::report::verdicts;

fn indent(text: &str, by: &str) -> String {
    text.lines()
        .map(|l| format!("{by}{l}\n"))
        .collect::<String>()
}

/// Errors sharing a prefix ("Ftrace event unknown: ...", dozens on most devices) on one line
/// with their count and the first few; JSON keeps every one.
fn setup_error_lines(errors: &[String]) -> Vec<String> {
    const SHOWN: usize = 4;
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in errors {
        let (prefix, item) = e.split_once(": ").unwrap_or((e.as_str(), ""));
        match groups.iter_mut().find(|g| g.0 == prefix) {
            Some(g) => g.1.push(item),
            None => groups.push((prefix, vec![item])),
        }
    }
    groups
        .into_iter()
        .flat_map(|(prefix, items)| {
            if items.len() <= SHOWN {
                items
                    .iter()
                    .map(|i| {
                        if i.is_empty() {
                            prefix.to_string()
                        } else {
                            format!("{prefix}: {i}")
                        }
                    })
                    .collect::<Vec<_>>()
            } else {
                vec![format!(
                    "{prefix} ({}): {}, … (all of them: --format json)",
                    items.len(),
                    items[..SHOWN].join(", ")
                )]
            }
        })
        .collect()
}

pub fn render(r: &DoctorReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "trace: {} ({} packets{})",
        r.trace,
        r.packets,
        r.duration_ms
            .map_or(String::new(), |d| format!(", {:.3} s of events", d / 1e3))
    );
    let d = &r.device;
    let _ = writeln!(
        o,
        "device: {} — API {}{}; kernel {} ({}){}{}",
        d.build_fingerprint.as_deref().unwrap_or("unknown build"),
        d.api_level,
        if d.api_level_known { "" } else { " (assumed)" },
        d.kernel_release.as_deref().unwrap_or("unknown"),
        d.machine.as_deref().unwrap_or("?"),
        d.soc_model
            .as_ref()
            .map_or(String::new(), |s| format!("; SoC {s}")),
        d.tracing_service_version
            .as_ref()
            .map_or(String::new(), |s| format!("; recorded by {s}")),
    );
    let _ = writeln!(o, "metric version: {}", r.metric_version);
    let _ = writeln!(o, "trust: {}", verdicts::trust_line(&r.trust));
    let _ = writeln!(
        o,
        "refresh rates: {}",
        verdicts::refresh_line(&r.refresh_rates, Some(r.vsync_period_source))
    );
    let _ = writeln!(o, "\nframe data sources:");
    for s in &r.sources {
        let asked = match s.requested {
            Some(true) if !s.present => "; the config asked for it, but nothing arrived",
            Some(false) if !s.present => "; the config did not ask for it",
            _ => "",
        };
        let _ = writeln!(
            o,
            "  [{}] {} — {}{}",
            if s.present { "present" } else { "MISSING" },
            s.name,
            s.evidence,
            asked
        );
        if let Some(c) = s.cost {
            let _ = writeln!(o, "      costs: {c}");
        }
        if let Some(c) = s.config {
            let _ = writeln!(o, "      add to the trace config:");
            o.push_str(&indent(c, "        "));
        }
    }
    if let Some(c) = &r.config_to_add {
        let _ = writeln!(o, "\nall missing sources in one trace config fragment:");
        o.push_str(&indent(c, "  "));
    }
    if !r.setup_errors.is_empty() {
        let _ = writeln!(o, "\nrecording setup errors:");
        for line in setup_error_lines(&r.setup_errors) {
            let _ = writeln!(o, "  {line}");
        }
    }
    if !r.other_data.is_empty() {
        let parts: Vec<String> = r
            .other_data
            .iter()
            .map(|x| format!("{} {}", x.packet, x.packets))
            .collect();
        let _ = writeln!(o, "\nother data: {}", parts.join(", "));
    }
    let _ = writeln!(o, "\nprocesses with frames:");
    if r.processes.is_empty() {
        let _ = writeln!(o, "  none");
    }
    for p in &r.processes {
        let _ = writeln!(
            o,
            "  {} (pid {}): {} frame{}{}",
            p.name.as_deref().unwrap_or("<unnamed>"),
            p.pid,
            p.frames,
            if p.frames == 1 { "" } else { "s" },
            if p.name_source == Some("layer") {
                " [name from layer]"
            } else {
                ""
            }
        );
        for l in &p.layers {
            let _ = writeln!(
                o,
                "      {}: {}",
                l.layer.as_deref().unwrap_or("(no FrameTimeline layer)"),
                l.frames
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_errors_of_one_kind_are_one_line() {
        let mut errors: Vec<String> = (0..6)
            .map(|i| format!("Ftrace event unknown: mdss/ev{i}"))
            .collect();
        errors.push("Atrace failures: view".into());
        errors.push("no colon here".into());
        assert_eq!(
            setup_error_lines(&errors),
            [
                "Ftrace event unknown (6): mdss/ev0, mdss/ev1, mdss/ev2, mdss/ev3, … (all of them: --format json)",
                "Atrace failures: view",
                "no colon here",
            ]
        );
    }
}
