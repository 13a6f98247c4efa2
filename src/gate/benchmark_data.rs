//! Macrobenchmark's `<test package>-benchmarkData.json`, as androidx writes it.
//!
//! Field names and shapes are those of androidx benchmark-common
//! `androidx/benchmark/json/BenchmarkData.kt` (`context.build.{brand, device, fingerprint,
//! id, model, type, version.{codename, sdk}}`, `cpuLocked`, `compilationMode`, ...;
//! `benchmarks[].{name, params, className, metrics, sampledMetrics, repeatIterations,
//! thermalThrottleSleepSeconds, profilerOutputs[].{type, label, filename}}`). Single-value
//! metrics (`frameCount`) are `{minimum, maximum, median, runs: [per iteration]}`; sampled
//! ones (`frameDurationCpuMs`, `frameOverrunMs`) are `{P50, P90, P95, P99, runs: [[per
//! frame] per iteration]}` (`SingleMetricResult` / `SampledMetricResult` there). Every field
//! is optional here: older androidx versions wrote fewer of them (no `profilerOutputs`, no
//! `compilationMode`), and a file missing one is still read.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BenchmarkData {
    pub context: Context,
    pub benchmarks: Vec<TestResult>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Context {
    pub build: Build,
    pub cpu_core_count: Option<u32>,
    pub cpu_locked: Option<bool>,
    pub cpu_max_freq_hz: Option<i64>,
    pub sustained_performance_mode_enabled: Option<bool>,
    pub compilation_mode: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Build {
    pub brand: Option<String>,
    pub device: Option<String>,
    pub fingerprint: Option<String>,
    pub model: Option<String>,
    #[serde(rename = "type")]
    pub build_type: Option<String>,
    pub version: Version,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Version {
    pub codename: Option<String>,
    pub sdk: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TestResult {
    pub name: String,
    pub params: BTreeMap<String, String>,
    pub class_name: String,
    pub metrics: BTreeMap<String, SingleMetric>,
    pub sampled_metrics: BTreeMap<String, SampledMetric>,
    pub repeat_iterations: Option<u32>,
    pub thermal_throttle_sleep_seconds: Option<i64>,
    pub profiler_outputs: Option<Vec<ProfilerOutput>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SingleMetric {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub median: Option<f64>,
    pub runs: Vec<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SampledMetric {
    #[serde(rename = "P50")]
    pub p50: Option<f64>,
    #[serde(rename = "P90")]
    pub p90: Option<f64>,
    #[serde(rename = "P95")]
    pub p95: Option<f64>,
    #[serde(rename = "P99")]
    pub p99: Option<f64>,
    pub runs: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ProfilerOutput {
    /// `PerfettoTrace`, `MethodTrace` or `StackSamplingTrace`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Macrobenchmark labels its iteration traces `Trace Iteration N`.
    pub label: String,
    /// Relative to the directory of the JSON file (`Profiler.ResultFile.outputRelativePath`).
    pub filename: String,
}

impl TestResult {
    /// The class name without its package: Macrobenchmark's trace files start with
    /// `<SimpleClass>_<method>` (`Description.toUniqueName()` in benchmark-junit4).
    pub fn simple_class(&self) -> &str {
        self.class_name
            .rsplit('.')
            .next()
            .unwrap_or(&self.class_name)
    }

    /// The key the gate groups iterations by, the same as a trace file's test name.
    pub fn key(&self) -> String {
        format!("{}_{}", self.simple_class(), self.name)
    }

    /// `Class#method`, as people name a test.
    pub fn display(&self) -> String {
        format!("{}#{}", self.class_name, self.name)
    }

    /// The Perfetto traces of its iterations, in iteration order (by the number in the
    /// label when it has one, else as listed).
    pub fn perfetto_traces(&self) -> Option<Vec<String>> {
        let outs = self.profiler_outputs.as_ref()?;
        let mut v: Vec<(usize, &ProfilerOutput)> = outs
            .iter()
            .filter(|o| o.kind == "PerfettoTrace")
            .enumerate()
            .map(|(i, o)| {
                let n = o
                    .label
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(i);
                (n, o)
            })
            .collect();
        v.sort_by_key(|(n, _)| *n);
        Some(v.into_iter().map(|(_, o)| o.filename.clone()).collect())
    }
}

/// `com.example.benchmark-benchmarkData.json` -> `com.example.benchmark` (the test APK's
/// package, `ResultWriter` in benchmark-common names the file after it).
pub fn test_package_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let p = name.strip_suffix("-benchmarkData.json")?;
    (!p.is_empty()).then(|| p.to_string())
}

pub fn is_benchmark_data(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with("benchmarkData.json"))
}

/// Reads and parses one file; the error names the file and, for bad JSON, line and column.
pub fn read(path: &Path) -> anyhow::Result<BenchmarkData> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a Macrobenchmark benchmarkData.json: {e}",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shaped as androidx's BenchmarkData.kt serialises it (see the module comment).
    const SAMPLE: &str = r#"{
      "context": {"build": {"brand": "google", "device": "oriole", "fingerprint": "google/oriole/oriole:14/X/1:user/release-keys",
                 "id": "X", "model": "Pixel 6", "type": "user", "version": {"codename": "REL", "sdk": 34}},
                 "cpuCoreCount": 8, "cpuLocked": false, "cpuMaxFreqHz": 2802000000, "memTotalBytes": 1,
                 "sustainedPerformanceModeEnabled": false, "artMainlineVersion": -1,
                 "osCodenameAbbreviated": "U", "compilationMode": "speed-profile", "payload": {}},
      "benchmarks": [{"name": "scroll", "params": {}, "className": "com.example.bench.ScrollBenchmark",
        "totalRunTimeNs": 1, "metrics": {"frameCount": {"minimum": 2, "maximum": 3, "median": 2, "runs": [2, 3]}},
        "sampledMetrics": {"frameDurationCpuMs": {"P50": 1.5, "P90": 2, "P95": 2, "P99": 2, "runs": [[1, 2], [1.5, 2, 1]]}},
        "warmupIterations": 0, "repeatIterations": 2, "thermalThrottleSleepSeconds": 0,
        "profilerOutputs": [{"type": "PerfettoTrace", "label": "Trace Iteration 1", "filename": "b.perfetto-trace"},
                            {"type": "MethodTrace", "label": "Method", "filename": "m.trace"},
                            {"type": "PerfettoTrace", "label": "Trace Iteration 0", "filename": "a.perfetto-trace"}]}]
    }"#;

    #[test]
    fn reads_androidx_shape() {
        let d: BenchmarkData = serde_json::from_str(SAMPLE).unwrap();
        assert_eq!(d.context.build.version.sdk, Some(34));
        assert_eq!(d.context.cpu_locked, Some(false));
        let b = &d.benchmarks[0];
        assert_eq!(b.key(), "ScrollBenchmark_scroll");
        assert_eq!(b.metrics["frameCount"].runs, vec![2.0, 3.0]);
        assert_eq!(b.sampled_metrics["frameDurationCpuMs"].runs[1].len(), 3);
        assert_eq!(
            b.perfetto_traces().unwrap(),
            vec!["a.perfetto-trace", "b.perfetto-trace"]
        );
    }

    #[test]
    fn older_files_without_optional_fields() {
        let d: BenchmarkData =
            serde_json::from_str(r#"{"benchmarks": [{"name": "x", "className": "A"}]}"#).unwrap();
        assert!(d.benchmarks[0].perfetto_traces().is_none());
        assert_eq!(
            test_package_of(Path::new("d/com.x.bench-benchmarkData.json")).as_deref(),
            Some("com.x.bench")
        );
    }
}
