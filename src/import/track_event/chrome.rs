//! Chrome vocabulary trace_processor applies to track events: friendly process and thread
//! names for Chrome's process / thread type enums, and the schema of the TrackEvent fields
//! it turns into args by reflection (the Chrome extensions seen in Android traces of apps
//! that embed Chromium, and a few built-in Chrome fields). Facts from Perfetto v58.2's
//! chrome_string_lookup.cc, chrome_enums.proto, track_event.proto and
//! chrome_track_event.proto.

/// Name of a Chrome process type (ProcessDescriptor.chrome_process_type,
/// ChromeProcessDescriptor.process_type): the friendly name, else the enum value's name;
/// None for unspecified or unknown values.
pub fn process_name(process_type: i32) -> Option<&'static str> {
    Some(match process_type {
        1 => "Browser",
        2 => "Renderer",
        3 => "Utility",
        4 => "SandboxHelper",
        5 => "PROCESS_SANDBOX_HELPER",
        6 => "Gpu",
        7 => "PpapiPlugin",
        8 => "PpapiBroker",
        9 => "Service: network.mojom.NetworkService",
        10 => "Service: tracing.mojom.TracingService",
        11 => "Service: storage.mojom.StorageService",
        12 => "Service: audio.mojom.AudioService",
        13 => "Service: data_decoder.mojom.DataDecoderService",
        14 => "Service: chrome.mojom.UtilWin",
        15 => "Service: proxy_resolver.mojom.ProxyResolverFactory",
        16 => "Service: media.mojom.CdmServiceBroker",
        17 => "Service: video_capture.mojom.VideoCaptureService",
        18 => "Service: unzip.mojom.Unzipper",
        19 => "Service: mirroring.mojom.MirroringService",
        20 => "Service: patch.mojom.FilePatcher",
        21 => "Service: chromeos.tts.mojom.TtsService",
        22 => "Service: printing.mojom.PrintingService",
        23 => "Service: quarantine.mojom.Quarantine",
        24 => "Service: chromeos.local_search_service.mojom.LocalSearchService",
        25 => "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
        26 => "Service: chrome.mojom.FileUtilService",
        27 => "Service: printing.mojom.PrintCompositor",
        28 => "Service: paint_preview.mojom.PaintPreviewCompositorCollection",
        29 => "Service: media.mojom.SpeechRecognitionService",
        30 => "Service: device.mojom.XRDeviceService",
        31 => "Service: chrome.mojom.UtilReadIcon",
        32 => "Service: language_detection.mojom.LanguageDetectionService",
        33 => "Service: sharing.mojom.Sharing",
        34 => "Service: chrome.mojom.MediaParserFactory",
        35 => "Service: qrcode_generator.mojom.QRCodeService",
        36 => "Service: chrome.mojom.ProfileImport",
        37 => "Service: chromeos.ime.mojom.ImeService",
        38 => "Service: recording.mojom.RecordingService",
        39 => "Service: shape_detection.mojom.ShapeDetectionService",
        40 => "Extension Renderer",
        41 => "Service: media.mojom.MediaFoundationServiceBroker",
        42 => "PROCESS_RENDERER_TOP_WEBUI",
        _ => return None,
    })
}

/// Renderer processes name their process at a higher priority than other Chrome types.
pub fn is_renderer(process_type: i32) -> bool {
    matches!(process_type, 2 | 40)
}

/// Name of a Chrome thread type (ChromeThreadDescriptor.thread_type); None for unspecified
/// or unknown values.
pub fn thread_name(thread_type: i32) -> Option<&'static str> {
    Some(match thread_type {
        1 => "CrProcessMain",
        2 => "ChromeIOThread",
        3 => "ThreadPoolBackgroundWorker&",
        4 => "ThreadPoolForegroundWorker&",
        5 => "ThreadPoolSingleThreadForegroundBlocking&",
        6 => "ThreadPoolSingleThreadBackgroundBlocking&",
        7 => "ThreadPoolService",
        8 => "Compositor",
        9 => "VizCompositorThread",
        10 => "CompositorTileWorker&",
        11 => "ServiceWorkerThread&",
        12 => "NetworkService",
        13 => "Chrome_ChildIOThread",
        14 => "Chrome_IOThread",
        15 => "CrBrowserMain",
        16 => "CrRendererMain",
        17 => "CrUtilityMain",
        18 => "CrGpuMain",
        19 => "CacheThread_BlockFile",
        20 => "Media",
        21 => "AudioOutputDevice",
        22 => "AudioInputDevice",
        23 => "GpuMemoryThread",
        24 => "GpuVSyncThread",
        25 => "DXVAVideoDecoderThread",
        26 => "BrowserWatchdog",
        27 => "WebRTC_Network",
        28 => "Window owner thread",
        29 => "WebRTC_Signaling",
        30 => "WebRTC_Worker",
        31 => "CrPPAPIMain",
        32 => "GpuWatchdog",
        33 => "swapper",
        34 => "Gamepad polling thread",
        35 => "WebCrypto",
        36 => "Database thread",
        37 => "Proxy Resolver",
        38 => "Chrome_DevToolsADBThread",
        39 => "NetworkConfigWatcher",
        40 => "wasapi_render_thread",
        41 => "LoaderLockSampler",
        42 => "VSyncThread",
        50 => "MemoryInfra",
        51 => "StackSamplingProfiler",
        52 => "CompositorGpuThread",
        _ => return None,
    })
}

/// How a reflected field's value is read and stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Fixed64,
    Bool,
    Str,
    /// An enum: values by number; unknown numbers are stored as their decimal string.
    Enum(&'static [(i32, &'static str)]),
    Message(&'static [Field]),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    pub number: u32,
    pub name: &'static str,
    pub kind: Kind,
    pub repeated: bool,
}

const fn field(number: u32, name: &'static str, kind: Kind) -> Field {
    Field {
        number,
        name,
        kind,
        repeated: false,
    }
}

const fn repeated(number: u32, name: &'static str, kind: Kind) -> Field {
    Field {
        number,
        name,
        kind,
        repeated: true,
    }
}

const TASK_ANNOTATOR_DELAY_POLICY: &[(i32, &str)] = &[
    (0, "FLEXIBLE_NO_SOONER"),
    (1, "FLEXIBLE_PREFER_EARLY"),
    (2, "PRECISE"),
];

const CHROME_TASK_ANNOTATOR: &[Field] = &[
    field(1, "ipc_hash", Kind::UInt32),
    field(2, "task_delay_us", Kind::UInt64),
    field(3, "delay_policy", Kind::Enum(TASK_ANNOTATOR_DELAY_POLICY)),
];

const THREAD_POOL_PRIORITY: &[(i32, &str)] = &[
    (0, "PRIORITY_UNSPECIFIED"),
    (1, "PRIORITY_BEST_EFFORT"),
    (2, "PRIORITY_USER_VISIBLE"),
    (3, "PRIORITY_USER_BLOCKING"),
];

const THREAD_POOL_EXECUTION_MODE: &[(i32, &str)] = &[
    (0, "EXECTUION_MODE_UNSPECIFIED"),
    (1, "EXECUTION_MODE_PARALLEL"),
    (2, "EXECUTION_MODE_SEQUENCED"),
    (3, "EXECUTION_MODE_SINGLE_THREAD"),
    (4, "EXECUTION_MODE_JOB"),
];

const THREAD_POOL_SHUTDOWN_BEHAVIOR: &[(i32, &str)] = &[
    (0, "SHUTDOWN_BEHAVIOR_UNSPECIFIED"),
    (1, "SHUTDOWN_BEHAVIOR_CONTINUE_ON_SHUTDOWN"),
    (2, "SHUTDOWN_BEHAVIOR_SKIP_ON_SHUTDOWN"),
    (3, "SHUTDOWN_BEHAVIOR_BLOCK_SHUTDOWN"),
];

const CHROME_THREAD_POOL_TASK: &[Field] = &[
    field(1, "task_priority", Kind::Enum(THREAD_POOL_PRIORITY)),
    field(2, "execution_mode", Kind::Enum(THREAD_POOL_EXECUTION_MODE)),
    field(3, "sequence_token", Kind::Int64),
    field(
        4,
        "shutdown_behavior",
        Kind::Enum(THREAD_POOL_SHUTDOWN_BEHAVIOR),
    ),
];

const SEQUENCE_MANAGER_PRIORITY: &[(i32, &str)] = &[
    (0, "UNKNOWN"),
    (1, "CONTROL_PRIORITY"),
    (2, "HIGHEST_PRIORITY"),
    (3, "VERY_HIGH_PRIORITY"),
    (4, "HIGH_PRIORITY"),
    (5, "NORMAL_PRIORITY"),
    (6, "LOW_PRIORITY"),
    (7, "BEST_EFFORT_PRIORITY"),
    (8, "HIGH_PRIORITY_CONTINUATION"),
    (9, "NORMAL_PRIORITY_CONTINUATION"),
    (10, "LOW_PRIORITY_CONTINUATION"),
    (11, "EXTREMELY_HIGH_PRIORITY"),
    (12, "MEDIUM_PRIORITY"),
    (13, "LOWEST_PRIORITY"),
    (14, "IDLE_PRIORITY"),
    (15, "THROTTLED_PRIORITY"),
];

const SEQUENCE_MANAGER_QUEUE_NAME: &[(i32, &str)] = &[
    (0, "UNKNOWN_TQ"),
    (1, "DEFAULT_TQ"),
    (2, "TASK_ENVIRONMENT_DEFAULT_TQ"),
    (3, "TEST2_TQ"),
    (4, "TEST_TQ"),
    (5, "CONTROL_TQ"),
    (6, "SUBTHREAD_CONTROL_TQ"),
    (7, "SUBTHREAD_DEFAULT_TQ"),
    (8, "SUBTHREAD_INPUT_TQ"),
    (9, "UI_BEST_EFFORT_TQ"),
    (10, "UI_BOOTSTRAP_TQ"),
    (11, "UI_CONTROL_TQ"),
    (12, "UI_DEFAULT_TQ"),
    (13, "UI_NAVIGATION_NETWORK_RESPONSE_TQ"),
    (14, "UI_RUN_ALL_PENDING_TQ"),
    (15, "UI_SERVICE_WORKER_STORAGE_CONTROL_RESPONSE_TQ"),
    (16, "UI_THREAD_TQ"),
    (17, "UI_USER_BLOCKING_TQ"),
    (18, "UI_USER_INPUT_TQ"),
    (19, "UI_USER_VISIBLE_TQ"),
    (20, "IO_BEST_EFFORT_TQ"),
    (21, "IO_BOOTSTRAP_TQ"),
    (22, "IO_CONTROL_TQ"),
    (23, "IO_DEFAULT_TQ"),
    (24, "IO_NAVIGATION_NETWORK_RESPONSE_TQ"),
    (25, "IO_RUN_ALL_PENDING_TQ"),
    (26, "IO_SERVICE_WORKER_STORAGE_CONTROL_RESPONSE_TQ"),
    (27, "IO_THREAD_TQ"),
    (28, "IO_USER_BLOCKING_TQ"),
    (29, "IO_USER_INPUT_TQ"),
    (30, "IO_USER_VISIBLE_TQ"),
    (31, "COMPOSITOR_TQ"),
    (32, "DETACHED_TQ"),
    (33, "FRAME_DEFERRABLE_TQ"),
    (34, "FRAME_LOADING_CONTROL_TQ"),
    (35, "FRAME_LOADING_TQ"),
    (36, "FRAME_PAUSABLE_TQ"),
    (37, "FRAME_THROTTLEABLE_TQ"),
    (38, "FRAME_UNPAUSABLE_TQ"),
    (39, "IDLE_TQ"),
    (40, "INPUT_TQ"),
    (41, "IPC_TRACKING_FOR_CACHED_PAGES_TQ"),
    (42, "NON_WAKING_TQ"),
    (43, "OTHER_TQ"),
    (44, "V8_TQ"),
    (45, "WEB_SCHEDULING_TQ"),
    (46, "WORKER_IDLE_TQ"),
    (47, "WORKER_PAUSABLE_TQ"),
    (48, "WORKER_THREAD_INTERNAL_TQ"),
    (49, "WORKER_THROTTLEABLE_TQ"),
    (50, "WORKER_UNPAUSABLE_TQ"),
    (51, "WORKER_WEB_SCHEDULING_TQ"),
    (52, "UI_USER_BLOCKING_DEFERRABLE_TQ"),
    (53, "IO_USER_BLOCKING_DEFERRABLE_TQ"),
    (54, "UI_BEFORE_UNLOAD_BROWSER_RESPONSE_TQ"),
    (55, "IO_BEFORE_UNLOAD_BROWSER_RESPONSE_TQ"),
    (56, "V8_USER_VISIBLE_TQ"),
    (57, "V8_BEST_EFFORT_TQ"),
    (58, "NETWORK_SERVICE_THREAD_HIGH_TQ"),
    (59, "NETWORK_SERVICE_THREAD_DEFAULT_TQ"),
    (60, "UI_STARTUP_TQ"),
    (61, "IO_STARTUP_TQ"),
    (62, "NETWORK_SERVICE_THREAD_THROTTLED_TQ"),
    (63, "NETWORK_SERVICE_THREAD_IDLE_TQ"),
    (64, "NETWORK_SERVICE_THREAD_LOWEST_TQ"),
    (65, "NETWORK_SERVICE_THREAD_LOW_TQ"),
    (66, "NETWORK_SERVICE_THREAD_MEDIUM_TQ"),
    (67, "NETWORK_SERVICE_THREAD_HIGHEST_TQ"),
];

const SEQUENCE_MANAGER_TASK: &[Field] = &[
    field(1, "priority", Kind::Enum(SEQUENCE_MANAGER_PRIORITY)),
    field(2, "queue_name", Kind::Enum(SEQUENCE_MANAGER_QUEUE_NAME)),
];

const CHROME_USER_EVENT: &[Field] = &[
    field(1, "action", Kind::Str),
    field(2, "action_hash", Kind::UInt64),
];

const CHROME_KEYED_SERVICE: &[Field] = &[field(1, "name", Kind::Str)];

const CHROME_HISTOGRAM_SAMPLE: &[Field] = &[
    field(1, "name_hash", Kind::UInt64),
    field(2, "name", Kind::Str),
    field(3, "sample", Kind::Int64),
    field(4, "name_iid", Kind::UInt64),
];

const SOURCE_LOCATION: &[Field] = &[
    field(1, "iid", Kind::UInt64),
    field(2, "file_name", Kind::Str),
    field(3, "function_name", Kind::Str),
    field(4, "line_number", Kind::UInt32),
];

const CHROME_MESSAGE_PUMP: &[Field] = &[
    field(1, "sent_messages_in_queue", Kind::Bool),
    field(2, "io_handler_location_iid", Kind::UInt64),
];

const APPLICATION_STATE: &[(i32, &str)] = &[
    (0, "APPLICATION_STATE_UNKNOWN"),
    (1, "APPLICATION_STATE_HAS_RUNNING_ACTIVITIES"),
    (2, "APPLICATION_STATE_HAS_PAUSED_ACTIVITIES"),
    (3, "APPLICATION_STATE_HAS_STOPPED_ACTIVITIES"),
    (4, "APPLICATION_STATE_HAS_DESTROYED_ACTIVITIES"),
];

const CHROME_APPLICATION_STATE_INFO: &[Field] =
    &[field(1, "application_state", Kind::Enum(APPLICATION_STATE))];

const CHROME_WINDOW_HANDLE_EVENT_INFO: &[Field] = &[
    field(1, "dpi", Kind::UInt32),
    field(2, "message_id", Kind::UInt32),
    field(3, "hwnd_ptr", Kind::Fixed64),
];

const CHROME_ACTIVE_PROCESSES: &[Field] = &[repeated(1, "pid", Kind::Int32)];

/// TrackEvent fields trace_processor reflects into args that frameprobe models: the
/// allow-listed built-in fields and the Chrome extensions.
pub const REFLECTED: &[Field] = &[
    field(25, "chrome_user_event", Kind::Message(CHROME_USER_EVENT)),
    field(
        26,
        "chrome_keyed_service",
        Kind::Message(CHROME_KEYED_SERVICE),
    ),
    field(
        28,
        "chrome_histogram_sample",
        Kind::Message(CHROME_HISTOGRAM_SAMPLE),
    ),
    field(33, "source_location", Kind::Message(SOURCE_LOCATION)),
    field(34, "source_location_iid", Kind::UInt64),
    field(
        35,
        "chrome_message_pump",
        Kind::Message(CHROME_MESSAGE_PUMP),
    ),
    field(
        39,
        "chrome_application_state_info",
        Kind::Message(CHROME_APPLICATION_STATE_INFO),
    ),
    field(
        41,
        "chrome_window_handle_event_info",
        Kind::Message(CHROME_WINDOW_HANDLE_EVENT_INFO),
    ),
    field(
        49,
        "chrome_active_processes",
        Kind::Message(CHROME_ACTIVE_PROCESSES),
    ),
    field(
        1002,
        "chrome_task_annotator",
        Kind::Message(CHROME_TASK_ANNOTATOR),
    ),
    field(
        1029,
        "thread_pool_task",
        Kind::Message(CHROME_THREAD_POOL_TASK),
    ),
    field(
        1040,
        "sequence_manager_task",
        Kind::Message(SEQUENCE_MANAGER_TASK),
    ),
];

/// The TrackEvent fields trace_processor reflects (its allow-list) besides extensions.
const REFLECT_ALLOWED: &[u32] = &[
    24, 25, 26, 27, 28, 29, 32, 33, 34, 35, 38, 39, 40, 41, 43, 49, 50,
];

/// Every field number of TrackEvent itself (track_event.proto).
const TRACK_EVENT_FIELDS: &[u32] = &[
    1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
    33, 34, 35, 36, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 52, 53, 54, 55, 56, 57,
];

/// What trace_processor does with one TrackEvent field when building args by reflection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reflect {
    /// Not an arg (a field the importer handles itself).
    Skip,
    /// Reflected with this schema.
    Args(&'static Field),
    /// Reflected by trace_processor with a schema frameprobe does not carry.
    NotModeled,
    /// Unknown to trace_processor too (counted as an unknown extension).
    Unknown,
}

pub fn reflect(number: u32) -> Reflect {
    if let Some(f) = REFLECTED.iter().find(|f| f.number == number) {
        return Reflect::Args(f);
    }
    // Chrome's extensions, Android's framework extensions (2001..2199) and the GPU one.
    let is_extension =
        (1000..=1085).contains(&number) || (2001..=2199).contains(&number) || number == 3000;
    if is_extension || REFLECT_ALLOWED.contains(&number) {
        return Reflect::NotModeled;
    }
    if TRACK_EVENT_FIELDS.contains(&number) {
        Reflect::Skip
    } else {
        Reflect::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_tables_are_dense_and_ordered() {
        for f in REFLECTED {
            if let Kind::Message(fields) = f.kind {
                for sub in fields {
                    if let Kind::Enum(values) = sub.kind {
                        for (i, (v, _)) in values.iter().enumerate() {
                            assert_eq!(*v as usize, i, "{}.{}", f.name, sub.name);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reflection_classes() {
        assert!(matches!(reflect(1029), Reflect::Args(f) if f.name == "thread_pool_task"));
        assert_eq!(reflect(1030), Reflect::NotModeled);
        assert_eq!(reflect(24), Reflect::NotModeled);
        assert_eq!(reflect(23), Reflect::Skip);
        assert_eq!(reflect(5000), Reflect::Unknown);
        assert_eq!(reflect(51), Reflect::Unknown);
    }

    #[test]
    fn chrome_names() {
        assert_eq!(process_name(1), Some("Browser"));
        assert_eq!(process_name(0), None);
        assert_eq!(thread_name(15), Some("CrBrowserMain"));
        assert_eq!(thread_name(43), None);
    }
}
