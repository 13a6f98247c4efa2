//! Root causes of janky frames: a cause chain per frame over its window, whose links tile
//! the window (no overlapping sums), each with its evidence, and the top causes per process
//! and layer.
//!
//! The window runs from the frame's expected start (FrameTimeline), else its doFrame start,
//! to the end of the actual frame (without FrameTimeline: the end of its last DrawFrame).
//! It is cut into the phases of the frame's critical path: the UI thread before doFrame,
//! doFrame, the RenderThread after doFrame, and what follows the RenderThread (GPU,
//! SurfaceFlinger, present). Each thread phase is attributed instant by instant
//! ([`timeline::attribute`]); the families add their evidence: [`binder`] (the server side),
//! [`locks`] (the owner), [`gc`] (the GC that ran), [`cpu`] (who had the CPU), [`io`]
//! (blocked functions), [`render_thread`] (GPU and composition).

pub mod binder;
pub mod blocking_calls;
pub mod categories;
pub mod context;
pub mod cpu;
pub mod cuj;
pub mod early;
pub mod frame_slices;
pub mod gc;
pub mod io;
pub mod locks;
pub mod model;
pub mod render_thread;
pub mod timeline;
pub mod wakeups;

use std::cell::OnceCell;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::frame_model::Frame;
use super::index::Span;
use super::units::ms;
use categories::Category;
use context::Ctx;
use frame_slices::FrameSlices;
pub use model::*;
use timeline::{Idle, Piece};

use crate::store::Utid;

const PHASE_BEFORE: &str = "before_do_frame";
const PHASE_UI: &str = "ui_thread";
const PHASE_RT: &str = "render_thread";
const PHASE_GPU: &str = "gpu_composition";
const PHASE_NONE: &str = "no_frame_slices";

/// Most slice ids kept as context of one derived link.
const MAX_CONTEXT: usize = 8;

/// A thread interval of the critical path.
struct Lane {
    phase: &'static str,
    utid: Option<Utid>,
    /// The frame's RenderThread, on UI thread lanes.
    render_thread: Option<Utid>,
    start: i64,
    end: i64,
    idle: Idle,
}

fn window(frame: &Frame, fs: &FrameSlices) -> Option<Window> {
    let t = frame.timeline.as_ref();
    let (ts, from) = match (t.and_then(|t| t.expected), fs.ui) {
        (Some(e), _) => (e.ts, "expected_start"),
        (None, Some(u)) => (u.ts, "do_frame_start"),
        (None, None) => (frame.ts, "frame_start"),
    };
    let done = |s: Option<Span>| s.filter(|s| s.complete()).map(|s| s.end());
    // An actual frame that never ended (dur -1) ends, for its chain, with its slices.
    let (end_ts, to) = if frame.dur >= 0 {
        let to = if t.is_some() {
            "actual_end"
        } else {
            "frame_end"
        };
        (frame.ts + frame.dur, to)
    } else if let Some(e) = done(fs.rt) {
        (e, "draw_frame_end")
    } else {
        (done(fs.ui)?, "do_frame_end")
    };
    (end_ts > ts).then(|| Window {
        ts,
        end_ts,
        dur_ns: end_ts - ts,
        ms: ms(end_ts - ts),
        from,
        to,
    })
}

/// The critical-path lanes tiling [w.ts, w.end_ts).
fn lanes(ctx: &Ctx<'_>, fs: &FrameSlices, w: &Window) -> Vec<Lane> {
    let clip = |x: i64| x.clamp(w.ts, w.end_ts);
    let ui = fs.ui.filter(|u| u.complete());
    let rt = fs.rt.filter(|r| r.complete());
    let ui_utid = ui.and_then(|u| ctx.utid_of_slice(u.id));
    let rt_utid = rt.and_then(|r| ctx.utid_of_slice(r.id));
    let mut out = Vec::new();
    let mut at = w.ts;
    let mut push = |phase, utid, end: i64, idle, at: &mut i64| {
        let end = clip(end);
        if end > *at {
            out.push(Lane {
                phase,
                utid,
                render_thread: if phase == PHASE_RT { None } else { rt_utid },
                start: *at,
                end,
                idle,
            });
            *at = end;
        }
    };
    if let Some(u) = ui {
        push(PHASE_BEFORE, ui_utid, u.ts, Idle::Vsync, &mut at);
        push(PHASE_UI, ui_utid, u.end(), Idle::Sleeping, &mut at);
    }
    if let Some(r) = rt {
        // Without a doFrame the RenderThread's wait for its DrawFrame is the frame's start.
        push(PHASE_RT, rt_utid, r.end(), Idle::Sleeping, &mut at);
    }
    let last = if ui.is_some() || rt.is_some() {
        PHASE_GPU
    } else {
        PHASE_NONE
    };
    push(last, None, w.end_ts, Idle::Sleeping, &mut at);
    out
}

/// The cause chain of `frame`; None when the frame has no complete window.
pub fn chain(ctx: &Ctx<'_>, frame: &Frame) -> Option<CauseChain> {
    attributed(ctx, frame, Depth::Whole).map(|a| a.into_chain(ctx, frame))
}

/// How much of a chain is built. Every janky frame needs its totals (the aggregates read
/// them); only a shown frame needs its links' evidence, whose largest part, the
/// RenderThread's attribution over the whole window, was a fifth of x60 `analyze`'s chain
/// work (docs/speed.md, "CPU, thirtieth round"). The links, their durations, start times
/// and order are the same at both depths, so the totals are too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Depth {
    /// Each link's category, phase, start and duration: what [`Attributed::totals`] reads.
    Totals,
    /// And each link's evidence, rule and context, for [`Attributed::into_chain`].
    Whole,
}

impl Depth {
    /// Whole for a frame the report shows, totals for the others.
    pub(super) fn shown(shown: bool) -> Depth {
        if shown {
            Depth::Whole
        } else {
            Depth::Totals
        }
    }
}

/// A frame's window attributed to causes: what both a whole chain and its totals need.
struct Attributed {
    fs: frame_slices::FrameSlices,
    w: Window,
    phases: Vec<Phase>,
    links: Vec<Link>,
    by_category: Vec<CategoryTotal>,
}

fn attributed(ctx: &Ctx<'_>, frame: &Frame, depth: Depth) -> Option<Attributed> {
    let fs = frame_slices::resolve(ctx, frame);
    let w = window(frame, &fs)?;
    let lanes = lanes(ctx, &fs, &w);
    let mut phases = Vec::new();
    // The RenderThread's attribution over the whole window, for what it did while the UI
    // thread waited for it.
    let rt_pieces: OnceCell<Vec<Piece>> = OnceCell::new();
    let rt_over_window = |rt: Utid| {
        rt_pieces
            .get_or_init(|| timeline::attribute(ctx, rt, w.ts, w.end_ts, Idle::Sleeping, None))
            .as_slice()
    };
    let mut after_rt: Vec<Link> = Vec::new();
    let mut lane_pieces: Vec<Vec<Piece>> = Vec::with_capacity(lanes.len());
    let mut threads: Vec<Option<ThreadRef>> = Vec::with_capacity(lanes.len());
    for lane in &lanes {
        let thread = lane.utid.map(|u| ctx.thread_ref(u));
        phases.push(Phase {
            phase: lane.phase,
            thread: thread.clone(),
            ts: lane.start,
            dur_ns: lane.end - lane.start,
            ms: ms(lane.end - lane.start),
        });
        threads.push(thread);
        lane_pieces.push(match lane.utid {
            Some(utid) => timeline::attribute(
                ctx,
                utid,
                lane.start,
                lane.end,
                lane.idle,
                lane.render_thread,
            ),
            None => {
                after_rt.push(render_thread::after_render_thread(
                    frame,
                    fs.matched_by.is_some(),
                    lane.start,
                    lane.end,
                ));
                Vec::new()
            }
        });
    }
    let groups: Vec<Group<'_>> = lane_pieces
        .iter()
        .enumerate()
        .flat_map(|(i, ps)| groups_of(i, ps))
        .collect();
    // The longest groups become links with their evidence; past the cap the rest are merged.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    let keep = MAX_LINKS.saturating_sub(after_rt.len()).min(groups.len());
    if keep < groups.len() {
        order.sort_by_key(|&i| {
            (
                std::cmp::Reverse(groups[i].dur_ns),
                groups[i].pieces[0].start,
            )
        });
    }
    let (kept, rest) = order.split_at(keep);
    let mut links: Vec<Link> = kept
        .iter()
        .map(|&i| {
            let g = &groups[i];
            match depth {
                Depth::Whole => link_of(ctx, &lanes[g.lane], &threads[g.lane], g, &rt_over_window),
                Depth::Totals => {
                    bare_link(g.category, lanes[g.lane].phase, g.pieces[0].start, g.dur_ns)
                }
            }
        })
        .collect();
    links.extend(after_rt);
    links.extend(merge_rest(&lanes, &threads, &groups, rest, depth));
    links.sort_by_key(|l| l.ts);
    let by_category = totals(&links, w.dur_ns);
    Some(Attributed {
        fs,
        w,
        phases,
        links,
        by_category,
    })
}

impl Attributed {
    fn totals(&self) -> ChainTotals {
        ChainTotals {
            window_ns: self.w.dur_ns,
            by_category: self.by_category.clone(),
        }
    }

    /// The whole chain: the attribution with the blocking calls and the sentence.
    fn into_chain(self, ctx: &Ctx<'_>, frame: &Frame) -> CauseChain {
        let Attributed {
            fs,
            w,
            phases,
            links,
            by_category,
        } = self;
        let threads: Vec<Utid> = [fs.ui, fs.rt]
            .into_iter()
            .flatten()
            .filter_map(|s| ctx.utid_of_slice(s.id))
            .collect();
        // Inside a CUJ, over Perfetto's extended frame boundary, to agree with its
        // blocking_calls_aggregation; elsewhere over the chain's window.
        let cuj = fs
            .ui
            .and_then(|u| ctx.utid_of_slice(u.id))
            .zip(frame.frame_id)
            .and_then(|k| ctx.cuj_frames.get(&k));
        let (blocking_calls, blocking_calls_window) = match cuj {
            Some(c) => {
                let threads: Vec<Utid> = std::iter::once(c.ui_thread)
                    .chain(c.render_thread)
                    .collect();
                (
                    blocking_calls::totals(ctx, &threads, c.ts, c.ts_end),
                    BlockingCallsWindow {
                        ts: c.ts,
                        end_ts: c.ts_end,
                        from: "perfetto_cuj_frame",
                        cuj: Some(c.cuj_name.clone()),
                    },
                )
            }
            None => (
                blocking_calls::totals(ctx, &threads, w.ts, w.end_ts),
                BlockingCallsWindow {
                    ts: w.ts,
                    end_ts: w.end_ts,
                    from: "cause_window",
                    cuj: None,
                },
            ),
        };
        let primary = by_category.first().cloned();
        let sentence = sentence(&w, &by_category, &links);
        CauseChain {
            window: w,
            frame_slices: FrameSliceIds {
                do_frame: fs.ui.map(|s| s.id),
                draw_frame: fs.rt.map(|s| s.id),
                matched_by: fs.matched_by,
            },
            phases,
            primary,
            by_category,
            links,
            sentence,
            blocking_calls,
            blocking_calls_window,
        }
    }
}

/// What the process and interaction aggregates read of a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainTotals {
    pub window_ns: i64,
    /// The chain's `by_category`; its first is the chain's `primary`.
    pub by_category: Vec<CategoryTotal>,
}

impl CauseChain {
    pub fn totals(&self) -> ChainTotals {
        ChainTotals {
            window_ns: self.window.dur_ns,
            by_category: self.by_category.clone(),
        }
    }
}

/// A process's chains: the totals of every janky frame's, and whole chains only for the
/// frames a report shows. 720 whole chains held at once were 8 MiB at `analyze`'s peak on
/// the 200 MB bench trace; their totals are a few hundred bytes each.
pub struct Chains {
    pub totals: Vec<Option<ChainTotals>>,
    pub whole: Vec<Option<CauseChain>>,
}

/// Fewest chains worth a second thread.
const CHAINS_FOR_TWO_THREADS: usize = 8;

/// The cause chains of the frames `janky` marks, in frame order: totals for each, the whole
/// chain where `whole` also marks the frame (None for the others). Chains are independent
/// of one another, and after the frame database is built the second core is free: with
/// enough of them, two threads take the next frame in turn (chains vary a lot in cost, so
/// fixed halves would leave one thread idle).
///
/// Totals in `early` are taken as they are, unless the whole chain is wanted.
pub fn chains_of(
    ctx: &Ctx<'_>,
    frames: &[Frame],
    janky: &[bool],
    whole: &[bool],
    early: &early::EarlyTotals,
) -> Chains {
    let mut out = Chains {
        totals: vec![None; frames.len()],
        whole: (0..frames.len()).map(|_| None).collect(),
    };
    let mut wanted: Vec<(usize, Option<Option<Attributed>>)> = Vec::new();
    for i in (0..frames.len()).filter(|&i| janky[i]) {
        match early.get(&frames[i]) {
            Some(totals) if !whole[i] => out.totals[i] = totals.clone(),
            _ => wanted.push((i, early.take_whole(&frames[i]))),
        }
    }
    let built = super::work_list::map_in_order(wanted, CHAINS_FOR_TWO_THREADS, |(i, ahead)| {
        let a = ahead.unwrap_or_else(|| attributed(ctx, &frames[i], Depth::shown(whole[i])));
        let totals = a.as_ref().map(Attributed::totals);
        let chain = a
            .filter(|_| whole[i])
            .map(|a| a.into_chain(ctx, &frames[i]));
        (i, totals, chain)
    });
    for (i, totals, chain) in built {
        out.totals[i] = totals;
        out.whole[i] = chain;
    }
    out
}

/// Most links a chain lists one by one; the shorter rest are merged per category and phase.
pub const MAX_LINKS: usize = 48;

/// The pieces of one category (and, for slice categories, one slice) on one lane: one link.
struct Group<'p> {
    lane: usize,
    category: Category,
    slice: Option<u32>,
    pieces: Vec<&'p Piece>,
    dur_ns: i64,
}

impl Group<'_> {
    fn rule(&self) -> String {
        let rule = self.pieces[0].rule;
        match self.slice {
            Some(_) => format!("slice name GLOB '{rule}' ({})", rule_source(rule)),
            None => rule.to_string(),
        }
    }
}

/// A lane's pieces grouped per category and slice, in first-seen order; a lane can hold
/// thousands of categorised slices (class initialisation), so groups are found by key.
fn groups_of(lane: usize, pieces: &[Piece]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut index: FxHashMap<(Category, Option<u32>), usize> = FxHashMap::default();
    for p in pieces {
        let k = *index.entry((p.category, p.slice)).or_insert_with(|| {
            groups.push(Group {
                lane,
                category: p.category,
                slice: p.slice,
                pieces: Vec::new(),
                dur_ns: 0,
            });
            groups.len() - 1
        });
        groups[k].pieces.push(p);
        groups[k].dur_ns += p.end - p.start;
    }
    groups
}

/// Merges the groups past the cap (longest first) per category and phase, so a frame with
/// thousands of short slices stays readable; the sum is unchanged.
fn merge_rest(
    lanes: &[Lane],
    threads: &[Option<ThreadRef>],
    groups: &[Group<'_>],
    rest: &[usize],
    depth: Depth,
) -> Vec<Link> {
    let longest_rest = rest.first().map_or(0, |&i| groups[i].dur_ns);
    let mut merged: Vec<Link> = Vec::new();
    let mut index: FxHashMap<(Category, &'static str), usize> = FxHashMap::default();
    for &i in rest {
        let g = &groups[i];
        let phase = lanes[g.lane].phase;
        let ts = g.pieces[0].start;
        let k = *index.entry((g.category, phase)).or_insert_with(|| {
            let mut link = bare_link(g.category, phase, ts, 0);
            if depth == Depth::Whole {
                link.thread = threads[g.lane].clone();
                link.rule = format!(
                    "shorter links of this category merged (each at most {:.2} ms); first rule: {}",
                    ms(longest_rest),
                    g.rule()
                );
            }
            merged.push(link);
            merged.len() - 1
        });
        let m = &mut merged[k];
        m.dur_ns += g.dur_ns;
        m.ts = m.ts.min(ts);
        m.merged += 1;
        if let Some(id) = g.slice.filter(|_| depth == Depth::Whole) {
            if m.context_slice_ids.len() < MAX_CONTEXT {
                m.context_slice_ids.push(id);
            }
        }
    }
    for m in &mut merged {
        m.ms = ms(m.dur_ns);
    }
    merged
}

/// A link with only what its totals read: category, phase, start and duration.
fn bare_link(category: Category, phase: &'static str, ts: i64, dur_ns: i64) -> Link {
    Link {
        category: category.id(),
        label: category.label(),
        family: category.family(),
        phase,
        ts,
        dur_ns,
        ms: ms(dur_ns),
        ..Default::default()
    }
}

/// A group's link, with the evidence of its cause family.
fn link_of<'p>(
    ctx: &Ctx<'_>,
    lane: &Lane,
    thread: &Option<ThreadRef>,
    g: &Group<'_>,
    rt_over_window: &dyn Fn(Utid) -> &'p [Piece],
) -> Link {
    let (category, slice, ps) = (g.category, g.slice, &g.pieces);
    let mut context: Vec<u32> = Vec::new();
    if slice.is_none() {
        for c in ps.iter().filter_map(|p| p.context) {
            if !context.contains(&c) && context.len() < MAX_CONTEXT {
                context.push(c);
            }
        }
    }
    let s = slice.map(|id| &ctx.store.slices[id as usize]);
    let mut link = Link {
        thread: thread.clone(),
        slice_id: slice,
        slice_name: slice.map(|id| ctx.slice_name(id).to_string()),
        slice_ts: s.map(|s| s.ts),
        slice_dur_ns: s.map(|s| s.dur),
        context_slice_ids: context,
        rule: g.rule(),
        ..bare_link(category, lane.phase, ps[0].start, g.dur_ns)
    };
    // A slice's link has the slice's own span as evidence.
    let (stretches, longest) = stretches_of(ps);
    if slice.is_none() && stretches > 1 {
        link.stretches = stretches;
        link.longest_stretch = Some(longest);
    }
    // Lanes with a thread are the only ones grouped.
    let Some(utid) = lane.utid else {
        return link;
    };
    match category {
        Category::Binder => link.binder = slice.map(|s| Box::new(binder::detail(ctx, s))),
        Category::MonitorContention | Category::ArtLockContention => {
            link.lock = slice.map(|s| Box::new(locks::detail(ctx, utid, s)))
        }
        Category::GcWait => link.gc = slice.map(|s| Box::new(gc::detail(ctx, utid, s))),
        Category::CpuContention => link.cpu = Some(Box::new(cpu::detail(ctx, utid, ps))),
        Category::Io => link.io = Some(io::detail(ctx, ps)),
        Category::SleepingSelf => link.woken_by = Some(wakeups::woken_by(ctx, utid, ps)),
        Category::WaitForRenderThread => {
            link.render_thread_activity = lane
                .render_thread
                .map(|rt| render_thread::activity(rt_over_window(rt), ps));
        }
        _ => {}
    }
    link
}

/// The contiguous stretches of time-ordered pieces: how many, and the longest (the first of
/// equals).
fn stretches_of(ps: &[&Piece]) -> (usize, Stretch) {
    let mut n = 0;
    let mut longest = Stretch { ts: 0, dur_ns: 0 };
    let mut cur: Option<Stretch> = None;
    let mut close = |s: Stretch, n: &mut usize| {
        *n += 1;
        if s.dur_ns > longest.dur_ns {
            longest = s;
        }
    };
    for p in ps {
        cur = match cur {
            Some(c) if c.ts + c.dur_ns == p.start => Some(Stretch {
                dur_ns: p.end - c.ts,
                ..c
            }),
            Some(c) => {
                close(c, &mut n);
                Some(Stretch {
                    ts: p.start,
                    dur_ns: p.end - p.start,
                })
            }
            None => Some(Stretch {
                ts: p.start,
                dur_ns: p.end - p.start,
            }),
        };
    }
    if let Some(c) = cur {
        close(c, &mut n);
    }
    (n, longest)
}

fn rule_source(glob: &str) -> &'static str {
    categories::RULES
        .iter()
        .find(|r| r.glob == glob)
        .map_or(categories::PERFETTO, |r| r.source)
}

/// Time per category, largest first (ties: first in time).
fn totals(links: &[Link], window_ns: i64) -> Vec<CategoryTotal> {
    let mut order: Vec<&'static str> = Vec::new();
    let mut sum: BTreeMap<&'static str, (i64, &Link)> = BTreeMap::new();
    for l in links {
        let e = sum.entry(l.category).or_insert_with(|| {
            order.push(l.category);
            (0, l)
        });
        e.0 += l.dur_ns;
    }
    let mut out: Vec<CategoryTotal> = order
        .iter()
        .map(|c| {
            let (ns, l) = sum[c];
            CategoryTotal {
                category: l.category,
                label: l.label,
                family: l.family,
                ms: ms(ns),
                dur_ns: ns,
                share: share(ns, window_ns),
            }
        })
        .collect();
    out.sort_by_key(|t| std::cmp::Reverse(t.dur_ns));
    out
}

fn share(ns: i64, of: i64) -> f64 {
    if of <= 0 {
        0.0
    } else {
        (ns as f64 / of as f64 * 1000.0).round() / 1000.0
    }
}

/// "UI thread blocked 18.2 ms in binder call to system_server (getPackageInfo), server
/// Runnable 6.1 ms" for the primary cause, then the next one.
fn sentence(w: &Window, totals: &[CategoryTotal], links: &[Link]) -> String {
    let mut parts = Vec::new();
    for t in totals.iter().take(2) {
        // The category's longest link speaks for it.
        let Some(l) = links
            .iter()
            .filter(|l| l.category == t.category)
            .max_by_key(|l| l.dur_ns)
        else {
            continue;
        };
        parts.push(describe(l, t));
    }
    format!(
        "{:.1} ms frame window ({} to {}): {}",
        w.ms,
        w.from,
        w.to,
        parts.join("; then ")
    )
}

fn thread_label(l: &Link) -> String {
    match (&l.thread, l.phase) {
        (_, PHASE_GPU) => "after the RenderThread".to_string(),
        (_, PHASE_NONE) => "the app".to_string(),
        (Some(t), _) if t.name.as_deref() == Some("RenderThread") => "RenderThread".to_string(),
        (Some(t), PHASE_BEFORE | PHASE_UI) if t.tid == t.pid.unwrap_or(-1) => {
            "UI thread".to_string()
        }
        (Some(t), _) => format!("thread {} ({})", t.name.as_deref().unwrap_or("?"), t.tid),
        (None, _) => "no thread".to_string(),
    }
}

fn describe(l: &Link, t: &CategoryTotal) -> String {
    let who = thread_label(l);
    let total = if (t.ms - l.ms).abs() > 0.05 {
        format!(" ({:.1} ms in all)", t.ms)
    } else {
        String::new()
    };
    let named = l
        .slice_name
        .as_deref()
        .filter(|n| !l.label.contains(n) && !matches!(l.family, "binder" | "locks"))
        .map_or(String::new(), |n| format!(" \"{n}\""));
    let base = match (l.family, Category::from_id(l.category).map(|c| c.kind())) {
        (_, Some(categories::Kind::Wait)) if l.label.starts_with("waiting") => {
            format!("{who} blocked {:.1} ms {}{named}", l.ms, l.label)
        }
        (_, Some(categories::Kind::Wait)) => {
            format!("{who} blocked {:.1} ms in {}{named}", l.ms, l.label)
        }
        ("cpu", _) => format!("{who} runnable {:.1} ms, waiting for a CPU", l.ms),
        ("io", _) => format!("{who} {:.1} ms in uninterruptible sleep", l.ms),
        ("self", _) => format!("{who} {:.1} ms {}", l.ms, l.label),
        ("frame", _) => format!("{who}: {:.1} ms {}", l.ms, l.label),
        _ => format!("{who} {:.1} ms in {}{named}", l.ms, l.label),
    };
    let detail = if let Some(b) = &l.binder {
        binder::phrase(b)
    } else if let Some(k) = &l.lock {
        locks::phrase(k)
    } else if let Some(g) = &l.gc {
        gc::phrase(g)
    } else if let Some(c) = &l.cpu {
        cpu::phrase(c)
    } else if let Some(i) = &l.io {
        io::phrase(i)
    } else if let Some(w) = &l.woken_by {
        wakeups::phrase(w)
    } else if let Some(a) = &l.render_thread_activity {
        render_thread::phrase(a)
    } else {
        String::new()
    };
    let stretches = match &l.longest_stretch {
        Some(s) if l.stretches > 1 => format!(
            " over {} stretches (longest {:.1} ms)",
            l.stretches,
            ms(s.dur_ns)
        ),
        _ => String::new(),
    };
    format!("{base}{stretches}{detail}{total}")
}

/// Accumulates chains into a process's summary.
#[derive(Default)]
pub struct Aggregate {
    janky: usize,
    explained: usize,
    explained_ns: i64,
    all: Tally,
    layers: BTreeMap<Option<String>, (usize, Tally)>,
}

#[derive(Default, Clone)]
struct Tally {
    /// category -> (ns, frames, primary frames)
    by: BTreeMap<&'static str, (i64, usize, usize, &'static str, &'static str)>,
    ns: i64,
}

impl Tally {
    fn add(&mut self, c: &ChainTotals) {
        for t in &c.by_category {
            let e = self
                .by
                .entry(t.category)
                .or_insert((0, 0, 0, t.label, t.family));
            e.0 += t.dur_ns;
            e.1 += 1;
        }
        if let Some(p) = c.by_category.first() {
            if let Some(e) = self.by.get_mut(p.category) {
                e.2 += 1;
            }
        }
        self.ns += c.window_ns;
    }

    fn top(&self, by_frames: bool, n: usize) -> Vec<TopCause> {
        let mut v: Vec<TopCause> = self
            .by
            .iter()
            .map(
                |(&category, &(ns, frames, primary, label, family))| TopCause {
                    category,
                    label,
                    family,
                    total_ms: ms(ns),
                    frames,
                    primary_frames: primary,
                    share: share(ns, self.ns),
                },
            )
            .collect();
        if by_frames {
            v.sort_by(|a, b| {
                (b.frames, b.primary_frames)
                    .cmp(&(a.frames, a.primary_frames))
                    .then(b.total_ms.total_cmp(&a.total_ms))
            });
        } else {
            v.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        }
        v.truncate(n);
        v
    }
}

/// How many categories the aggregate lists.
pub const TOP_N: usize = 10;

impl Aggregate {
    pub fn janky_frames(&self) -> usize {
        self.janky
    }

    /// Counts a janky frame and, when it has one, its chain.
    pub fn add(&mut self, layer: Option<&str>, c: Option<&ChainTotals>) {
        self.janky += 1;
        let l = self.layers.entry(layer.map(str::to_string)).or_default();
        l.0 += 1;
        if let Some(c) = c {
            self.explained += 1;
            self.explained_ns += c.window_ns;
            self.all.add(c);
            l.1.add(c);
        }
    }

    pub fn summary(&self) -> CausesSummary {
        let mut by_layer: Vec<LayerCauses> = self
            .layers
            .iter()
            .map(|(layer, (n, t))| LayerCauses {
                layer: layer.clone(),
                janky_frames: *n,
                top_by_ms: t.top(false, TOP_N),
            })
            .collect();
        by_layer.sort_by_key(|l| std::cmp::Reverse(l.janky_frames));
        CausesSummary {
            janky_frames: self.janky,
            explained_frames: self.explained,
            explained_ms: ms(self.explained_ns),
            top_by_ms: self.all.top(false, TOP_N),
            top_by_frames: self.all.top(true, TOP_N),
            by_layer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frame_model::Timeline;

    fn span(id: u32, ts: i64, dur: i64) -> Span {
        Span { id, ts, dur }
    }

    fn frame(ts: i64, dur: i64, expected: Option<Span>) -> Frame {
        Frame {
            upid: 1,
            layer: None,
            frame_id: Some(1),
            ts,
            dur,
            ui: None,
            rt: None,
            timeline: expected.map(|e| Timeline {
                actual: span(9, ts, dur),
                expected: Some(e),
                token: 1,
                display_token: 2,
                jank_type: String::new(),
                jank_mask: 0,
                jank_tag: String::new(),
                present_type: String::new(),
                on_time_finish: false,
                gpu_composition: false,
                prediction_type: String::new(),
                display: None,
            }),
            buffer: None,
        }
    }

    fn slices(ui: Option<Span>, rt: Option<Span>) -> FrameSlices {
        FrameSlices {
            ui,
            rt,
            matched_by: Some(frame_slices::BY_FRAME_MODEL),
        }
    }

    fn ends(w: Option<Window>) -> Option<(i64, i64, &'static str, &'static str)> {
        w.map(|w| (w.ts, w.end_ts, w.from, w.to))
    }

    #[test]
    fn window_from_expected_or_do_frame_start_to_the_frame_end() {
        let ui = Some(span(1, 105, 20));
        let rt = Some(span(2, 125, 30));
        // FrameTimeline: expected start to the actual frame's end.
        let f = frame(104, 60, Some(span(3, 100, 16)));
        assert_eq!(
            ends(window(&f, &slices(ui, rt))),
            Some((100, 164, "expected_start", "actual_end"))
        );
        // Without it: doFrame start to the frame's end.
        let f = frame(105, 50, None);
        assert_eq!(
            ends(window(&f, &slices(ui, rt))),
            Some((105, 155, "do_frame_start", "frame_end"))
        );
        assert_eq!(
            ends(window(&f, &slices(None, rt))),
            Some((105, 155, "frame_start", "frame_end"))
        );
    }

    fn piece(start: i64, end: i64) -> Piece {
        Piece {
            start,
            end,
            category: Category::SleepingSelf,
            slice: None,
            context: None,
            state_row: None,
            rule: "",
        }
    }

    #[test]
    fn stretches_are_runs_of_adjacent_pieces() {
        // 0-2, then 5-8 and 8-14 touching (one stretch of 9), then 20-27.
        let ps = [piece(0, 2), piece(5, 8), piece(8, 14), piece(20, 27)];
        let refs: Vec<&Piece> = ps.iter().collect();
        assert_eq!(stretches_of(&refs), (3, Stretch { ts: 5, dur_ns: 9 }));
        let one = [piece(3, 4)];
        assert_eq!(
            stretches_of(&one.iter().collect::<Vec<_>>()),
            (1, Stretch { ts: 3, dur_ns: 1 })
        );
    }

    #[test]
    fn an_actual_frame_that_never_ended_ends_with_its_slices() {
        let f = frame(104, -1, Some(span(3, 100, 16)));
        let ui = Some(span(1, 105, 20));
        let rt = Some(span(2, 125, 30));
        assert_eq!(
            ends(window(&f, &slices(ui, rt))),
            Some((100, 155, "expected_start", "draw_frame_end"))
        );
        // An unfinished DrawFrame: the doFrame's end.
        let open_rt = Some(span(2, 125, -1));
        assert_eq!(
            ends(window(&f, &slices(ui, open_rt))),
            Some((100, 125, "expected_start", "do_frame_end"))
        );
        // Nothing ended: no window.
        assert_eq!(ends(window(&f, &slices(None, open_rt))), None);
        assert_eq!(ends(window(&f, &slices(None, None))), None);
    }
}
