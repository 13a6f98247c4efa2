//! The cause categories and the one table of slice-name rules that puts a slice in one.
//!
//! The base is trace_processor v58.2's list of relevant blocking calls
//! (`android/critical_blocking_calls.sql`, `_is_relevant_blocking_call_expr`), extended with
//! the names of `android/startup/startup_breakdowns.sql` (class loading, dlopen, resources,
//! ART locks) and the RenderThread work HWUI and Skia trace (shader compiles, texture uploads,
//! buffer queue waits, GPU fence waits). A slice's category is the first rule its name
//! matches; the first rules are the waits, which claim their whole duration whatever the
//! thread's scheduling state, then the work, whose Runnable and uninterruptible time is
//! re-attributed to CPU contention and IO.
//!
//! Categories that no slice rule produces come from the thread's state or the frame phase
//! (CPU contention, IO, self time, GPU / composition). README's "Cause categories" section
//! documents the same table.

use super::super::glob::glob;

/// How a category's slices use the thread's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The thread waits on someone else: the slice's whole duration is the cause.
    Wait,
    /// The thread does the work itself: Runnable time inside it is CPU contention and
    /// uninterruptible time IO.
    Work,
    /// Derived from thread states or frame phases, never from a slice name.
    Derived,
}

/// A cause category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Binder,
    MonitorContention,
    ArtLockContention,
    MutexContention,
    ThreadSuspend,
    GcWait,
    WaitForRenderThread,
    ClassLoading,
    Dlopen,
    ResourceLoading,
    Inflate,
    Measure,
    Layout,
    Draw,
    Traversal,
    RecyclerView,
    Animation,
    Input,
    ConfigChange,
    RelayoutWindow,
    Compose,
    ImageDecode,
    HandlerMessage,
    Notifications,
    ShaderCompile,
    TextureUpload,
    FlushCommands,
    DrawLayer,
    SwapBuffers,
    DequeueBuffer,
    QueueBuffer,
    GpuFenceWait,
    CpuContention,
    Io,
    RunningSelf,
    SleepingSelf,
    NoThreadData,
    VsyncDelay,
    GpuComposition,
    NoFrameSlices,
}

/// What a category is called and how it behaves.
pub struct CategoryInfo {
    pub category: Category,
    /// Stable id used in JSON and CSV.
    pub id: &'static str,
    pub label: &'static str,
    /// The cause family (one module of `causes/` each): binder, locks, gc, cpu, io,
    /// render_thread, app_work, self, frame.
    pub family: &'static str,
    pub kind: Kind,
}

const fn info(
    category: Category,
    id: &'static str,
    label: &'static str,
    family: &'static str,
    kind: Kind,
) -> CategoryInfo {
    CategoryInfo {
        category,
        id,
        label,
        family,
        kind,
    }
}

use Category as C;
use Kind::{Derived, Wait, Work};

/// Every category, in the order of the enum.
pub const CATEGORIES: &[CategoryInfo] = &[
    info(C::Binder, "binder", "binder call", "binder", Wait),
    info(
        C::MonitorContention,
        "monitor_contention",
        "monitor lock contention",
        "locks",
        Wait,
    ),
    info(
        C::ArtLockContention,
        "art_lock_contention",
        "ART lock contention",
        "locks",
        Wait,
    ),
    info(
        C::MutexContention,
        "mutex_contention",
        "pthread mutex contention",
        "locks",
        Wait,
    ),
    info(
        C::ThreadSuspend,
        "thread_suspend",
        "waiting to suspend a thread",
        "locks",
        Wait,
    ),
    info(C::GcWait, "gc_wait", "waiting for GC", "gc", Wait),
    info(
        C::WaitForRenderThread,
        "wait_for_render_thread",
        "waiting for the RenderThread",
        "render_thread",
        Wait,
    ),
    info(
        C::ClassLoading,
        "class_loading",
        "class loading / verification / init",
        "app_work",
        Work,
    ),
    info(C::Dlopen, "dlopen", "dlopen", "app_work", Work),
    info(
        C::ResourceLoading,
        "resource_loading",
        "resource / asset loading",
        "app_work",
        Work,
    ),
    info(C::Inflate, "inflate", "inflate", "app_work", Work),
    info(C::Measure, "measure", "measure", "app_work", Work),
    info(C::Layout, "layout", "layout", "app_work", Work),
    info(C::Draw, "draw", "draw (record)", "app_work", Work),
    info(C::Traversal, "traversal", "traversal", "app_work", Work),
    info(
        C::RecyclerView,
        "recycler_view",
        "RecyclerView bind / create",
        "app_work",
        Work,
    ),
    info(C::Animation, "animation", "animation", "app_work", Work),
    info(C::Input, "input", "input", "app_work", Work),
    info(
        C::ConfigChange,
        "config_change",
        "configuration change",
        "app_work",
        Work,
    ),
    info(
        C::RelayoutWindow,
        "relayout_window",
        "relayoutWindow",
        "app_work",
        Work,
    ),
    info(C::Compose, "compose", "Compose", "app_work", Work),
    info(
        C::ImageDecode,
        "image_decode",
        "image decoding",
        "app_work",
        Work,
    ),
    info(
        C::HandlerMessage,
        "handler_message",
        "Handler message",
        "app_work",
        Work,
    ),
    info(
        C::Notifications,
        "notifications",
        "SystemUI notification measure",
        "app_work",
        Work,
    ),
    info(
        C::ShaderCompile,
        "shader_compile",
        "shader compilation",
        "render_thread",
        Work,
    ),
    info(
        C::TextureUpload,
        "texture_upload",
        "texture / bitmap upload",
        "render_thread",
        Work,
    ),
    info(
        C::FlushCommands,
        "flush_commands",
        "flush commands (GPU command recording)",
        "render_thread",
        Work,
    ),
    info(
        C::DrawLayer,
        "draw_layer",
        "drawLayer",
        "render_thread",
        Work,
    ),
    info(
        C::SwapBuffers,
        "swap_buffers",
        "eglSwapBuffers",
        "render_thread",
        Work,
    ),
    info(
        C::DequeueBuffer,
        "dequeue_buffer",
        "dequeueBuffer wait",
        "render_thread",
        Wait,
    ),
    info(
        C::QueueBuffer,
        "queue_buffer",
        "queueBuffer wait",
        "render_thread",
        Wait,
    ),
    info(
        C::GpuFenceWait,
        "gpu_fence_wait",
        "GPU fence wait",
        "render_thread",
        Wait,
    ),
    info(
        C::CpuContention,
        "cpu_contention",
        "runnable, waiting for a CPU",
        "cpu",
        Derived,
    ),
    info(
        C::Io,
        "io",
        "uninterruptible sleep (IO / kernel)",
        "io",
        Derived,
    ),
    info(
        C::RunningSelf,
        "running_self",
        "running, uncategorised work (self time)",
        "self",
        Derived,
    ),
    info(
        C::SleepingSelf,
        "sleeping_self",
        "sleeping, no blocking call named (self time)",
        "self",
        Derived,
    ),
    info(
        C::NoThreadData,
        "no_thread_data",
        "no scheduling data (self time)",
        "self",
        Derived,
    ),
    info(
        C::VsyncDelay,
        "vsync_delay",
        "UI thread idle before doFrame (vsync / scheduling delay)",
        "frame",
        Derived,
    ),
    info(
        C::GpuComposition,
        "gpu_composition",
        "after the RenderThread: GPU, SurfaceFlinger, present",
        "frame",
        Derived,
    ),
    info(
        C::NoFrameSlices,
        "no_frame_slices",
        "no doFrame or DrawFrame matched to the frame",
        "frame",
        Derived,
    ),
];

impl Category {
    pub fn info(self) -> &'static CategoryInfo {
        let i = &CATEGORIES[self as usize];
        debug_assert_eq!(i.category, self);
        i
    }
    pub fn id(self) -> &'static str {
        self.info().id
    }
    pub fn label(self) -> &'static str {
        self.info().label
    }
    pub fn family(self) -> &'static str {
        self.info().family
    }
    pub fn kind(self) -> Kind {
        self.info().kind
    }
    pub fn from_id(id: &str) -> Option<Category> {
        CATEGORIES.iter().find(|c| c.id == id).map(|c| c.category)
    }
}

/// Where a rule comes from.
pub const PERFETTO: &str = "Perfetto critical_blocking_calls";
pub const STARTUP: &str = "Perfetto startup_breakdowns";
pub const FRAMEPROBE: &str = "frameprobe";

/// One slice-name rule: a SQLite GLOB pattern (case-sensitive, `*` and `?`).
pub struct Rule {
    pub glob: &'static str,
    pub category: Category,
    pub source: &'static str,
}

const fn r(glob: &'static str, category: Category, source: &'static str) -> Rule {
    Rule {
        glob,
        category,
        source,
    }
}

/// The rules, first match wins. Waits come first so that, say, a binder call named inside
/// a Handler message is a binder call.
pub const RULES: &[Rule] = &[
    r("binder transaction", C::Binder, STARTUP),
    r("*binder transaction*", C::Binder, PERFETTO),
    r("monitor contention with*", C::MonitorContention, PERFETTO),
    r(
        "Lock contention on a monitor lock*",
        C::MonitorContention,
        STARTUP,
    ),
    r("Lock contention on*", C::ArtLockContention, PERFETTO),
    r("Contending for pthread mutex", C::MutexContention, PERFETTO),
    r("SuspendThreadByThreadId*", C::ThreadSuspend, PERFETTO),
    r("GC: Wait For*", C::GcWait, PERFETTO),
    r("WaitForGcToComplete*", C::GcWait, FRAMEPROBE),
    r("postAndWait", C::WaitForRenderThread, PERFETTO),
    r("dequeueBuffer*", C::DequeueBuffer, FRAMEPROBE),
    r("queueBuffer", C::QueueBuffer, PERFETTO),
    r("queueBuffer*", C::QueueBuffer, FRAMEPROBE),
    r("waiting for GPU*", C::GpuFenceWait, FRAMEPROBE),
    r("Waiting for GPU*", C::GpuFenceWait, FRAMEPROBE),
    r("*GPU completion*", C::GpuFenceWait, FRAMEPROBE),
    r("*ait for fence*", C::GpuFenceWait, FRAMEPROBE),
    r("*ence wait*", C::GpuFenceWait, FRAMEPROBE),
    // Work on the UI thread.
    r("OpenDexFilesFromOat*", C::ClassLoading, STARTUP),
    r("Open oat file*", C::ClassLoading, FRAMEPROBE),
    r("Open dex file*", C::ClassLoading, FRAMEPROBE),
    r("VerifyClass*", C::ClassLoading, STARTUP),
    r("AppImage:*", C::ClassLoading, FRAMEPROBE),
    // ART traces each class initialisation under the class's descriptor ("Lpkg/Name;").
    r("L*;", C::ClassLoading, FRAMEPROBE),
    r("dlopen*", C::Dlopen, STARTUP),
    r("LoadApkAssetsFd*", C::ResourceLoading, PERFETTO),
    r("LoadApkAssets*", C::ResourceLoading, FRAMEPROBE),
    r("ResourcesManager*", C::ResourceLoading, FRAMEPROBE),
    r("inflate*", C::Inflate, PERFETTO),
    r("measure", C::Measure, PERFETTO),
    r("layout", C::Layout, PERFETTO),
    r("draw-VRI*", C::Draw, PERFETTO),
    r("Record View#draw()", C::Draw, FRAMEPROBE),
    r("traversal", C::Traversal, PERFETTO),
    r("RV OnBindView", C::RecyclerView, FRAMEPROBE),
    r("RV CreateView", C::RecyclerView, FRAMEPROBE),
    r("RV *", C::RecyclerView, FRAMEPROBE),
    r("animation", C::Animation, PERFETTO),
    r("input", C::Input, PERFETTO),
    r("configChanged", C::ConfigChange, PERFETTO),
    r("relayoutWindow*", C::RelayoutWindow, PERFETTO),
    r("Recomposer:*", C::Compose, PERFETTO),
    r("Compose:*", C::Compose, PERFETTO),
    r("ImageDecoder#decode*", C::ImageDecode, PERFETTO),
    r(
        "NotificationStackScrollLayout#onMeasure",
        C::Notifications,
        PERFETTO,
    ),
    r("ExpNotRow#*", C::Notifications, PERFETTO),
    r(
        "android.os.Handler: kotlinx.coroutines*",
        C::HandlerMessage,
        PERFETTO,
    ),
    // Work on the RenderThread.
    r("shader_compile*", C::ShaderCompile, FRAMEPROBE),
    r("CreateGraphicsPipeline", C::ShaderCompile, PERFETTO),
    r("driver_compile_shader*", C::ShaderCompile, FRAMEPROBE),
    r("driver_link_program*", C::ShaderCompile, FRAMEPROBE),
    r("Texture upload*", C::TextureUpload, PERFETTO),
    r("Upload *", C::TextureUpload, FRAMEPROBE),
    r("Bitmap#prepareToDraw*", C::TextureUpload, FRAMEPROBE),
    r("flush commands", C::FlushCommands, PERFETTO),
    r("flush layers", C::FlushCommands, PERFETTO),
    r("drawLayer *", C::DrawLayer, PERFETTO),
    r("eglSwapBuffers*", C::SwapBuffers, FRAMEPROBE),
];

/// trace_processor's Handler heuristics (`_is_relevant_blocking_call_expr`'s last branch):
/// a top-level message `Handler: Class$Callback`, `a.b.C: Class$Lambda` or `a.b$H: #what`,
/// unless it is a Choreographer or input message.
fn is_handler_message(name: &str) -> bool {
    !glob("*Choreographer*", name)
        && !glob("*Input*", name)
        && !glob("*input*", name)
        && !glob("android.os.Handler: #*", name)
        && (glob("*Handler: *$*", name) || glob("*.*.*: *$*", name) || glob("*.*$*: #*", name))
}

/// The rule of Perfetto's Handler heuristics, after [`RULES`].
pub const HANDLER_RULE: &str = "Handler message heuristics";

/// The index of the rule a slice name matches: into [`RULES`], or `RULES.len()` for the
/// Handler heuristics; None when no rule matches. Frame markers (`Choreographer#doFrame*`,
/// `DrawFrame*`) are the frame itself, not a cause.
pub fn rule_index(name: &str) -> Option<usize> {
    if name.starts_with("Choreographer#doFrame") || name.starts_with("DrawFrame") {
        return None;
    }
    if let Some(k) = RULES.iter().position(|r| glob(r.glob, name)) {
        return Some(k);
    }
    is_handler_message(name).then_some(RULES.len())
}

/// The category and rule of [`rule_index`]'s answer.
pub fn rule_at(k: usize) -> (Category, &'static str) {
    match RULES.get(k) {
        Some(r) => (r.category, r.glob),
        None => (C::HandlerMessage, HANDLER_RULE),
    }
}

/// The category of a slice name and the rule that placed it; None when no rule matches.
pub fn categorize(name: &str) -> Option<(Category, &'static str)> {
    rule_index(name).map(rule_at)
}

/// trace_processor's `_is_relevant_blocking_call_expr` exactly (its list, not frameprobe's
/// additions): the calls `android.frame_blocking_calls.blocking_calls_aggregation` sums.
pub fn is_perfetto_blocking_call(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "measure",
        "layout",
        "configChanged",
        "animation",
        "input",
        "traversal",
        "Contending for pthread mutex",
        "postAndWait",
        "CreateGraphicsPipeline",
        "flush layers",
        "flush commands",
        "queueBuffer",
    ];
    const GLOBS: &[&str] = &[
        "monitor contention with*",
        "SuspendThreadByThreadId*",
        "LoadApkAssetsFd*",
        "*binder transaction*",
        "inflate*",
        "Lock contention on*",
        "android.os.Handler: kotlinx.coroutines*",
        "relayoutWindow*",
        "ImageDecoder#decode*",
        "NotificationStackScrollLayout#onMeasure",
        "ExpNotRow#*",
        "GC: Wait For*",
        "Recomposer:*",
        "Compose:*",
        "draw-VRI*",
        "drawLayer *",
        "DrawFrames*",
        "Texture upload*",
    ];
    EXACT.contains(&name) || GLOBS.iter().any(|g| glob(g, name)) || is_handler_message(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_enum_order_with_unique_ids() {
        for (i, c) in CATEGORIES.iter().enumerate() {
            assert_eq!(c.category as usize, i, "{}", c.id);
        }
        let mut ids: Vec<&str> = CATEGORIES.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), CATEGORIES.len());
        // Every rule names a slice category, never a derived one.
        assert!(RULES.iter().all(|r| r.category.kind() != Derived));
    }

    fn cat(name: &str) -> Option<&'static str> {
        categorize(name).map(|(c, _)| c.id())
    }

    #[test]
    fn names_from_perfettos_list_and_additions() {
        assert_eq!(cat("binder transaction"), Some("binder"));
        assert_eq!(cat("binder transaction async"), Some("binder"));
        assert_eq!(
            cat("monitor contention with owner main (1) at void a.B.c()(B.java:1) waiters=0 blocking from void a.B.d()(B.java:2)"),
            Some("monitor_contention")
        );
        assert_eq!(
            cat("Lock contention on a monitor lock (owner tid: 12)"),
            Some("monitor_contention")
        );
        assert_eq!(
            cat("Lock contention on thread list lock (owner tid: 1665)"),
            Some("art_lock_contention")
        );
        assert_eq!(cat("GC: Wait For Completion Alloc"), Some("gc_wait"));
        assert_eq!(cat("WaitForGcToComplete"), Some("gc_wait"));
        assert_eq!(
            cat("Landroidx/core/app/CoreComponentFactory;"),
            Some("class_loading")
        );
        assert_eq!(
            cat("OpenDexFilesFromOat(/data/app/x.apk)"),
            Some("class_loading")
        );
        assert_eq!(cat("LoadApkAssetsFd(/x)"), Some("resource_loading"));
        assert_eq!(
            cat("ResourcesManager#getResources"),
            Some("resource_loading")
        );
        assert_eq!(cat("inflate"), Some("inflate"));
        assert_eq!(cat("RV OnBindView"), Some("recycler_view"));
        assert_eq!(cat("Compose:recompose"), Some("compose"));
        assert_eq!(cat("shader_compile"), Some("shader_compile"));
        assert_eq!(cat("CreateGraphicsPipeline"), Some("shader_compile"));
        assert_eq!(cat("Texture upload(2) 72x72"), Some("texture_upload"));
        assert_eq!(
            cat("dequeueBuffer - VRI[target]#478(BLAST Consumer)478"),
            Some("dequeue_buffer")
        );
        assert_eq!(cat("queueBuffer"), Some("queue_buffer"));
        assert_eq!(cat("flush commands"), Some("flush_commands"));
        // Handler messages by Perfetto's heuristics; Choreographer's are the frame.
        assert_eq!(
            cat("android.os.Handler: com.android.systemui.X$1"),
            Some("handler_message")
        );
        assert_eq!(cat("android.view.Choreographer$FrameHandler: android.view.Choreographer$FrameDisplayEventReceiver"), None);
        assert_eq!(cat("Choreographer#doFrame 12"), None);
        assert_eq!(cat("DrawFrames 12"), None);
        assert_eq!(cat("Drawing 0 0 10 10"), None);
        // A name that only looks like a class descriptor.
        assert_eq!(cat("Lock"), None);
        // Frame markers stay the frame even when they contain a rule's text.
        assert_eq!(cat("DrawFrames 12 binder transaction"), None);
        assert_eq!(cat("Choreographer#doFrame 12 binder transaction"), None);
        // Handler heuristics (trace_processor's `_is_relevant_blocking_call_expr`): a
        // `Handler: Class$Callback` message without dots in the class is one too.
        assert_eq!(cat("Handler: Foo$1"), Some("handler_message"));
        assert_eq!(cat("a.b.C: D$E"), Some("handler_message"));
        assert_eq!(cat("a.B$H: #3"), Some("handler_message"));
        assert_eq!(cat("android.os.Handler: #3"), None);
        assert_eq!(
            cat("android.view.ViewRootImpl$ViewRootHandler: #Input"),
            None
        );
    }

    /// Kinds and families as README's "Cause categories" table documents them.
    #[test]
    fn ids_kinds_and_families_of_the_documented_table() {
        for (id, kind, family) in [
            ("binder", Wait, "binder"),
            ("monitor_contention", Wait, "locks"),
            ("gc_wait", Wait, "gc"),
            ("wait_for_render_thread", Wait, "render_thread"),
            ("inflate", Work, "app_work"),
            ("shader_compile", Work, "render_thread"),
            ("cpu_contention", Derived, "cpu"),
            ("io", Derived, "io"),
            ("running_self", Derived, "self"),
            ("vsync_delay", Derived, "frame"),
        ] {
            let c = Category::from_id(id).unwrap();
            assert_eq!((c.id(), c.kind(), c.family()), (id, kind, family));
        }
        assert_eq!(Category::from_id("no_such_cause"), None);
        // Every category has its own non-empty label (it names the cause in tables).
        let mut labels: Vec<&str> = CATEGORIES.iter().map(|c| c.category.label()).collect();
        assert!(labels.iter().all(|l| !l.is_empty()));
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), CATEGORIES.len());
    }

    #[test]
    fn perfetto_relevance_is_its_list_only() {
        assert!(is_perfetto_blocking_call("measure"));
        assert!(is_perfetto_blocking_call("DrawFrames 5"));
        assert!(is_perfetto_blocking_call("GC: Wait For Concurrent"));
        assert!(is_perfetto_blocking_call("drawLayer [X] 1 x 1"));
        // frameprobe additions are not in Perfetto's list.
        assert!(!is_perfetto_blocking_call("shader_compile"));
        assert!(!is_perfetto_blocking_call("dequeueBuffer"));
        assert!(!is_perfetto_blocking_call("WaitForGcToComplete"));
        assert!(!is_perfetto_blocking_call("Choreographer#doFrame 1"));
    }
}
