//! `check`: limits on the pooled metrics of each test's iterations.

use serde::{Deserialize, Serialize};

use super::measure::Iteration;
use super::metrics::Metric;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// The value must not exceed the limit.
    Max,
    /// The value must be at least the limit.
    Min,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub metric: Metric,
    pub bound: Bound,
    pub limit: f64,
    /// Only the benchmarks this glob names (`Class#method`, with or without the class's
    /// package, or the trace files' `Class_method`); None: every test.
    pub benchmark: Option<String>,
}

impl Rule {
    /// Whether the rule applies to a test known by these names.
    pub fn applies_to(&self, names: &[String]) -> bool {
        self.benchmark
            .as_deref()
            .is_none_or(|g| names.iter().any(|n| crate::analysis::glob::glob(g, n)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
    /// The data does not allow the metric (e.g. overrun before API 31).
    CannotEvaluate,
}

#[derive(Debug, Clone, Serialize)]
pub struct RuleResult {
    pub metric: String,
    /// The benchmark glob the rule was given with, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    pub bound: Bound,
    pub limit: f64,
    pub unit: &'static str,
    /// Over every iteration's frames pooled.
    pub value: Option<f64>,
    pub per_iteration: Vec<Option<f64>>,
    /// What the value is counted over (FrameTimeline frames for rates, Macrobenchmark's
    /// frames for durations and counts), in words with the numbers.
    pub denominator: String,
    pub outcome: Outcome,
}

/// A rule in a config file: `metric = "frame_cpu_ms_p99"`, `max = 20.0` (or `min`),
/// optionally `benchmark = "*ScrollBenchmark#*"`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    pub metric: String,
    pub benchmark: Option<String>,
    pub max: Option<f64>,
    pub min: Option<f64>,
}

/// `--config gate.toml`: the same rules as the command-line flags.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    pub process: Option<String>,
    pub max_jank_rate: Option<f64>,
    pub max_p95_overrun_ms: Option<f64>,
    pub max_p99_cpu_ms: Option<f64>,
    pub max_frozen_frames: Option<f64>,
    pub min_frames: Option<f64>,
    #[serde(default)]
    pub rule: Vec<RuleConfig>,
}

impl GateConfig {
    pub fn rules(&self) -> anyhow::Result<Vec<Rule>> {
        let mut out = Vec::new();
        let mut add = |metric: Metric, bound: Bound, v: Option<f64>| {
            if let Some(limit) = v {
                out.push(Rule {
                    metric,
                    bound,
                    limit,
                    benchmark: None,
                });
            }
        };
        add(Metric::JankRate, Bound::Max, self.max_jank_rate);
        add(Metric::OverrunMs(95), Bound::Max, self.max_p95_overrun_ms);
        add(Metric::CpuMs(99), Bound::Max, self.max_p99_cpu_ms);
        add(Metric::FrozenFrames, Bound::Max, self.max_frozen_frames);
        add(Metric::FrameCount, Bound::Min, self.min_frames);
        for r in &self.rule {
            let m = Metric::parse(&r.metric).ok_or_else(|| Metric::unknown(&r.metric))?;
            let benchmark = r.benchmark.clone();
            match (r.max, r.min) {
                (Some(x), None) => out.push(Rule {
                    metric: m,
                    bound: Bound::Max,
                    limit: x,
                    benchmark,
                }),
                (None, Some(x)) => out.push(Rule {
                    metric: m,
                    bound: Bound::Min,
                    limit: x,
                    benchmark,
                }),
                _ => anyhow::bail!("rule for {} needs exactly one of max or min", r.metric),
            }
        }
        Ok(out)
    }
}

/// Parses `[BENCHMARK_GLOB:]metric<=limit` / `...>=limit` (the `--rule` flag).
pub fn parse_rule(s: &str) -> anyhow::Result<Rule> {
    // Metric names hold no `:`, so a `:` ends a benchmark glob.
    let (benchmark, s) = match s.split_once(':') {
        Some((g, rest)) => (Some(g.trim().to_string()), rest),
        None => (None, s),
    };
    let (m, bound, v) = if let Some((m, v)) = s.split_once("<=") {
        (m, Bound::Max, v)
    } else if let Some((m, v)) = s.split_once(">=") {
        (m, Bound::Min, v)
    } else {
        anyhow::bail!("a rule looks like METRIC<=LIMIT or METRIC>=LIMIT, got {s:?}");
    };
    let metric = Metric::parse(m.trim()).ok_or_else(|| Metric::unknown(m.trim()))?;
    let limit = v
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("limit {v:?} is not a number"))?;
    Ok(Rule {
        metric,
        bound,
        limit,
        benchmark,
    })
}

/// What `metric`'s value over `its` is counted over, with the numbers.
fn denominator(metric: Metric, its: &[&Iteration]) -> String {
    let n = its.len();
    let mb: usize = its.iter().map(|i| i.mb_frames.len()).sum();
    let timeline: usize = its.iter().map(|i| i.timeline_tags.len()).sum();
    match metric {
        Metric::Analyzed(a) => a.denominator(its),
        Metric::JankRate | Metric::TagRate(_) => {
            format!("% of {timeline} FrameTimeline app frames, {n} iterations")
        }
        Metric::FrameCount => format!("Macrobenchmark frames summed over {n} iterations"),
        Metric::FrozenFrames => format!("of {mb} Macrobenchmark frames, {n} iterations"),
        Metric::CpuMs(_) | Metric::OverrunMs(_) => {
            format!("{mb} Macrobenchmark frames pooled over {n} iterations")
        }
    }
}

pub fn evaluate(rule: &Rule, its: &[&Iteration]) -> RuleResult {
    let value = rule.metric.value(its);
    let outcome = match value {
        None => Outcome::CannotEvaluate,
        Some(v) => {
            let ok = match rule.bound {
                Bound::Max => v <= rule.limit,
                Bound::Min => v >= rule.limit,
            };
            if ok {
                Outcome::Pass
            } else {
                Outcome::Fail
            }
        }
    };
    RuleResult {
        metric: rule.metric.name(),
        benchmark: rule.benchmark.clone(),
        bound: rule.bound,
        limit: rule.limit,
        unit: rule.metric.unit(),
        value: value.map(|v| (v * 1e6).round() / 1e6),
        per_iteration: its
            .iter()
            .map(|i| rule.metric.value(&[i]).map(|v| (v * 1e6).round() / 1e6))
            .collect(),
        denominator: denominator(rule.metric, its),
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_syntax() {
        let r = parse_rule("frame_cpu_ms_p95<=12.5").unwrap();
        assert_eq!(
            (r.metric, r.bound, r.limit),
            (Metric::CpuMs(95), Bound::Max, 12.5)
        );
        let r = parse_rule("frame_count >= 40").unwrap();
        assert_eq!((r.metric, r.bound), (Metric::FrameCount, Bound::Min));
        assert!(parse_rule("frame_cpu_ms_p95 < 3").is_err());
        assert!(parse_rule("nonsense<=3").is_err());
        let r = parse_rule("*Scroll*#scroll:frameOverrunMs_P95<=4").unwrap();
        assert_eq!(r.metric, Metric::OverrunMs(95));
        assert!(r.applies_to(&["com.x.ScrollBenchmark#scroll".into()]));
        assert!(!r.applies_to(&["com.x.StartupBenchmark#start".into()]));
        assert!(parse_rule("frame_cpu_ms_p95<=1").unwrap().applies_to(&[]));
    }

    #[test]
    fn config_file_rules() {
        let c: GateConfig = toml::from_str(
            "process = \"com.x\"\nmax_jank_rate = 5\nmin_frames = 10\n[[rule]]\nmetric = \"jank_rate_pct[Self Jank]\"\nmax = 2.5\n",
        )
        .unwrap();
        let rules = c.rules().unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[2].metric, Metric::TagRate("Self Jank"));
        assert!(
            toml::from_str::<GateConfig>("max_jank = 1").is_err(),
            "typos are errors"
        );
    }

    #[test]
    fn pass_fail_and_unavailable() {
        let it = Iteration {
            mb_frames: vec![(10_000_000, None), (20_000_000, None)],
            process_found: true,
            ..Default::default()
        };
        let ok = evaluate(
            &Rule {
                metric: Metric::CpuMs(50),
                bound: Bound::Max,
                limit: 15.0,
                benchmark: None,
            },
            &[&it],
        );
        assert_eq!(ok.outcome, Outcome::Pass);
        assert_eq!(ok.value, Some(15.0));
        let bad = evaluate(
            &Rule {
                metric: Metric::CpuMs(50),
                bound: Bound::Max,
                limit: 14.9,
                benchmark: None,
            },
            &[&it],
        );
        assert_eq!(bad.outcome, Outcome::Fail);
        let na = evaluate(
            &Rule {
                metric: Metric::OverrunMs(95),
                bound: Bound::Max,
                limit: 1.0,
                benchmark: None,
            },
            &[&it],
        );
        assert_eq!(na.outcome, Outcome::CannotEvaluate);
    }
}
