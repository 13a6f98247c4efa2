//! A Macrobenchmark output directory (e.g. Gradle's
//! `build/outputs/connected_android_test_additional_output/<variant>/connected/<device>/`):
//! every `*-benchmarkData.json` in it (searched recursively), each benchmark with the traces
//! of its iterations, and the traces no benchmark claims.
//!
//! A benchmark's traces are its `profilerOutputs` of type `PerfettoTrace` (paths relative to
//! the JSON's directory); files written before androidx listed them are found by
//! Macrobenchmark's file naming, `<SimpleClass>_<method>_iterNNN_<date>.perfetto-trace`
//! beside the JSON (`MacrobenchmarkPhase.kt` / `PerfettoCaptureWrapper` in androidx name
//! them so).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::benchmark_data::{self, Context, TestResult};
use super::inputs;
use super::measure::Iteration;
use super::reproduce::{self, ReproRow};
use crate::analysis::trust::{self, Reason};

/// One benchmark of a benchmarkData.json and where its iterations' traces are.
#[derive(Debug, Clone)]
pub struct Benchmark {
    pub result: TestResult,
    /// Iteration i's trace (it may be missing: the caller reports it).
    pub traces: Vec<PathBuf>,
    pub json: PathBuf,
    /// The test APK's package (the JSON's file name prefix).
    pub test_package: Option<String>,
    pub context: Context,
}

#[derive(Debug, Default)]
pub struct Discovered {
    pub benchmarks: Vec<Benchmark>,
    /// Traces outside any benchmark, with the test package of a JSON beside them if any.
    pub loose: Vec<(PathBuf, Option<String>)>,
    pub errors: Vec<String>,
}

/// The traces of `b`'s iterations: listed, else by file name beside the JSON.
fn traces_of(b: &TestResult, dir: &Path, beside: &[PathBuf]) -> Vec<PathBuf> {
    if let Some(listed) = b.perfetto_traces() {
        return listed.iter().map(|f| dir.join(f)).collect();
    }
    let key = b.key();
    beside
        .iter()
        .filter(|p| p.parent() == Some(dir) && inputs::test_name(p) == key)
        .cloned()
        .collect()
}

/// Benchmarks and loose traces of `inputs` (directories, benchmarkData.json files, traces).
pub fn discover(inputs_: &[PathBuf]) -> anyhow::Result<Discovered> {
    let mut d = Discovered::default();
    let mut jsons = Vec::new();
    let mut traces = Vec::new();
    for i in inputs_ {
        if i.is_dir() {
            inputs::walk(i, benchmark_data::is_benchmark_data, &mut jsons)?;
            if let Ok(t) = inputs::expand(std::slice::from_ref(i)) {
                traces.extend(t);
            }
        } else if benchmark_data::is_benchmark_data(i) {
            jsons.push(i.clone());
            if let Some(dir) = i.parent() {
                traces.extend(inputs::expand(&[dir.to_path_buf()]).unwrap_or_default());
            }
        } else {
            traces.extend(inputs::expand(std::slice::from_ref(i))?);
        }
    }
    jsons.dedup();
    let mut claimed: BTreeSet<PathBuf> = BTreeSet::new();
    let mut packages: Vec<(PathBuf, String)> = Vec::new();
    for j in &jsons {
        let data = match benchmark_data::read(j) {
            Ok(x) => x,
            Err(e) => {
                d.errors.push(format!("{e:#}"));
                continue;
            }
        };
        let dir = j.parent().unwrap_or(Path::new(".")).to_path_buf();
        let test_package = benchmark_data::test_package_of(j);
        if let Some(p) = &test_package {
            packages.push((dir.clone(), p.clone()));
        }
        for b in data.benchmarks {
            let ts = traces_of(&b, &dir, &traces);
            claimed.extend(ts.iter().cloned());
            d.benchmarks.push(Benchmark {
                result: b,
                traces: ts,
                json: j.clone(),
                test_package: test_package.clone(),
                context: data.context.clone(),
            });
        }
    }
    let mut seen = BTreeSet::new();
    for t in traces {
        if claimed.contains(&t) || !seen.insert(t.clone()) {
            continue;
        }
        let pkg = packages
            .iter()
            .find(|(dir, _)| t.starts_with(dir))
            .map(|(_, p)| p.clone());
        d.loose.push((t, pkg));
    }
    if d.benchmarks.is_empty() && d.loose.is_empty() && d.errors.is_empty() {
        anyhow::bail!(
            "no benchmarkData.json or traces (*.perfetto-trace, *.pftrace) found in {:?}",
            inputs_
        );
    }
    Ok(d)
}

/// The names a rule's benchmark glob is matched against: the test's key and, for a
/// benchmark, `package.Class#method` and `Class#method`.
pub fn test_names(key: &str, b: Option<&Benchmark>) -> Vec<String> {
    let mut v = vec![key.to_string()];
    if let Some(b) = b {
        v.push(b.result.display());
        v.push(format!("{}#{}", b.result.simple_class(), b.result.name));
    }
    v
}

/// What a test's benchmarkData.json entry says, beside the gate's results.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkInfo {
    pub class_name: String,
    pub name: String,
    pub params: BTreeMap<String, String>,
    pub json: String,
    pub test_package: Option<String>,
    pub context: Context,
    pub thermal_throttle_sleep_seconds: Option<i64>,
    /// benchmarkData.json's numbers beside frameprobe's (see `reproduce`).
    pub reproduction: Vec<ReproRow>,
}

impl Benchmark {
    /// The trust reasons its own benchmarkData.json gives (emulator, clocks, thermal
    /// throttling).
    pub fn trust_reasons(&self, allow_unlocked_clocks: bool) -> Vec<Reason> {
        let build = &self.context.build;
        let device_strings = [
            ("build fingerprint", &build.fingerprint),
            ("model", &build.model),
            ("device", &build.device),
            ("brand", &build.brand),
        ]
        .into_iter()
        .filter_map(|(w, v)| v.clone().map(|v| (w, v)))
        .collect();
        trust::run_reasons(&trust::RunFacts {
            device_strings,
            cpu_locked: self.context.cpu_locked,
            thermal_throttle_sleep_seconds: self.result.thermal_throttle_sleep_seconds,
            allow_unlocked_clocks,
        })
    }

    /// Its JSON entry with the reproduction of its numbers from `its` (the measured
    /// iterations); the mismatches go to `warnings`.
    pub fn info(&self, its: &[Iteration], warnings: &mut Vec<String>) -> BenchmarkInfo {
        let slots: Vec<Option<&Iteration>> = (0..self.traces.len())
            .map(|i| {
                its.iter()
                    .find(|it| it.iteration == Some(i) && it.process_found)
            })
            .collect();
        let (reproduction, w) = reproduce::reproduce(&self.result.display(), &self.result, &slots);
        warnings.extend(w);
        BenchmarkInfo {
            class_name: self.result.class_name.clone(),
            name: self.result.name.clone(),
            params: self.result.params.clone(),
            json: self.json.display().to_string(),
            test_package: self.test_package.clone(),
            context: self.context.clone(),
            thermal_throttle_sleep_seconds: self.result.thermal_throttle_sleep_seconds,
            reproduction,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmarks_claim_their_traces_by_list_or_by_name() {
        let d = std::env::temp_dir().join(format!("fp-mbdir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("dev")).unwrap();
        for f in [
            "A_x_iter000_2024.perfetto-trace",
            "A_x_iter001_2024.perfetto-trace",
            "listed.perfetto-trace",
            "Other_y_iter000_2024.perfetto-trace",
        ] {
            std::fs::write(d.join("dev").join(f), b"x").unwrap();
        }
        std::fs::write(
            d.join("dev/com.a.bench-benchmarkData.json"),
            r#"{"benchmarks": [{"name": "x", "className": "p.A"},
                {"name": "z", "className": "p.B", "profilerOutputs": [
                  {"type": "PerfettoTrace", "label": "Trace Iteration 0", "filename": "listed.perfetto-trace"}]}]}"#,
        )
        .unwrap();
        let r = discover(std::slice::from_ref(&d)).unwrap();
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(r.benchmarks.len(), 2);
        assert_eq!(r.benchmarks[0].traces.len(), 2);
        assert_eq!(
            r.benchmarks[1].traces,
            vec![d.join("dev/listed.perfetto-trace")]
        );
        assert_eq!(r.loose.len(), 1);
        assert_eq!(r.loose[0].1.as_deref(), Some("com.a.bench"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
