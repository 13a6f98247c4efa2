//! Interactions of the two sides paired by (process name, source, label, ordinal): the nth
//! `RV Scroll` of an app in the baseline is the nth `RV Scroll` of that app in the
//! candidate. With several iterations per side, each iteration contributes its own window
//! of the interaction.

use std::collections::BTreeMap;

use serde::Serialize;

use super::sample::FrameSample;

/// What identifies an interaction across traces.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct WindowKey {
    pub process: String,
    /// Where the interaction came from (`cuj`, `section`, `scroll`, `input`, `startup`,
    /// `idle`).
    pub source: String,
    pub label: String,
    /// The nth interaction with this process, source and label (1-based, as detected).
    pub ordinal: u32,
}

impl WindowKey {
    /// `com.example.app scroll "RV Scroll" #2`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} {:?} #{}",
            self.process, self.source, self.label, self.ordinal
        )
    }
}

/// One interaction in one trace, with its frames in time order.
#[derive(Debug, Clone)]
pub struct Window {
    pub key: WindowKey,
    pub ts: i64,
    pub dur: i64,
    pub frames: Vec<FrameSample>,
}

/// An interaction found on both sides: its window in each iteration that has it.
pub struct Matched<'a> {
    pub key: WindowKey,
    pub base: Vec<&'a Window>,
    pub cand: Vec<&'a Window>,
}

pub struct Matching<'a> {
    /// In the order of the baseline's first iteration (process, then start time).
    pub matched: Vec<Matched<'a>>,
    pub only_base: Vec<WindowKey>,
    pub only_cand: Vec<WindowKey>,
}

type Sides<'a> = (Vec<&'a Window>, Vec<&'a Window>);

/// Pairs the windows of every baseline iteration with those of every candidate iteration.
pub fn match_windows<'a>(base: &'a [Vec<Window>], cand: &'a [Vec<Window>]) -> Matching<'a> {
    let mut by_key: BTreeMap<&'a WindowKey, Sides<'a>> = BTreeMap::new();
    for w in base.iter().flatten() {
        by_key.entry(&w.key).or_default().0.push(w);
    }
    for w in cand.iter().flatten() {
        by_key.entry(&w.key).or_default().1.push(w);
    }
    let mut out = Matching {
        matched: Vec::new(),
        only_base: Vec::new(),
        only_cand: Vec::new(),
    };
    for (key, (b, c)) in by_key {
        match (b.is_empty(), c.is_empty()) {
            (false, false) => out.matched.push(Matched {
                key: key.clone(),
                base: b,
                cand: c,
            }),
            (false, true) => out.only_base.push(key.clone()),
            _ => out.only_cand.push(key.clone()),
        }
    }
    out.matched.sort_by(|x, y| {
        (&x.key.process, x.base[0].ts, &x.key).cmp(&(&y.key.process, y.base[0].ts, &y.key))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(label: &str, ordinal: u32, ts: i64) -> Window {
        Window {
            key: WindowKey {
                process: "app".into(),
                source: "scroll".into(),
                label: label.into(),
                ordinal,
            },
            ts,
            dur: 10,
            frames: Vec::new(),
        }
    }

    #[test]
    fn pairs_by_label_and_ordinal_in_baseline_time_order() {
        // Candidate windows at other times and in another order still pair by key; a third
        // scroll only the candidate has is reported, not paired.
        let base = vec![vec![
            w("RV Scroll", 0, 100),
            w("RV Scroll", 1, 500),
            w("fling", 0, 300),
        ]];
        let cand = vec![
            vec![
                w("fling", 0, 50),
                w("RV Scroll", 1, 900),
                w("RV Scroll", 0, 10),
            ],
            vec![w("RV Scroll", 0, 20), w("RV Scroll", 2, 40)],
        ];
        let m = match_windows(&base, &cand);
        let order: Vec<(String, u32, usize)> = m
            .matched
            .iter()
            .map(|x| (x.key.label.clone(), x.key.ordinal, x.cand.len()))
            .collect();
        assert_eq!(
            order,
            [
                ("RV Scroll".to_string(), 0, 2),
                ("fling".to_string(), 0, 1),
                ("RV Scroll".to_string(), 1, 1)
            ]
        );
        assert_eq!(m.matched[0].cand[0].ts, 10);
        assert_eq!(m.only_cand.len(), 1);
        assert_eq!(m.only_cand[0].ordinal, 2);
        assert!(m.only_base.is_empty());
    }
}
